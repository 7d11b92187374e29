package effects

import (
	"go/types"
	"slices"
	"testing"
)

func TestIdentWords(t *testing.T) {
	for id, want := range map[string][]string{
		"latestPrices": {"latest", "Prices"},
		"Contest":      {"Contest"},
		"MockStore":    {"Mock", "Store"},
		"fakeDB":       {"fake", "DB"},
		"HTTPMock":     {"HTTP", "Mock"},
		"DBMockStore":  {"DB", "Mock", "Store"},
		"noop_sender":  {"noop", "sender"},
		"s3Stub":       {"s", "Stub"},
	} {
		if got := identWords(id); !slices.Equal(got, want) {
			t.Errorf("identWords(%q) = %q, want %q", id, got, want)
		}
	}
}

func TestTestSupport(t *testing.T) {
	testing := types.NewPackage("testing", "testing")
	withTesting := types.NewPackage("example.com/app/storetest", "storetest")
	withTesting.SetImports([]*types.Package{testing})
	for _, c := range []struct {
		pkg  *types.Package
		want bool
	}{
		{types.NewPackage("example.com/app/mocks", "mocks"), true},
		{types.NewPackage("example.com/app/fake", "fake"), true},
		{types.NewPackage("example.com/app/storemocks", "storemocks"), true},
		{types.NewPackage("example.com/app/billing_test", "billing_test"), true},
		{withTesting, true},
		{types.NewPackage("example.com/app/latest", "latest"), false},
		{types.NewPackage("example.com/app/contest", "contest"), false},
		{types.NewPackage("example.com/app/store", "store"), false},
	} {
		if got := testSupport(c.pkg); got != c.want {
			t.Errorf("testSupport(%s) = %v, want %v", c.pkg.Path(), got, c.want)
		}
	}
}
