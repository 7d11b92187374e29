package competingschedulers

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"maps"
	"slices"
	"sort"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/gatesift/gatesift-vet/analyzers/jobs"
	"github.com/gatesift/gatesift-vet/analyzers/rule"
)

// Site is one scheduler site as other packages see it.
type Site struct {
	ID   string // "pkgpath file.go:line", unique
	Desc string // "time.Tick every 1m0s in cleanupLoop"
	// Writes maps each shared resource it writes to the effect kinds it
	// has on it (insert, update, delete, increment, ...).
	Writes map[string][]string
	// Starters are the functions (types.Func.FullName) whose call starts
	// the site, in the package that exported the fact.
	Starters []string
}

// Sites is the package fact: every uncoordinated site with a resource that
// this package or its dependencies contain.
type Sites struct {
	List []Site
}

// AFact marks Sites as a fact.
func (*Sites) AFact() {}

func (s *Sites) String() string { return fmt.Sprintf("%d scheduler sites", len(s.List)) }

// Analyzer reports LE2001.
var Analyzer = rule.New(rule.Spec{
	ID:        "LE2001",
	Run:       run,
	Requires:  []*analysis.Analyzer{jobs.Analyzer},
	FactTypes: []analysis.Fact{(*Sites)(nil)},
})

// maxSites bounds the fact on very large programs.
const maxSites = 256

// placed is a site as seen in this package: where it is (or where this
// package starts it).
type placed struct {
	site Site
	node ast.Node // the local site, or the local call that starts it; nil if not started here
	job  *jobs.Job
}

func run(p *rule.Pass) error {
	res := p.ResultOf[jobs.Analyzer].(*jobs.Result)
	strict := p.Settings.Strict()

	// Sites of this package.
	var local []placed
	for _, j := range res.Jobs {
		if !j.Singleton(strict) {
			continue
		}
		writes := writesOf(j, strict)
		if len(writes) == 0 {
			continue
		}
		pos := p.Fset.Position(j.Site.Pos())
		s := Site{
			ID:     fmt.Sprintf("%s %s:%d", p.Pkg.Path(), baseName(pos.Filename), pos.Line),
			Desc:   j.SiteName + scheduleText(j) + " in " + funcName(j),
			Writes: writes,
		}
		if fn := starter(p, j); fn != "" {
			s.Starters = []string{fn}
		}
		local = append(local, placed{site: s, node: j.Site, job: j})
	}

	// Sites of dependencies, with the local calls that start them.
	imported, seenTogether := importedSites(p)
	calls := startCalls(p, imported)
	var all []placed
	all = append(all, local...)
	for _, s := range imported {
		ps := placed{site: s}
		if c := calls[s.ID]; c != nil {
			ps.node = c.call
			ps.site.Starters = appendUnique(ps.site.Starters, c.enclosing)
		}
		all = append(all, ps)
	}

	if !p.FactsOnly() {
		reportPairs(p, all, seenTogether)
	}

	// Fold everything upward.
	if len(all) > 0 {
		fact := &Sites{}
		for _, ps := range all {
			if len(fact.List) == maxSites {
				break
			}
			fact.List = append(fact.List, ps.site)
		}
		p.ExportPackageFact(fact)
	}
	return nil
}

// reportPairs reports each pair of sites that share a resource, once, at
// the later of the two places in this package.
func reportPairs(p *rule.Pass, all []placed, seenTogether map[[2]string]bool) {
	reported := map[string]bool{} // a site is reported once, for its first partner
	// Source order by file name and offset: token.Pos order depends on the
	// order the driver happened to parse the files in.
	sort.SliceStable(all, func(i, j int) bool {
		a, b := p.Fset.Position(pos(all[i])), p.Fset.Position(pos(all[j]))
		if a.Filename != b.Filename {
			return a.Filename < b.Filename
		}
		return a.Offset < b.Offset
	})
	for i := range all {
		for k := i + 1; k < len(all); k++ {
			a, b := all[i], all[k]
			if a.node == nil || b.node == nil || a.site.ID == b.site.ID || reported[b.site.ID] {
				continue
			}
			if seenTogether[pairKey(a.site.ID, b.site.ID)] {
				continue // a dependency already sees and reports both
			}
			if a.job == nil && b.job == nil && a.node == b.node {
				continue // one call starts both: that package reports them
			}
			shared := conflicting(a.site, b.site)
			if shared == "" {
				continue
			}
			reported[b.site.ID] = true
			related := []analysis.RelatedInformation{rule.Related(a.node, "the other scheduler: %s, also writes %s", a.site.Desc, shared)}
			if b.job != nil {
				for n, e := range b.job.Effects {
					if n < len(b.job.EffectCalls) && e.Resource == shared {
						related = append(related, rule.Related(b.job.EffectCalls[n], "writes %s here", shared))
						break
					}
				}
			}
			p.Reportf(b.node, related,
				"%s and %s both write %s on their own schedules with no coordinator in common; "+
					"their effects interleave, and on N replicas there are 2N writers; run both under one lease "+
					"(elector.Run) or merge them into one coordinated job",
				b.site.Desc, a.site.Desc, shared)
		}
	}
}

