package le3004

import (
	"context"

	"github.com/go-redsync/redsync/v4"

	"le3004/leaseconcrete/store"
)

// saveUnderMutex holds a default 8 s redsync mutex around a call into
// another package of the module whose work is unbounded: that package's
// facts are consulted for the project's own leases only, silent here
// (handler.AppendStored, the same call under a project lease, is its
// twin).
func saveUnderMutex(ctx context.Context, rs *redsync.Redsync, st *store.Store, chunks [][]byte) error {
	mu := rs.NewMutex("lock:save")
	if err := mu.LockContext(ctx); err != nil {
		return err
	}
	defer mu.UnlockContext(ctx)
	return st.SaveAll(ctx, chunks)
}
