// Package leasekeeper wraps a redsync mutex renewal in a helper, as services
// do; its callers are checked through the Renews fact.
package leasekeeper

import (
	"fmt"

	"github.com/go-redsync/redsync/v4"
)

// Keeper holds a lock while a job runs.
type Keeper struct {
	M *redsync.Mutex
}

// Renew extends the lock and reports a failure to the caller.
func (k *Keeper) Renew() error { // want Renew:"renews via \\(redsync.Mutex\\).Extend"
	ok, err := k.M.Extend()
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("lock %s lost", k.M.Name())
	}
	return nil
}
