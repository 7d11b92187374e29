package leadershiploss

import (
	"go/ast"

	"github.com/gatesift/gatesift-vet/analyzers/leadership"
)

// sites finds every configured leader callback in files: the callbacks
// literals of the knowledge base, and calls of forwarding wrappers. A
// file's walk depends on the file, the knowledge base, the imported
// Forwards facts and the package's own Forwards (c.local); only the last
// changes during a run (deriveForwards bumps forwardsGen), so a file is
// walked again only when it did: the fixpoint's last round, the gated-work
// pass and the reports share one walk.
func (c *checker) sites(files []*ast.File) []*site {
	if c.siteCache == nil {
		c.siteCache = map[*ast.File]fileSites{}
	}
	var out []*site
	for _, f := range files {
		fs, ok := c.siteCache[f]
		if !ok || fs.gen != c.forwardsGen {
			fs = fileSites{gen: c.forwardsGen, sites: c.walkSites(f)}
			c.siteCache[f] = fs
		}
		out = append(out, fs.sites...)
	}
	return out
}

// fileSites is one file's sites, walked when c.local was at generation gen.
type fileSites struct {
	gen   int
	sites []*site
}

// walkSites walks one file for sites (see sites).
func (c *checker) walkSites(f *ast.File) []*site {
	var out []*site
	var stack []*ast.FuncDecl
	ast.Inspect(f, func(n ast.Node) bool {
		if n == nil {
			return false
		}
		if fd, ok := n.(*ast.FuncDecl); ok {
			stack = append(stack[:0], fd)
		}
		var fd *ast.FuncDecl
		if len(stack) > 0 && stack[0].Pos() <= n.Pos() && n.End() <= stack[0].End() {
			fd = stack[0]
		}
		switch n := n.(type) {
		case *ast.CompositeLit:
			if s := c.literalSite(n); s != nil {
				s.fd = fd
				out = append(out, s)
			}
		case *ast.CallExpr:
			if fn := c.callee(n); fn != nil {
				// an election that runs its work callback on a context
				// it cancels when leadership ends (elector's Candidate.Run)
				if a := leadership.Kind(c.p.KB, fn, "start-call"); a != nil {
					if i, ok := a.Arg("fn"); ok && i < len(n.Args) {
						out = append(out, &site{fd: fd, start: n.Args[i], node: n, stopKey: n, ctxOnly: true, via: apiName(fn)})
					}
				}
			}
			if fw := c.forwards(c.callee(n)); fw != nil && fw.Start < len(n.Args) {
				s := &site{fd: fd, start: n.Args[fw.Start], node: n, stopsAny: fw.StopsWork, via: fw.Via, stopKey: n}
				if fw.Stop >= 0 && fw.Stop < len(n.Args) {
					s.stop = n.Args[fw.Stop]
					s.stopKey = n.Args[fw.Stop]
				}
				if fw.Stop < 0 {
					// the wrapper takes no stop callback: its own handling decides
					s.stop = nil
				}
				out = append(out, s)
			}
		}
		return true
	})
	return out
}

func (c *checker) literalSite(lit *ast.CompositeLit) *site {
	t := c.info.TypeOf(lit)
	var s *site
	for _, elt := range lit.Elts {
		kv, ok := elt.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		key, ok := kv.Key.(*ast.Ident)
		if !ok {
			continue
		}
		if a := leadership.FieldOf(c.p.KB, t, key.Name, "start-callback"); a != nil {
			if s == nil {
				s = &site{node: lit, stopKey: lit}
			}
			s.start = kv.Value
			s.via = a.Pkg + "." + a.Recv
		} else if a := leadership.FieldOf(c.p.KB, t, key.Name, "stop-callback"); a != nil {
			if s == nil {
				s = &site{node: lit, stopKey: lit}
			}
			s.stop = kv.Value
			s.stopKey = kv
		}
	}
	if s == nil || s.start == nil {
		return nil
	}
	return s
}
