package effects

import (
	"fmt"
	"os"
	"runtime"
	"strings"
)

// ssaTraceEnv, set to 1, makes the value-flow SSA form (flow) report to
// stderr who asks for it: "ssa-build <package> <trigger>" when it is
// built, the trigger being the chain of this module's functions that asked,
// innermost first, and "ssa-want <package> <trigger>" once for each other
// trigger that asks later (and would have built it alone). It is how the
// AST pre-gates in front of the SSA questions are measured on real
// packages: deterministic, unlike a timing.
const ssaTraceEnv = "GATESIFT_DEBUG_SSA"

// ssaTrace is what a Result traces of its SSA requests when ssaTraceEnv
// is set; nil otherwise.
type ssaTrace struct {
	seen map[string]bool // the triggers reported, by their first two frames
}

func newSSATrace() *ssaTrace {
	if os.Getenv(ssaTraceEnv) != "1" {
		return nil
	}
	return &ssaTrace{seen: map[string]bool{}}
}

// note reports one request of the SSA form of pkg; built: it is built now.
func (t *ssaTrace) note(pkg string, built bool) {
	if t == nil {
		return
	}
	pcs := make([]uintptr, 32)
	n := runtime.Callers(3, pcs) // above note and flow
	frames := runtime.CallersFrames(pcs[:n])
	var chain []string
	for len(chain) < 4 {
		f, more := frames.Next()
		const module = "github.com/gatesift/gatesift-vet/"
		if strings.HasPrefix(f.Function, module) {
			name := strings.TrimPrefix(f.Function, module+"analyzers/")
			if name != "effects.(*Result).SSAFuncs" {
				chain = append(chain, name)
			}
		}
		if !more {
			break
		}
	}
	key := strings.Join(chain[:min(2, len(chain))], "<")
	if t.seen[key] {
		return
	}
	t.seen[key] = true
	what := "ssa-want"
	if built {
		what = "ssa-build"
	}
	fmt.Fprintf(os.Stderr, "%s %s %s\n", what, pkg, strings.Join(chain, "<"))
}
