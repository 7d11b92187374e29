package azblobstore

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/gatesift/gatesift-vet/elector"
	"github.com/gatesift/gatesift-vet/internal/testserver"
	"github.com/gatesift/gatesift-vet/internal/testserver/faulttest"
)

// faultEnv runs the shared fault scenarios on Azurite. The resource is a
// blob next to the lease blob, a log of tokens appended by AppendFenced.
var faultEnv = faulttest.Env{
	Server: func(t *testing.T, private bool) *testserver.Server {
		// In the scenarios process (see TestFaults) nothing but the
		// scenarios runs, one at a time, so the server they restart can
		// be the shared one: an Azurite start costs 10-30 s here.
		if private && os.Getenv(scenariosEnv) == "" {
			return testserver.NewAzurite(t).Server
		}
		return testserver.Azurite(t).Server
	},
	Open: func(t *testing.T, addr string) elector.Store { return newStore(t, addr) },
	Write: func(ctx context.Context, s elector.Store, term elector.Term) error {
		line := strconv.FormatUint(term.Token, 10) + "\n"
		return s.(*Store).AppendFenced(ctx, term, writesBlob(term.Name), []byte(line))
	},
	Written: func(ctx context.Context, s elector.Store, name string) ([]uint64, error) {
		body, err := s.(*Store).ReadFenced(ctx, writesBlob(name))
		if err != nil {
			return nil, err
		}
		var tokens []uint64
		for _, f := range strings.Fields(string(body)) {
			tok, err := strconv.ParseUint(f, 10, 64)
			if err != nil {
				return nil, err
			}
			tokens = append(tokens, tok)
		}
		return tokens, nil
	},
}

func writesBlob(name string) string { return name + ".writes" }

// scenariosEnv, set to a -test.run pattern, makes TestFaults run the
// shared scenarios in this process instead of starting one that does.
const scenariosEnv = "GATESIFT_AZBLOB_FAULT_SCENARIOS"

// azuriteScenarios are the faulttest scenarios Azurite can pass. Left out:
// ServerKill9. Azurite saves its metadata database every 5 s, so a kill -9
// loses acknowledged writes (the scenario's resource writes and the lease
// blob itself); Azure Storage does not, and the store's reaction to such a
// loss is tested in TestEmulatorKill9TokensStillGrow.
const azuriteScenarios = "^TestFaults$/^(ServerRestart|GracefulHandover|ConnectionCut|ConnectionStall|LeaderKill9|LeaderPauseResume)$"

// TestFaults runs the shared fault scenarios but ServerKill9. faulttest.Run
// has no way to leave a scenario out, so the test re-executes its binary
// with a -test.run pattern that selects the others (faulttest's own child
// processes for the leader scenarios are started from that process).
func TestFaults(t *testing.T) {
	if os.Getenv(scenariosEnv) != "" {
		faulttest.Run(t, faultEnv)
		return
	}
	testserver.AzuriteBinary(t) // skip, or fail when required, here too
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// -test.v always: the PASS lines below prove the scenarios ran.
	cmd := exec.Command(exe, "-test.run="+azuriteScenarios, "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), scenariosEnv+"=1")
	out, err := cmd.CombinedOutput()
	if testing.Verbose() || err != nil {
		t.Logf("scenarios process output:\n%s", out)
	}
	if err != nil {
		t.Fatalf("fault scenarios failed: %v", err)
	}
	for _, sc := range []string{"ServerRestart", "GracefulHandover", "ConnectionCut", "ConnectionStall", "LeaderKill9", "LeaderPauseResume"} {
		if !strings.Contains(string(out), "--- PASS: TestFaults/"+sc+" ") {
			t.Errorf("scenario %s did not pass in the scenarios process", sc)
		}
	}
}

func TestFaultChild(t *testing.T) { faulttest.Child(t, faultEnv) }
