package effects

import (
	"go/types"
	"testing"
)

// TestSameModule covers both ways the module is known: from the driver's
// module path (go vet, the standalone driver) and, without one, from the
// package paths (GOPATH-mode analysistest, the fixtures' case).
func TestSameModule(t *testing.T) {
	pkg := func(path, name string) *types.Package { return types.NewPackage(path, name) }
	const nats = "github.com/nats-io/nats.go"
	cases := []struct {
		name   string
		caller *types.Package
		module string
		api    string
		want   bool
	}{
		{"module: the API's own package", pkg(nats, "nats"), nats, nats, true},
		{"module: a sibling package calls the root", pkg(nats+"/jetstream", "jetstream"), nats, nats, true},
		{"module: the root calls a package below it", pkg("github.com/hibiken/asynq", "asynq"), "github.com/hibiken/asynq", "github.com/hibiken/asynq/internal/rdb", true},
		{"module: another module", pkg("example.com/app/billing", "billing"), "example.com/app", nats, false},
		{"module: a path that only shares a prefix", pkg("github.com/nats-io/nats.go2", "nats2"), "github.com/nats-io/nats.go2", nats, false},
		{"module: a major version is another module", pkg("github.com/go-co-op/gocron", "gocron"), "github.com/go-co-op/gocron", "github.com/go-co-op/gocron/v2", false},
		{"module: a major version's own packages", pkg("github.com/go-co-op/gocron/v2/internal/x", "x"), "github.com/go-co-op/gocron/v2", "github.com/go-co-op/gocron/v2", true},
		{"no module: a major version below the API's path", pkg("github.com/go-redsync/redsync/v4", "redsync"), "", "github.com/go-redsync/redsync", false},
		{"module: a v1 directory is a package", pkg("example.com/lib", "lib"), "example.com/lib", "example.com/lib/v1", true},
		{"module: a command in the API's module", pkg(nats+"/examples/pub", "main"), nats, nats, false},
		{"no module: the API's own package", pkg(nats, "nats"), "", nats, true},
		{"no module: a package below the API's", pkg(nats+"/jetstream", "jetstream"), "", nats, true},
		{"no module: a package above the API's", pkg("github.com/hashicorp/consul", "consul"), "", "github.com/hashicorp/consul/api", false},
		{"no module: another path", pkg("le1001/ownapi", "ownapi"), "", nats, false},
		{"no module: a command below the API's", pkg(nats+"/examples/pub", "main"), "", nats, false},
	}
	for _, c := range cases {
		if got := sameModule(c.caller, c.module, c.api); got != c.want {
			t.Errorf("%s: sameModule(%s, %q, %q) = %v, want %v", c.name, c.caller.Path(), c.module, c.api, got, c.want)
		}
	}
}
