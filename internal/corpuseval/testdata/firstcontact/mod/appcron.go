package fixture

import "time"

// A project's own scheduler reached through an accessor, in a file that
// imports no cron library.
type app struct{}

type jobs struct{}

func (jobs) Add(id, spec string, fn func()) {}

func (app) Cron() jobs { return jobs{} }

type set struct{}

func (set) Add(x string) {}

func register(a app, names set) {
	a.Cron().Add("cleanup", "0 * * * *", func() {}) // site: job cron .Add
	names.Add("cleanup")                            // an Add on a receiver not named like a scheduler: not a site
	_ = time.Second
}
