// Package platform wraps the election wrapper once more, as platform teams
// do: the fact flows through both layers.
package platform

import (
	"context"
	"os"
	"time"

	"github.com/go-logr/logr"

	"le4001/election"
)

// RunLeader runs work while this replica leads.
func RunLeader(ctx context.Context, logger logr.Logger, name string, work func(context.Context)) error { // want RunLeader:"forwards param 3 as OnStartedLeading \\(stop -1, stops work false\\)"
	le, err := election.New(logger, name, "platform", nil, os.Getenv("POD_NAME"), 2*time.Second, work, nil)
	if err != nil {
		return err
	}
	le.Run(ctx)
	return nil
}
