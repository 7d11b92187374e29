// Package directive parses the //gatesift: comments of a package once, for
// every rule to consult:
//
//	//gatesift:ignore LE1001[,LE2001...] -- reason       (this line or the next)
//	//gatesift:file-ignore LE3003 -- reason               (the whole file)
//	//gatesift:per-replica -- reason                      (a function or a registration)
//	//gatesift:leader-only [-- reason]                    (a function called only under leadership)
//
// IDs and analyzer names both work. Rules mark the directives they use, so
// the directives rule (LE9001) can report the ones that matched nothing.
package directive

import (
	"go/ast"
	"go/token"
	"reflect"
	"sort"
	"strings"
	"sync/atomic"

	"golang.org/x/tools/go/analysis"

	"github.com/gatesift/gatesift-vet/signals"
)

// Kinds of directive.
const (
	Ignore     = "ignore"
	FileIgnore = "file-ignore"
	PerReplica = "per-replica"
	LeaderOnly = "leader-only"
)

// Directive is one parsed //gatesift: comment.
type Directive struct {
	Kind   string
	Rules  []string // rule IDs, for ignore and file-ignore
	Reason string
	Pos    token.Pos // the comment
	End    token.Pos
	File   string
	Line   int
	// Problem is set when the directive is malformed; such a directive
	// suppresses nothing and LE9001 reports the problem.
	Problem string

	used atomic.Bool
}

// Used reports whether a rule relied on the directive.
func (d *Directive) Used() bool { return d.used.Load() }

// MarkUsed records that a rule relied on the directive.
func (d *Directive) MarkUsed() { d.used.Store(true) }

// Names reports whether the directive names the rule.
func (d *Directive) Names(id string) bool {
	for _, r := range d.Rules {
		if r == id {
			return true
		}
	}
	return false
}

// Set is every directive of one package.
type Set struct {
	All    []*Directive
	byLine map[string]map[int][]*Directive // file -> line -> directives
	byFile map[string][]*Directive         // file-ignore
}

// Analyzer parses the directives of a package; its result is a *Set.
var Analyzer = &analysis.Analyzer{
	Name:       "gatesiftdirective",
	Doc:        "parse //gatesift: directives for the leader-election rules",
	Run:        run,
	ResultType: reflect.TypeOf((*Set)(nil)),
}

const prefix = "//gatesift:"

func run(pass *analysis.Pass) (any, error) {
	return Parse(pass.Fset, pass.Files), nil
}

// Parse collects the directives of files.
func Parse(fset *token.FileSet, files []*ast.File) *Set {
	s := &Set{byLine: map[string]map[int][]*Directive{}, byFile: map[string][]*Directive{}}
	for _, f := range files {
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				if !strings.HasPrefix(c.Text, prefix) {
					continue
				}
				p := fset.Position(c.Slash)
				d := parseOne(c.Text[len(prefix):])
				d.Pos, d.End, d.File, d.Line = c.Slash, c.End(), p.Filename, p.Line
				s.add(d)
			}
		}
	}
	// By file name, then position within the file: token.Pos order across
	// files is the order the driver parsed them in.
	sort.Slice(s.All, func(i, j int) bool {
		if s.All[i].File != s.All[j].File {
			return s.All[i].File < s.All[j].File
		}
		return s.All[i].Pos < s.All[j].Pos
	})
	return s
}

func (s *Set) add(d *Directive) {
	s.All = append(s.All, d)
	if d.Problem != "" {
		return
	}
	if d.Kind == FileIgnore {
		s.byFile[d.File] = append(s.byFile[d.File], d)
		return
	}
	m := s.byLine[d.File]
	if m == nil {
		m = map[int][]*Directive{}
		s.byLine[d.File] = m
	}
	m[d.Line] = append(m[d.Line], d)
}

// parseOne parses the text after "//gatesift:".
func parseOne(text string) *Directive {
	// A second "//" starts an ordinary comment after the directive.
	text, _, _ = strings.Cut(text, "//")
	head, reason, hasReason := strings.Cut(text, "--")
	reason = strings.TrimSpace(reason)
	fields := strings.Fields(head)
	d := &Directive{Reason: reason}
	if len(fields) == 0 {
		d.Problem = "empty //gatesift: directive"
		return d
	}
	d.Kind = fields[0]
	args := fields[1:]
	switch d.Kind {
	case Ignore, FileIgnore:
		if len(args) == 0 {
			d.Problem = "//gatesift:" + d.Kind + " names no rule; write //gatesift:" + d.Kind + " LE1001 -- reason"
			return d
		}
		for _, a := range strings.Split(strings.Join(args, ","), ",") {
			if a = strings.TrimSpace(a); a == "" {
				continue
			}
			r, ok := signals.Lookup(a)
			if !ok {
				d.Problem = "//gatesift:" + d.Kind + " names unknown rule " + a
				return d
			}
			d.Rules = append(d.Rules, r.ID)
		}
		if !hasReason || reason == "" {
			d.Problem = "//gatesift:" + d.Kind + " needs a reason after \" -- \""
		}
	case PerReplica:
		if len(args) > 0 {
			d.Problem = "//gatesift:per-replica takes no arguments before \" -- reason\""
		} else if !hasReason || reason == "" {
			d.Problem = "//gatesift:per-replica needs a reason after \" -- \""
		}
	case LeaderOnly:
		if len(args) > 0 {
			d.Problem = "//gatesift:leader-only takes no arguments"
		}
	default:
		d.Problem = "unknown directive //gatesift:" + d.Kind + " (want ignore, file-ignore, per-replica or leader-only)"
	}
	return d
}

// Suppressor returns the directive that suppresses a finding of rule id at
// pos (an ignore on the same line or the line above, or a file-ignore), and
// marks it used; nil when none does.
func (s *Set) Suppressor(fset *token.FileSet, id string, pos token.Pos) *Directive {
	p := fset.Position(pos)
	for _, d := range s.byFile[p.Filename] {
		if d.Names(id) {
			d.MarkUsed()
			return d
		}
	}
	for _, line := range []int{p.Line, p.Line - 1} {
		for _, d := range s.byLine[p.Filename][line] {
			if d.Kind == Ignore && d.Names(id) {
				d.MarkUsed()
				return d
			}
		}
	}
	return nil
}

// At returns the directive of the given kind on the line of pos or the line
// above, and marks it used; nil when there is none.
func (s *Set) At(fset *token.FileSet, kind string, pos token.Pos) *Directive {
	p := fset.Position(pos)
	for _, line := range []int{p.Line, p.Line - 1} {
		for _, d := range s.byLine[p.Filename][line] {
			if d.Kind == kind {
				d.MarkUsed()
				return d
			}
		}
	}
	return nil
}

// OnFunc returns the directive of the given kind in the doc comment of decl
// (or the line above it), and marks it used.
func (s *Set) OnFunc(fset *token.FileSet, kind string, decl *ast.FuncDecl) *Directive {
	if decl.Doc != nil {
		for _, c := range decl.Doc.List {
			p := fset.Position(c.Slash)
			for _, d := range s.byLine[p.Filename][p.Line] {
				if d.Kind == kind {
					d.MarkUsed()
					return d
				}
			}
		}
	}
	return s.At(fset, kind, decl.Pos())
}
