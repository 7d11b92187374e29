package fixture

import "time"

// The timer is made in the constructor and re-armed in the goroutine that
// drains it: another function of the same file.
type group struct{ timer *time.Timer }

func newGroup() *group {
	return &group{timer: time.NewTimer(time.Second)} // site: job time.NewTimer + Reset
}

func (g *group) run() {
	for range g.timer.C {
		g.timer.Reset(time.Minute)
	}
}
