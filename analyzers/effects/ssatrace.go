package effects

import (
	"fmt"
	"os"
	"runtime"
	"strings"
)

// ssaTraceEnv, set to 1, makes every build of the value-flow SSA form
// (flow) print one line to stderr: "ssa-build <package> <trigger>", the
// trigger being the chain of this module's functions that asked for it,
// innermost first. It is how the AST pre-gates in front of the SSA
// questions are measured on real packages: deterministic, unlike a timing.
const ssaTraceEnv = "GATESIFT_DEBUG_SSA"

// traceSSABuild prints the build line when ssaTraceEnv is set.
func traceSSABuild(pkg string) {
	if os.Getenv(ssaTraceEnv) != "1" {
		return
	}
	pcs := make([]uintptr, 32)
	n := runtime.Callers(3, pcs) // above traceSSABuild and flow
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
	fmt.Fprintf(os.Stderr, "ssa-build %s %s\n", pkg, strings.Join(chain, "<"))
}
