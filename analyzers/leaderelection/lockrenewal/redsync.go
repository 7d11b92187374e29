package lockrenewal

import (
	"go/ast"
	"go/types"
	"strings"
	"time"

	"github.com/gatesift/gatesift-vet/analyzers/lockfacts"
	"github.com/gatesift/gatesift-vet/analyzers/rule"
)

// The redsync mutex: its handle and the expiry its options set.

func isRedsync(pkg string) bool { return strings.HasPrefix(pkg, "github.com/go-redsync/redsync") }

// mutexFor finds `handle := rs.NewMutex(...)` in f.
func (c *checker) mutexFor(f *lockfacts.Func, handle string) *lockfacts.Op {
	for _, o := range f.Ops {
		if o.Kind == lockfacts.Mutex && lockfacts.AssignedTo(f.Decl.Body, o.Call) == handle {
			return o
		}
	}
	return nil
}

// redsyncExpiry describes the expiry a NewMutex call sets.
func redsyncExpiry(info *types.Info, p *rule.Pass, m *lockfacts.Op) (string, time.Duration) {
	if m.Spread {
		return "expiry (8s by default, or whatever its options set)", 0
	}
	for _, o := range m.Opts {
		call, ok := ast.Unparen(o).(*ast.CallExpr)
		if !ok {
			return "expiry (8s by default, or whatever its options set)", 0
		}
		oo := lockfacts.Classify(info, p.KB, call)
		if oo != nil && oo.Kind == "expiry" {
			if d, ok := lockfacts.IntConst(info, oo.TTLExpr); ok {
				return "expiry of " + lockfacts.FmtDuration(time.Duration(d)) + " (WithExpiry)", time.Duration(d)
			}
			return "expiry (WithExpiry(" + lockfacts.ExprText(oo.TTLExpr) + "))", 0
		}
	}
	return "default expiry of 8s", 8 * time.Second
}
