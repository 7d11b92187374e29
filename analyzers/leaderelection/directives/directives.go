package directives

import (
	"go/token"
	"strings"

	"github.com/gatesift/gatesift-vet/analyzers/directive"
	"github.com/gatesift/gatesift-vet/analyzers/leaderelection"
	"github.com/gatesift/gatesift-vet/analyzers/rule"
	"github.com/gatesift/gatesift-vet/signals"
)

// Analyzer reports LE9001.
var Analyzer = rule.New(rule.Spec{
	ID:       "LE9001",
	Run:      run,
	Requires: leaderelection.Rules,
})

func run(pass *rule.Pass) error {
	if len(pass.Directives.All) == 0 {
		return nil
	}
	ran := map[string]bool{} // rule ID -> ran on this package
	for _, a := range leaderelection.Rules {
		if out, ok := pass.ResultOf[a].(*rule.Outcome); ok && out.Ran {
			if r, ok := signals.Lookup(a.Name); ok {
				ran[r.ID] = true
			}
		}
	}
	for _, d := range pass.Directives.All {
		node := span{d.Pos, d.End}
		if d.Problem != "" {
			pass.Reportf(node, nil, "%s", d.Problem)
			continue
		}
		if d.Used() {
			continue
		}
		switch d.Kind {
		case directive.Ignore, directive.FileIgnore:
			for _, id := range d.Rules {
				if !ran[id] {
					goto next // cannot tell: the rule is off or failed here
				}
			}
			pass.Reportf(node, nil, "//gatesift:%s %s matched no finding; remove it, or it will hide the next one",
				d.Kind, strings.Join(d.Rules, ","))
		case directive.PerReplica, directive.LeaderOnly:
			if !ran["LE1001"] {
				continue
			}
			pass.Reportf(node, nil, "//gatesift:%s is attached to no function or scheduled work the analysis saw", d.Kind)
		}
	next:
	}
	return nil
}

// span lets a comment's range stand for an ast.Node in Reportf.
type span struct{ pos, end token.Pos }

func (s span) Pos() token.Pos { return s.pos }
func (s span) End() token.Pos { return s.end }
