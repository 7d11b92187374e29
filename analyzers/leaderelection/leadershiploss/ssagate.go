package leadershiploss

import (
	"go/ast"
	"go/token"
	"go/types"

	"github.com/gatesift/gatesift-vet/analyzers/leadership"
)

// The checks that read the package's SSA form (the deadline index) ask
// its syntax first whether their question can have an answer there: the
// SSA form is the largest cost of a package that has none.

// usesFunc: some identifier of the package (any file, as the SSA form is
// built from all of them) refers to a function or method for which pred
// holds: a call, a method value or a method expression of it. Every call
// the SSA form holds outside synthetic wrappers names its callee so.
func (c *checker) usesFunc(pred func(*types.Func) bool) bool {
	for _, obj := range c.info.Uses {
		if fn, ok := obj.(*types.Func); ok && pred(fn) {
			return true
		}
	}
	return false
}

// mayRenewUnbounded: checkUnboundedRenewals can report or export
// something here. Its PacedRenew facts are for interface methods of this
// package that return an error (loopTarget), called in a function that
// waits for time (waitsForTime); its reports are for session
// renewals of the knowledge base, only where a known store is imported.
func (c *checker) mayRenewUnbounded() bool {
	known := c.p.ImportsKnown()
	paced := c.refersToPacing()
	return c.usesFunc(func(fn *types.Func) bool {
		if paced && fn.Pkg() == c.p.Pkg {
			if r := recvType(fn); r != nil && types.IsInterface(r) && errorLast(fn) {
				return true
			}
		}
		return known && leadership.Kind(c.p.KB, fn, "session-renew") != nil
	})
}

// refersToPacing: some identifier of the package refers to what the SSA
// waitsForTime looks for, which a loop's PacedRenew needs: time.Sleep,
// time.After or time.Tick, or the field C of a time.Timer or time.Ticker.
func (c *checker) refersToPacing() bool {
	for _, obj := range c.info.Uses {
		if obj.Pkg() == nil || obj.Pkg().Path() != "time" {
			continue
		}
		switch obj := obj.(type) {
		case *types.Func:
			if n := obj.Name(); n == "Sleep" || n == "After" || n == "Tick" {
				return true
			}
		case *types.Var:
			if obj.IsField() && obj.Name() == "C" {
				return true
			}
		}
	}
	return false
}

// errorLast: fn's last result is an error.
func errorLast(fn *types.Func) bool {
	sig, ok := fn.Type().(*types.Signature)
	if !ok {
		return false
	}
	res := sig.Results()
	return res.Len() > 0 && isError(res.At(res.Len()-1).Type())
}

// mayReadValidity: checkValidAfterReply can report here: the package
// refers to (time.Time).Add, which computes the validity it looks for, and
// to one of the checks that read a validity (time's Before, After, Until,
// Sub, Compare, context.WithDeadline).
func (c *checker) mayReadValidity() bool {
	add, check := false, false
	c.usesFunc(func(fn *types.Func) bool {
		if fn.Pkg() == nil {
			return false
		}
		switch path, name := fn.Pkg().Path(), fn.Name(); {
		case path == "time" && name == "Add":
			add = true
		case path == "time" && (name == "Before" || name == "After" || name == "Until" || name == "Sub" || name == "Compare"),
			path == "context" && name == "WithDeadline":
			check = true
		}
		return add && check
	})
	return add && check
}

// expiryText: some string literal of files moves an expiry.
func expiryText(files []*ast.File) bool {
	found := false
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING && renewExpiryText.MatchString(lit.Value) {
				found = true
			}
			return !found
		})
	}
	return found
}

// callsAny: some file of the package calls one of the functions names of
// package path (the fast exit before any SSA is built).
func (c *checker) callsAny(files []*ast.File, path string, names ...string) bool {
	found := false
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok && !found {
				if fn := c.callee(call); fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == path {
					for _, name := range names {
						found = found || fn.Name() == name
					}
				}
			}
			return !found
		})
	}
	return found
}
