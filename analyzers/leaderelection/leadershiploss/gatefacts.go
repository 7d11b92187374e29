package leadershiploss

import (
	"fmt"
	"go/token"
	"go/types"
	"path"
	"strings"
)

// The facts of work gated on a "became leader" signal (gated.go). The signal,
// the gated work and the handling of leadership loss often live in three
// packages that do not import one another (a provider package closes
// Server.Elected once the manager wins, a runner package waits on it, a
// third package swallows the manager's error); each exports what it sees and
// the first package that sees all three reports.

// ElectedFields is the package fact listing the struct fields of channel
// type that this package closes once leadership is won: after a receive from
// controller-runtime's Manager.Elected() (or from another such field), or in
// a client-go OnStartedLeading callback.
type ElectedFields struct {
	Fields []ElectedField
}

// ElectedField is one field closed on election.
type ElectedField struct {
	Key    string // pkgpath.Type.Field of the field
	Holder string // which election: the package holding the manager, or the callbacks literal
	Via    string // what closing it follows, for messages
	At     string // where it is closed, pkgpath/file.go:line
}

// AFact marks ElectedFields as a fact.
func (*ElectedFields) AFact() {}

func (f *ElectedFields) String() string {
	var s []string
	for _, e := range f.Fields {
		s = append(s, e.Key+" closed after "+e.Via)
	}
	return "elected fields: " + strings.Join(s, "; ")
}

// ManagerErr is the fact on a function that returns the error with which a
// controller-runtime manager's Start reports leadership loss ("leader
// election lost"): the manager does not exit the process, its caller
// decides.
type ManagerErr struct {
	Holder string // the package whose manager it is
	At     string // the manager's Start call
}

// AFact marks ManagerErr as a fact.
func (*ManagerErr) AFact() {}

func (f *ManagerErr) String() string { return "returns the manager error of " + f.Holder }

// LossSurvives is the package fact saying that here the error reporting
// leadership loss is only logged (or dropped) in a goroutine, so the process
// outlives the lost lease.
type LossSurvives struct {
	Holders []string // the elections whose loss is swallowed
	At      []string // where, one per holder
}

// AFact marks LossSurvives as a fact.
func (*LossSurvives) AFact() {}

func (f *LossSurvives) String() string {
	return "leadership loss only logged for " + strings.Join(f.Holders, ", ")
}

// Gates is the fact on a function that, after a receive from a channel field
// (or from Manager.Elected() itself), starts work on a context that the
// election does not cancel. It is a candidate: only a package that also sees
// the field in ElectedFields and the loss in LossSurvives reports it.
type Gates struct {
	Sites []Gate
}

// Gate is one piece of gated work.
type Gate struct {
	Field  string // the field waited on; "" for Manager.Elected() itself
	Holder string // with Field == "": the package of the manager waited on
	Work   string // the call that starts the work
	Ctx    string // what its context is
	At     string // where the work starts, pkgpath/file.go:line
}

// AFact marks Gates as a fact.
func (*Gates) AFact() {}

func (f *Gates) String() string {
	var s []string
	for _, g := range f.Sites {
		w := g.Field
		if w == "" {
			w = "Elected() of " + g.Holder
		}
		s = append(s, fmt.Sprintf("%s on %s after %s", g.Work, g.Ctx, w))
	}
	return "gated work: " + strings.Join(s, "; ")
}

// GatesReported is the package fact listing the gated work already
// reported here, so that packages importing this one do not report it again.
type GatesReported struct {
	At []string
}

// AFact marks GatesReported as a fact.
func (*GatesReported) AFact() {}

func (f *GatesReported) String() string { return "reported: " + strings.Join(f.At, ", ") }

// where names a position across packages: the package path and the file's
// base name, with the line.
func (c *checker) where(pos token.Pos) string {
	p := c.p.Fset.Position(pos)
	return fmt.Sprintf("%s/%s:%d", c.p.Pkg.Path(), path.Base(strings.ReplaceAll(p.Filename, "\\", "/")), p.Line)
}

// fieldKey names the field a selection ends in by the named struct type
// that declares it (pkgpath.Type.Field), through embedded fields; "" when
// that struct has no name.
func fieldKey(sel *types.Selection) string {
	if sel == nil || sel.Kind() != types.FieldVal {
		return ""
	}
	t := sel.Recv()
	idx := sel.Index()
	for i, n := range idx {
		owner := namedOf(t)
		st, ok := deref(t).Underlying().(*types.Struct)
		if !ok || n >= st.NumFields() {
			return ""
		}
		f := st.Field(n)
		if i == len(idx)-1 {
			if owner == nil || owner.Obj().Pkg() == nil {
				return ""
			}
			return owner.Obj().Pkg().Path() + "." + owner.Obj().Name() + "." + f.Name()
		}
		t = f.Type()
	}
	return ""
}

func deref(t types.Type) types.Type {
	t = types.Unalias(t)
	if p, ok := t.Underlying().(*types.Pointer); ok {
		return types.Unalias(p.Elem())
	}
	return t
}

func namedOf(t types.Type) *types.Named {
	n, _ := deref(t).(*types.Named)
	return n
}
