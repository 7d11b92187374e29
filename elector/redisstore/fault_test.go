package redisstore

import (
	"context"
	"strconv"
	"testing"

	"github.com/gatesift/gatesift-vet/elector"
	"github.com/gatesift/gatesift-vet/internal/testserver"
	"github.com/gatesift/gatesift-vet/internal/testserver/faulttest"
)

// faultEnv runs the fault scenarios on redis-server. Private servers (the
// ones the scenarios restart and kill) run with appendonly yes and
// appendfsync always: that persistence is what keeps the token counter
// across a crash.
var faultEnv = faulttest.Env{
	Server: func(t *testing.T, private bool) faulttest.Server {
		if private {
			return testserver.NewRedis(t, testserver.RedisOptions{AOF: true}).Server
		}
		return testserver.Redis(t).Server
	},
	Open: func(t *testing.T, addr string) elector.Store {
		return mustNew(t, newClient(t, addr), WithPrefix("fault:"))
	},
	// The resource is a list next to the lease, appended to by PushFenced.
	Write: func(ctx context.Context, s elector.Store, term elector.Term) error {
		rs := s.(*Store)
		return rs.PushFenced(ctx, term, writesKey(rs, term.Name), strconv.FormatUint(term.Token, 10))
	},
	Written: func(ctx context.Context, s elector.Store, name string) ([]uint64, error) {
		rs := s.(*Store)
		vals, err := rs.c.LRange(ctx, writesKey(rs, name), 0, -1).Result()
		if err != nil {
			return nil, err
		}
		tokens := make([]uint64, len(vals))
		for i, v := range vals {
			if tokens[i], err = strconv.ParseUint(v, 10, 64); err != nil {
				return nil, err
			}
		}
		return tokens, nil
	},
}

func writesKey(s *Store, name string) string { return "fault:writes:" + s.FenceTag(name) }

func TestFaults(t *testing.T) { faulttest.Run(t, faultEnv) }

func TestFaultChild(t *testing.T) { faulttest.Child(t, faultEnv) }
