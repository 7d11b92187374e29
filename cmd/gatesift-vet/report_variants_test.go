package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// variantsModule: the ticker job in billing is started only through the
// project's own lease, a call down (declared a coordinator in .gatesift.yaml), so the
// production build judges it coordinated; the in-package test starts the
// loop directly, so the test variant "billing [billing.test]" judges the
// same site uncoordinated.
var variantsModule = map[string]string{
	".gatesift.yaml": `knowledge:
  coordinators:
    - {pkg: example.com/x/lease, name: Run, kind: election}
`,
	"lease/lease.go": `package lease

import "context"

// Run calls fn while this replica holds the lease.
func Run(ctx context.Context, name string, fn func(context.Context)) { fn(ctx) }
`,
	"billing/billing.go": `package billing

import (
	"context"
	"database/sql"
	"time"

	"example.com/x/lease"
)

func Start(ctx context.Context, db *sql.DB) {
	lease.Run(ctx, "billing", func(ctx context.Context) { startJobs(ctx, db) })
}

func startJobs(ctx context.Context, db *sql.DB) { go chargeLoop(ctx, db) }

func chargeLoop(ctx context.Context, db *sql.DB) {
	t := time.NewTicker(time.Hour)
	defer t.Stop()
	for range t.C {
		db.ExecContext(ctx, "INSERT INTO charges (account_id) SELECT id FROM accounts WHERE due")
	}
}
`,
	"billing/billing_test.go": `package billing

import (
	"context"
	"testing"
)

func TestChargeLoopStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	go chargeLoop(ctx, nil)
}
`,
}

// One entry per site in -report: the package and its test variant analyze
// the same file, and the production build's verdict is the one shown.
func TestReportMergesPackageVariants(t *testing.T) {
	t.Parallel()
	dir := writeModule(t, variantsModule)
	r := vet(t, dir, "-report=json", "./...")
	var doc struct {
		Summary map[string]int
		Library []struct {
			Site struct {
				File string
				Line int
			}
			Verdict string
			Reason  string
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("-report=json does not parse: %v\n%v", err, r)
	}
	var got []string
	for _, e := range doc.Library {
		if e.Site.File == "billing/billing.go" && e.Site.Line == 18 {
			got = append(got, e.Verdict+": "+e.Reason)
		}
	}
	if len(got) != 1 {
		t.Fatalf("billing/billing.go:18 has %d entries, want 1 (one per site, not per package variant): %q\n%v", len(got), got, r)
	}
	if !strings.HasPrefix(got[0], "coordinated: ") || !strings.Contains(got[0], "in the test build: finding") {
		t.Errorf("billing/billing.go:18 = %q, want the production build's verdict (coordinated) and a note that the test build differs", got[0])
	}
	if doc.Summary["finding"] != 0 || doc.Summary["coordinated"] != 2 {
		t.Errorf("summary %v, want two coordinated entries (the lease and the job) and no finding", doc.Summary)
	}
}
