package effects

import (
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/gatesift/gatesift-vet/signals"
)

// The knowledge base describes an API as its callers see it: nats.go's
// Conn.Publish sends a message to whoever subscribes. Inside the module that
// declares the API, a call is the library's own implementation (a client's
// ping timer publishing on the process's own connection), not a user's
// effect on shared state. There the entry applies only when the callee's
// own summary confirms that the implementation reaches shared state through
// other modules' known APIs: asynq's Client.Enqueue is seen to write Redis
// (through its broker), and the entry names that effect better than the
// analysis reads it (a task pushed by a Lua script), so the asynq Scheduler
// stays reported; nats.go's Publish is seen to reach nothing but its own
// connection buffer, so its callers inside nats.go are plumbing and give no
// report. Only the effects section is judged so: schedulers, coordinators,
// locks and leadership entries keep applying inside their module (asynq's
// PeriodicTaskManager is reported for registering on its own Scheduler,
// gocron's own call of its Locker interface is judged by LE4001, and an
// election or lock only ever silences).

// ownPlumbing reports whether the call of fn, which the knowledge base
// names as effect a, is made inside a's module to an implementation that
// reaches no shared state of its own: the entry does not apply, and the
// callee's (empty) summary stands in for it.
func (r *Result) ownPlumbing(fn *types.Func, a *signals.API) bool {
	if !ownModuleCall(r.pass, a.Pkg) {
		return false
	}
	s := r.Of(fn)
	return len(s.Effects) == 0 && !s.Consumes
}

// ownModuleCall reports whether a call from the package analyzed to an API
// of package apiPkg is made inside the API's own module.
func ownModuleCall(pass *analysis.Pass, apiPkg string) bool {
	module := ""
	if pass.Module != nil {
		module = pass.Module.Path
	}
	return sameModule(pass.Pkg, module, apiPkg)
}

// sameModule reports whether package apiPkg is in the module of the calling
// package caller, whose module path is module ("" when the driver gives
// none). With a module path, apiPkg is in it when it is the module path or
// below it (a nested module below the path, such as a separate api/ module,
// is counted in: a driver only tells the analyzed unit's module). Without
// one, the caller counts as the library when its own path is apiPkg or below
// it (nats.go/jetstream calling nats.go), which is what GOPATH-mode loading
// can tell. A command (package main) is never the library's implementation,
// even in the library's module: an example program calling the API is one
// of its callers.
func sameModule(caller *types.Package, module, apiPkg string) bool {
	if caller == nil || caller.Name() == "main" {
		return false
	}
	if module != "" {
		return within(apiPkg, module)
	}
	return within(caller.Path(), apiPkg)
}

// within reports whether package path p is root or below it, not counting
// a major version below it (github.com/go-co-op/gocron/v2 is another module
// than github.com/go-co-op/gocron).
func within(p, root string) bool {
	if p == root {
		return true
	}
	rest, ok := strings.CutPrefix(p, root+"/")
	if !ok {
		return false
	}
	first, _, _ := strings.Cut(rest, "/")
	return !majorVersion(first)
}

// majorVersion reports whether a path element is a major version suffix
// (v2, v3, ...).
func majorVersion(elem string) bool {
	n, ok := strings.CutPrefix(elem, "v")
	if !ok || n == "" || n[0] == '0' || n == "1" {
		return false
	}
	for _, r := range n {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
