package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// The lines gatesift-vet prints under GATESIFT_VET_GROWTH=1
// (cmd/gatesift-vet/growth.go, growthLine), among other stderr output.
func TestParseGrowth(t *testing.T) {
	stderr := "gatesift-vet: package x does not load\n" +
		"gatesift-vet: growth: 56/1127 packages 210 ms rss 40960 KB peak 40960 KB\n" +
		"gatesift-vet: growth: 1127/1127 packages 24700 ms rss 344064 KB peak 405504 KB\n"
	want := []growthPoint{{56, 1127, 210, 40960, 40960}, {1127, 1127, 24700, 344064, 405504}}
	if got := parseGrowth(stderr); !reflect.DeepEqual(got, want) {
		t.Errorf("parseGrowth = %v, want %v", got, want)
	}
}

func TestNonEmptyLines(t *testing.T) {
	got := nonEmptyLines("\n\nb [b.test]\n\nx/y\n")
	if want := []string{"b [b.test]", "x/y"}; !reflect.DeepEqual(got, want) {
		t.Errorf("nonEmptyLines = %q, want %q", got, want)
	}
}

// A module whose one test package does not compile is still warmed, and
// that package is named.
func TestWarmUpBrokenTestPackage(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles into a fresh build cache")
	}
	dir := t.TempDir()
	for name, content := range map[string]string{
		"go.mod":        "module example.com/b\n\ngo 1.22\n",
		"b.go":          "package b\n\nfunc F() int { return 1 }\n",
		"b_test.go":     "package b\n\nvar _ = undefinedThing\n",
		"ok/ok.go":      "package ok\n\nimport \"example.com/b\"\n\nvar V = b.F()\n",
		"ok/ok_test.go": "package ok\n",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	var logged []string
	logf := func(format string, args ...any) { logged = append(logged, fmt.Sprintf(format, args...)) }
	cache, err := warmUp(context.Background(), dir, []string{"./..."}, 5*time.Minute, logf)
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(cache)
	all := strings.Join(logged, "\n")
	if !strings.Contains(all, "1 packages do not build") || !strings.Contains(all, "example.com/b [example.com/b.test]") {
		t.Errorf("the broken test package is not named:\n%s", all)
	}
}

// The older tool is measured both ways, and no label is mistaken for plain
// go vet's, the base of every ratio.
func TestPerfCommands(t *testing.T) {
	var labels []string
	for _, c := range perfCommands(perfTools{Tool: "new", OldTool: "old", Staticcheck: "sc"}, "./...") {
		labels = append(labels, c.label+" = "+strings.Join(c.argv, " "))
	}
	want := []string{
		"gatesift-vet ./... = new ./...",
		"go vet -vettool ./... = go vet -vettool=new ./...",
		"old go vet -vettool ./... = go vet -vettool=old ./...",
		"go vet ./... = go vet ./...",
		"staticcheck ./... = sc ./...",
		"old gatesift-vet ./... = old ./...",
	}
	if !reflect.DeepEqual(labels, want) {
		t.Errorf("commands:\n%s\nwant:\n%s", strings.Join(labels, "\n"), strings.Join(want, "\n"))
	}
	base := 0
	for _, l := range labels {
		if strings.HasPrefix(l, "go vet ./...") {
			base++
		}
	}
	if base != 1 {
		t.Errorf("%d labels start like plain go vet's", base)
	}
}

// A bench in which a command could not be measured (the vitess run of
// 2026-12-01 20:38 UTC, whose cache copies hit a full disk) exits non-zero;
// one in which every command ran, whatever its exit code, does not.
func TestFailedMeasurements(t *testing.T) {
	ok := []perfResult{{Module: "m@v1", Label: "go vet ./...", ExitCode: 1}}
	if err := failedMeasurements(ok); err != nil {
		t.Errorf("every command measured: got %v, want nil", err)
	}
	failed := append(ok, perfResult{Module: "m@v1", Label: "gatesift-vet ./...", Err: "copying the warm cache: no space left on device"})
	err := failedMeasurements(failed)
	if err == nil || !strings.Contains(err.Error(), "1 of 2 measurements failed") || !strings.Contains(err.Error(), "gatesift-vet ./...") {
		t.Errorf("one command not measured: got %v", err)
	}
}