func pos(ps placed) token.Pos {
	if ps.node == nil {
		return token.NoPos
	}
	return ps.node.Pos()
}

func pairKey(a, b string) [2]string {
	if a > b {
		a, b = b, a
	}
	return [2]string{a, b}
}

// importedSites unions the facts of the direct imports, and notes which
// pairs some single import already contains (reported there or below).
func importedSites(p *rule.Pass) ([]Site, map[[2]string]bool) {
	var out []Site
	byID := map[string]int{}
	together := map[[2]string]bool{}
	for _, imp := range p.Pkg.Imports() {
		var f Sites
		if !p.ImportPackageFact(imp, &f) {
			continue
		}
		for i, a := range f.List {
			for _, b := range f.List[i+1:] {
				together[pairKey(a.ID, b.ID)] = true
			}
			if k, ok := byID[a.ID]; ok {
				for _, s := range a.Starters {
					out[k].Starters = appendUnique(out[k].Starters, s)
				}
				continue
			}
			byID[a.ID] = len(out)
			out = append(out, a)
		}
	}
	return out, together
}

type startCall struct {
	call      *ast.CallExpr
	enclosing string // the local function containing the call
}

// startCalls finds, for each imported site, the first call in this package
// of one of its starters.
func startCalls(p *rule.Pass, sites []Site) map[string]*startCall {
	byStarter := map[string][]string{}
	for _, s := range sites {
		for _, st := range s.Starters {
			byStarter[st] = append(byStarter[st], s.ID)
		}
	}
	out := map[string]*startCall{}
	if len(byStarter) == 0 {
		return out
	}
	for _, f := range p.Files() {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			enclosing := ""
			if fn, ok := p.TypesInfo.Defs[fd.Name].(*types.Func); ok {
				enclosing = fn.FullName()
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				fn, _ := typeutil.Callee(p.TypesInfo, call).(*types.Func)
				if fn == nil {
					return true
				}
				for _, id := range byStarter[fn.Origin().FullName()] {
					if out[id] == nil {
						out[id] = &startCall{call: call, enclosing: enclosing}
					}
				}
				return true
			})
		}
	}
	return out
}

// writesOf maps each resource the job writes, from constant evidence, to
// the effect kinds it has on it.
func writesOf(j *jobs.Job, strict bool) map[string][]string {
	writes := map[string][]string{}
	for _, e := range j.Shared(strict) {
		if e.Resource != "" && !strings.HasPrefix(e.Resource, "HTTP ") && !strings.HasPrefix(e.Resource, "task queue (Redis)") {
			writes[e.Resource] = appendUnique(writes[e.Resource], e.Kind)
		}
	}
	return writes
}

// commuting are the effect kinds that give the same result in any order
// when every write to a resource is of that one kind: deleting rows, or
// adding to a counter. Two schedulers that only delete from a table, or
// only increment it, cannot interleave badly.
var commuting = map[string]bool{"delete": true, "increment": true}

// conflicting returns the first resource, in sorted order, that both sites
// write where the order of their writes can matter, or "".
func conflicting(a, b Site) string {
	for _, x := range slices.Sorted(maps.Keys(a.Writes)) {
		theirs, ok := b.Writes[x]
		if !ok {
			continue
		}
		if all := appendUniqueAll(a.Writes[x], theirs); len(all) == 1 && commuting[all[0]] {
			continue
		}
		return x
	}
	return ""
}

func appendUniqueAll(a, b []string) []string {
	out := slices.Clone(a)
	for _, s := range b {
		out = appendUnique(out, s)
	}
	return out
}

// starter is the function whose call starts the site: the function
// declaring it.
func starter(p *rule.Pass, j *jobs.Job) string {
	if j.Func == nil {
		return ""
	}
	if fn, ok := p.TypesInfo.Defs[j.Func.Name].(*types.Func); ok {
		return fn.FullName()
	}
	return ""
}

func funcName(j *jobs.Job) string {
	if j.Func == nil {
		return "package scope"
	}
	return j.Func.Name.Name
}

func scheduleText(j *jobs.Job) string {
	if j.Schedule == "" {
		return ""
	}
	return " " + j.Schedule
}

func baseName(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}

func appendUnique(list []string, s string) []string {
	if s == "" {
		return list
	}
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}
