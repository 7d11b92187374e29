package lockexpiry

import (
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/gatesift/gatesift-vet/analyzers/lockfacts"
	"github.com/gatesift/gatesift-vet/analyzers/projectlocks"
	"github.com/gatesift/gatesift-vet/analyzers/rule"
)

// projectLocks reports the acquire of a lock the project writes itself
// (lockfacts.ProjectLocksWith: a row inserted by a Lock-like function and
// deleted by the Unlock-like function of the same type) when nothing on
// those rows mentions an expiry: not the insert, not the model's columns,
// no renewal or stale-row cleanup in the package.
func projectLocks(p *rule.Pass) error {
	locks, err := projectlocks.Of(p)
	if err != nil {
		return err
	}
	info := p.TypesInfo
	seen := map[*lockfacts.RowOp]bool{}
	for _, l := range locks {
		if l.Expiry || seen[l.Insert] {
			continue
		}
		seen[l.Insert] = true
		if op := lockfacts.Classify(info, p.KB, l.Insert.Call); op != nil && op.Stmt != nil && lockRowNoExpiry(op.Stmt) {
			continue // reported as a lock row of its table already
		}
		if l.Insert.Doc {
			p.Reportf(l.Insert.Call, []analysis.RelatedInformation{rule.Related(l.Delete.Call, "the lock is released here, by deleting the document by its key")},
				"%s takes the lock in %s by inserting a document of %s on a unique key (%s), and %s releases it by deleting the document: "+
					"nothing gives the document an end (no TTL index, no expiry field, no filter that takes over or sweeps a stale holder's document), so "+
					"if the holder dies while it holds the lock, the document stays and no replica ever takes the lock again; "+
					"store an expiresAt field with a TTL index, take over documents whose expiry passed, or use the elector",
				l.Insert.What, funcLabel(l.Recv, l.Acquire.Name.Name), l.Insert.Label, uniqueFields(l.Insert), funcLabel(l.Recv, l.Release.Name.Name))
			continue
		}
		p.Reportf(l.Insert.Call, []analysis.RelatedInformation{rule.Related(l.Delete.Call, "the lock is released here, by deleting the row")},
			"%s takes the lock in %s by inserting a row of %s%s, and %s releases it by deleting the row: nothing gives the row "+
				"an expiry (no expiry column in the statement or the model, no renewal or stale-row cleanup), so "+
				"if the holder dies while it holds the lock, the row stays and no replica ever takes the lock again; "+
				"store an expiry (locked_until = now() + interval) and let others take over rows whose expiry passed, "+
				"or use the elector's Postgres store",
			l.Insert.What, funcLabel(l.Recv, l.Acquire.Name.Name), l.Insert.Label, statement(l.Insert.Text), funcLabel(l.Recv, l.Release.Name.Name))
	}
	return nil
}

// uniqueFields names the fields of an inserted document that make the
// insert exclusive.
func uniqueFields(op *lockfacts.RowOp) string {
	var names []string
	for _, f := range op.Fields {
		if f.Unique {
			names = append(names, f.Name)
		}
	}
	return strings.Join(names, ", ")
}

func funcLabel(recv, name string) string {
	if recv == "" {
		return name
	}
	return "(" + recv + ")." + name
}

// statement shows the insert's text in a message: " (INSERT INTO ...)",
// shortened; "" when there is none (an ORM chain).
func statement(text string) string {
	if text == "" {
		return ""
	}
	if len(text) > 120 {
		text = text[:117] + "..."
	}
	return " (" + text + ")"
}
