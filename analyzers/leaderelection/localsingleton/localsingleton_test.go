package localsingleton_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/gatesift/gatesift-vet/analyzers/leaderelection/localsingleton"
	"github.com/gatesift/gatesift-vet/analyzers/settings"
	"github.com/gatesift/gatesift-vet/config"
)

func testdata(t *testing.T) string {
	dir, err := filepath.Abs("../../../testdata")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestLocalSingleton(t *testing.T) {
	analysistest.Run(t, testdata(t), localsingleton.Analyzer, "le1001", "le1001/jobs", "le1001/cronreg", "le1001/coord", "le1001/iface", "le1001/notime", "le1001/azure", "le1001/pkgticker", "le1001/recursive", "le1001/recursive2", "le1001/doubles", "le1001/maintainer", "le1001/redigopool", "le1001/clocks", "le1001/callbacks", "le1001/ownclock", "le1001/cronjobs", "le1001/tests/trafficgen", "le1001/trafficgen", "le1001/rmw", "le1001/lease", "le1001/claimed", "le1001/xclaim", "le1001/xanswer", "le1001/asynqreg", "le1001/asynqmgr/plain", "le1001/asynqmgr/taskid", "le1001/asynqmgr/taskidtwin", "le1001/asynqmgr/unique", "le1001/asynqmgr/uniquetwin", "le1001/asynqmgr/opaque", "le1001/asynqmgr/opaquetwin", "github.com/hibiken/asynq", "le1001/ownapi", "le1001/ownbatch", "le1001/scriptclaim", "le1001/scriptclaim/batches", "le1001/redisscript", "le1001/popqueue", "le1001/channels", "le1001/ownbuffer", "le1001/alerting", "le1001/owncert", "github.com/nats-io/nats.go", "github.com/nats-io/nats.go/jetstream", "github.com/nats-io/nats.go/examples/pub", "le1001/retryloops", "le1001/mintedwrite", "le1001/scopedloop", "le1001/scopedflow", "le1001/ownreport", "le1001/ownflush/reporter", "le1001/chanbatch", "le1001/raftgate", "le1001/dispatch", "le1001/chanmap", "le1001/ownrefresh", "le1001/ownbeat", "le1001/snapshot", "le1001/snapshot/localfs", "le1001/embedbuffer", "le1001/nonservice/loadcmd", "le1001/nonservice/servecmd", "le1001/nonservice/cobracmd", "le1001/nonservice/cmd/orders-bench", "le1001/nonservice/cmd/ordersd", "le1001/nonservice/bench", "le1001/nonservice/usercli", "le1001/sqlitelocal", "le1001/sqlitelocal/pgonly", "le1001/sqlitecross/jobs", "le1001/sqlitecross/pgjobs", "le1001/sqlitecross/mixedjobs", "le1001/sqlitecross/rawjobs", "le1001/ownhandles", "le1001/markclaim", "le1001/clientsend/output", "le1001/lockbuilt")
}

func TestStrictProfileAddsIdempotentWork(t *testing.T) {
	strict := settings.Bind([]*analysis.Analyzer{localsingleton.Analyzer}, config.Source{Overrides: config.Overrides{Profile: "strict"}})[0]
	analysistest.Run(t, testdata(t), strict, "le1001strict", "le1001strict/loadcmd", "le1001strict/k8sclient")
}

// The strict profile shows a certmagic Storage's Store of a configured
// value and Delete of a fixed key as idempotent work (the knowledge base
// says both converge), not as work whose nature the analysis cannot read.
func TestStrictShowsStorageWritesIdempotent(t *testing.T) {
	strict := settings.Bind([]*analysis.Analyzer{localsingleton.Analyzer}, config.Source{Overrides: config.Overrides{Profile: "strict"}})[0]
	results := analysistest.Run(t, testdata(t), strict, "le1001strict/storage")
	effects := 0
	for _, r := range results {
		for _, d := range r.Diagnostics {
			for _, rel := range d.Related {
				if !strings.HasPrefix(rel.Message, "effect: ") {
					continue
				}
				effects++
				if !strings.HasSuffix(rel.Message, ", idempotent") || strings.Contains(rel.Message, "cannot read") {
					t.Errorf("related %q: want an idempotent effect the analysis reads", rel.Message)
				}
			}
		}
	}
	if effects != 2 {
		t.Errorf("%d effect entries, want 2 (the Store and the Delete)", effects)
	}
}

// TestClientSend runs the client-package send fixture alone (ownsend.go).
func TestClientSend(t *testing.T) {
	analysistest.Run(t, testdata(t), localsingleton.Analyzer, "le1001/clientsend/output")
}

// collectErrors records what analysistest would report.
type collectErrors struct{ msgs []string }

func (c *collectErrors) Errorf(format string, args ...any) {
	c.msgs = append(c.msgs, fmt.Sprintf(format, args...))
}

// TestKubernetesWritesSilentByDefault: the cluster writes that the strict
// profile shows (le1001strict/k8sclient) are idempotent, so the default
// profile reports none of them: every want of the fixture goes unmatched
// and nothing else is reported.
func TestKubernetesWritesSilentByDefault(t *testing.T) {
	var c collectErrors
	results := analysistest.Run(&c, testdata(t), localsingleton.Analyzer, "le1001strict/k8sclient")
	for _, r := range results {
		for _, d := range r.Diagnostics {
			t.Errorf("default profile reported %s", d.Message)
		}
	}
	unmatched := 0
	for _, m := range c.msgs {
		if strings.Contains(m, "no diagnostic was reported matching") {
			unmatched++
		}
	}
	if unmatched != 2 || len(c.msgs) != 2 {
		t.Errorf("analysistest said %q; want the two strict-only wants unmatched", c.msgs)
	}
}
