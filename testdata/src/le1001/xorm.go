package le1001

import (
	"time"

	"xorm.io/xorm"
)

type repo struct {
	ID     int64
	Avatar string
	Stars  int
}

// Negative: xorm writes that converge (a column set to a constant by ID, a
// delete by ID) or whose values are not in sight (a bean).
func tidyRepos(x *xorm.Engine, r *repo) {
	for range time.Tick(time.Hour) {
		x.ID(r.ID).Cols("avatar").Update(&repo{Avatar: ""})
		x.ID(r.ID).Delete(&repo{})
		x.ID(r.ID).Update(r)
	}
}

// Positive twin: Incr in the chain makes the update an increment.
func starRepos(x *xorm.Engine, r *repo) {
	for range time.Tick(time.Hour) { // want `time.Tick runs loop body on every replica every 1h0m0s: it increments; guarded by nothing`
		x.ID(r.ID).Incr("stars").Update(&repo{})
	}
}

// Positive twin: an insert accumulates whatever the ORM.
func logRepos(x *xorm.Engine, r *repo) {
	for range time.Tick(time.Hour) { // want `time.Tick runs loop body on every replica every 1h0m0s: it inserts into; guarded by nothing`
		x.Insert(&repo{})
	}
}
