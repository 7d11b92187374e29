package azblobstore

import (
	"context"
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
	Server: func(t *testing.T, private bool) faulttest.Server {
		if private {
			return testserver.NewAzurite(t)
		}
		return testserver.Azurite(t)
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
	// Azurite saves its metadata database every 5 s, so a kill -9 loses
	// acknowledged writes (the scenario's resource writes and the lease
	// blob itself); Azure Storage does not, and the store's reaction to
	// such a loss is tested in TestEmulatorKill9TokensStillGrow.
	Skip: map[string]string{
		"ServerKill9": "Azurite is not crash-durable: it saves its metadata every 5 s, so a kill -9 loses acknowledged writes; see TestEmulatorKill9TokensStillGrow",
	},
}

func writesBlob(name string) string { return name + ".writes" }

func TestFaults(t *testing.T) { faulttest.Run(t, faultEnv) }

func TestFaultChild(t *testing.T) { faulttest.Child(t, faultEnv) }
