package main

// End-to-end tests: the real binary on throwaway modules that import only
// the standard library (no network), standalone and under go vet.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/gatesift/gatesift-vet/internal/testserver"
)

var binDir string // where TestMain builds the binaries

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "gatesift-vet-e2e")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	testserver.PrintSkipSummary()
	os.Exit(code)
}

var builds sync.Map // buildKey -> func() (string, error)

// A build of the binary: its build tags, and whether it is stamped with
// VCS information.
type buildKey struct {
	tags string
	vcs  bool
}

// binary builds gatesift-vet once per set of build tags, with
// -buildvcs=false: the tests then see the same binary whether or not Go's
// environment sets GOFLAGS=-buildvcs=false and whether or not the source is
// a git checkout. TestVersionReported builds the stamped variant too.
func binary(t *testing.T, tags string) string {
	t.Helper()
	return build(t, buildKey{tags: tags})
}

func build(t *testing.T, key buildKey) string {
	t.Helper()
	v, _ := builds.LoadOrStore(key, sync.OnceValues(func() (string, error) {
		name := "gatesift-vet"
		if key.tags != "" {
			name += "-" + key.tags
		}
		if key.vcs {
			name += "-vcs"
		}
		if runtime.GOOS == "windows" {
			name += ".exe"
		}
		out := filepath.Join(binDir, name)
		cmd := exec.Command("go", "build", "-tags", key.tags, fmt.Sprintf("-buildvcs=%v", key.vcs), "-o", out, ".")
		if msg, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("go build: %v\n%s", err, msg)
		}
		return out, nil
	}))
	bin, err := v.(func() (string, error))()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// The standard example: every replica inserts a charge every minute.
const chargeGo = `package main

import (
	"context"
	"database/sql"
	"time"
)

func charge(ctx context.Context, db *sql.DB) {
	for range time.Tick(time.Minute) {
		db.ExecContext(ctx, "INSERT INTO charges (amount) VALUES (1)")
	}
}

func main() {}
`

// The position of the time.Tick call in chargeGo.
const chargePos = "main.go:10:12"

func writeModule(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	files["go.mod"] = "module example.com/x\n\ngo 1.26\n"
	for name, content := range files {
		writeFile(t, filepath.Join(dir, name), content)
	}
	return dir
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o666); err != nil {
		t.Fatal(err)
	}
}

type run struct {
	stdout, stderr string
	code           int
}

func (r run) String() string {
	return fmt.Sprintf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
}

func execIn(t *testing.T, dir, name string, args ...string) run {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod", "GOPROXY=off")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := run{stdout: stdout.String(), stderr: stderr.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	return r
}

// vet runs the standalone binary.
func vet(t *testing.T, dir string, args ...string) run {
	t.Helper()
	return execIn(t, dir, binary(t, ""), args...)
}

// goVet runs go vet -vettool with the binary.
func goVet(t *testing.T, dir string, args ...string) run {
	t.Helper()
	return execIn(t, dir, "go", append([]string{"vet", "-vettool=" + binary(t, "")}, args...)...)
}

// lines returns the lines of s that mention the rule ID.
func findingLines(s, id string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.HasSuffix(l, "("+id+")") {
			out = append(out, l)
		}
	}
	return out
}

// A loop in package main whose effect is in another package: the finding
// needs the effect fact of billing.Charge, in both modes.
const (
	loopGo = `package main

import (
	"context"
	"database/sql"
	"time"

	"example.com/x/billing"
)

func loop(ctx context.Context, db *sql.DB) {
	t := time.NewTicker(time.Minute)
	for range t.C {
		billing.Charge(ctx, db)
	}
}
`
	billingGo = `package billing

import (
	"context"
	"database/sql"
)

// Charge records one charge.
func Charge(ctx context.Context, db *sql.DB) error {
	_, err := db.ExecContext(ctx, "INSERT INTO refunds (amount) VALUES (1)")
	return err
}
`
)

var positionLine = regexp.MustCompile(`^(\./)?[\w./-]+\.go:\d+:\d+: `)

// diagnosticLines returns the position lines of a run's output (findings
// and their related information), without the rule-ID suffix the
// standalone text adds and the "./" go vet adds, sorted.
func diagnosticLines(out string) []string {
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if !positionLine.MatchString(l) {
			continue
		}
		l = strings.TrimPrefix(l, "./")
		l = regexp.MustCompile(` \(LE\d{4}\)$`).ReplaceAllString(l, "")
		lines = append(lines, l)
	}
	sort.Strings(lines)
	return lines
}

func TestStandaloneTextAndGoVetAgree(t *testing.T) {
	t.Parallel()
	testParity(t, billingGo)
}

// With both loops writing table charges, LE2001 reports the pair at the
// second site in source order. go/packages parses a package's files in
// parallel, so the order must come from file names and offsets, not
// token.Pos, for both drivers to agree.
func TestStandaloneAndGoVetAgreeOnCompetingSchedulers(t *testing.T) {
	t.Parallel()
	testParity(t, strings.Replace(billingGo, "refunds", "charges", 1))
}

func testParity(t *testing.T, billing string) {
	dir := writeModule(t, map[string]string{
		"main.go":            chargeGo,
		"loop.go":            loopGo,
		"billing/billing.go": billing,
	})

	r := vet(t, dir, "./...")
	if r.code != exitFindings {
		t.Fatalf("want exit 3 on findings; %v", r)
	}
	got := findingLines(r.stdout, "LE1001")
	if len(got) != 2 || !strings.HasPrefix(got[0], "loop.go:12:7: ") || !strings.Contains(got[0], "billing.Charge") ||
		!strings.HasPrefix(got[len(got)-1], chargePos+": ") {
		t.Fatalf("want LE1001 at loop.go:12:7 (through billing.Charge) and %s, sorted; %v", chargePos, r)
	}
	if r.stderr != "" {
		t.Errorf("stderr should be empty when it is not a terminal: %q", r.stderr)
	}

	g := goVet(t, dir, "./...")
	if g.code == 0 {
		t.Fatalf("go vet should fail on a finding; %v", g)
	}
	standalone, vetted := diagnosticLines(r.stdout), diagnosticLines(g.stderr)
	if strings.Join(standalone, "\n") != strings.Join(vetted, "\n") {
		t.Errorf("standalone and go vet disagree:\nstandalone:\n%s\ngo vet:\n%s",
			strings.Join(standalone, "\n"), strings.Join(vetted, "\n"))
	}
}

func TestExitCodesAndNoFindings(t *testing.T) {
	t.Parallel()
	dir := writeModule(t, map[string]string{"main.go": "package main\n\nfunc main() {}\n"})
	if r := vet(t, dir, "./..."); r.code != exitOK || r.stdout != "" {
		t.Errorf("clean module: want exit 0 and no output; %v", r)
	}
	if r := vet(t, dir, "-checks", "LE42*"); r.code != exitTool || !strings.Contains(r.stderr, "LE42*") {
		t.Errorf("bad -checks: want exit 1 naming it; %v", r)
	}
	if r := vet(t, dir, "-profile", "lax"); r.code != exitTool || !strings.Contains(r.stderr, "lax") {
		t.Errorf("bad -profile: want exit 1; %v", r)
	}
	if r := vet(t, dir, "-format", "xml"); r.code != exitTool {
		t.Errorf("bad -format: want exit 1; %v", r)
	}
}

func TestLoadErrorIsToolError(t *testing.T) {
	t.Parallel()
	dir := writeModule(t, map[string]string{
		"main.go": "package main\n\nfunc main() { var x int = \"s\" }\n",
	})
	r := vet(t, dir, "./...")
	if r.code != exitTool || !strings.Contains(r.stderr, "main.go:3:") || r.stdout != "" {
		t.Errorf("type error: want exit 1 with the position on stderr; %v", r)
	}
	r = vet(t, dir, "./nosuch")
	if r.code != exitTool {
		t.Errorf("missing package: want exit 1; %v", r)
	}
}

func TestConfigOnOffAndBroken(t *testing.T) {
	t.Parallel()
	dir := writeModule(t, map[string]string{
		"main.go":        chargeGo,
		".gatesift.yaml": "checks: [\"-LE1001\"]\n",
	})
	if r := vet(t, dir, "./..."); r.code != exitOK || len(findingLines(r.stdout, "LE1001")) != 0 {
		t.Errorf("checks: [-LE1001] should silence LE1001; %v", r)
	}
	// The command line wins over the file.
	if r := vet(t, dir, "-checks", "LE1001", "./..."); len(findingLines(r.stdout, "LE1001")) != 1 {
		t.Errorf("-checks LE1001 should re-enable it; %v", r)
	}

	// A malformed file: exit 1, every problem in the user's words with its
	// line, once.
	writeFile(t, filepath.Join(dir, ".gatesift.yaml"), "checks: [\"-LE1001\"]\nchekcs: []\nprofile: lax\n")
	writeFile(t, filepath.Join(dir, "sub", "sub.go"), "package sub\n")
	const unknown = `unknown key "chekcs" at .gatesift.yaml:2; did you mean "checks"?`
	const badValue = `.gatesift.yaml:3: profile "lax": want default or strict`
	r := vet(t, dir, "./...")
	if r.code != exitTool || r.stdout != "" {
		t.Fatalf("broken config: want exit 1 and no results; %v", r)
	}
	if strings.Count(r.stderr, unknown) != 1 || strings.Count(r.stderr, badValue) != 1 {
		t.Errorf("want each error once: %s and %s; %v", unknown, badValue, r)
	}
	// go vet: -V=full still answers, so go vet itself does not fail
	// (no "go: error obtaining buildID", no "unlinkat"); each package's run
	// reports the errors, and nothing else is printed.
	if v := vet(t, dir, "-V=full"); v.code != exitOK {
		t.Errorf("-V=full with a broken config: want an answer; %v", v)
	}
	g := goVet(t, dir, "./...")
	g.stderr = strings.ReplaceAll(g.stderr, "./.gatesift.yaml", ".gatesift.yaml") // cmd/go shortens the absolute path
	if g.code == 0 || !strings.Contains(g.stderr, unknown) || !strings.Contains(g.stderr, badValue) {
		t.Errorf("go vet with a broken config: want failure with the errors; %v", g)
	}
	for _, l := range strings.Split(strings.TrimSpace(g.stderr), "\n") {
		if !strings.HasPrefix(l, "# ") && l != unknown && l != badValue {
			t.Errorf("go vet with a broken config printed %q besides the errors; %v", l, g)
		}
	}
}

// go vet caches results keyed on the tool's -V=full answer and flags; the
// config digest in that answer must make a config edit visible.
func TestGoVetSeesConfigEdits(t *testing.T) {
	t.Parallel()
	dir := writeModule(t, map[string]string{"main.go": chargeGo})
	if g := goVet(t, dir, "./..."); !strings.Contains(g.stderr, chargePos) {
		t.Fatalf("first go vet: want the finding; %v", g)
	}
	writeFile(t, filepath.Join(dir, ".gatesift.yaml"), "checks: [\"-LE1001\"]\n")
	if g := goVet(t, dir, "./..."); g.code != 0 || strings.Contains(g.stderr, chargePos) {
		t.Errorf("after disabling LE1001 in the config, go vet still reports it (stale cache?); %v", g)
	}
	writeFile(t, filepath.Join(dir, ".gatesift.yaml"), "checks: [\"LE1001\"]\n")
	if g := goVet(t, dir, "./..."); !strings.Contains(g.stderr, chargePos) {
		t.Errorf("after re-enabling LE1001, go vet does not report it; %v", g)
	}
}

func TestConfigDigestAndVetFlags(t *testing.T) {
	t.Parallel()
	dir := writeModule(t, map[string]string{
		"main.go":        chargeGo,
		".gatesift.yaml": "profile: default\n",
	})
	r := vet(t, dir, "-print-config-digest")
	digest := strings.TrimSpace(r.stdout)
	if r.code != exitOK || !regexp.MustCompile(`^[0-9a-f]{16}$`).MatchString(digest) {
		t.Fatalf("-print-config-digest: %v", r)
	}
	if r := vet(t, dir, "-config-digest", digest, "./..."); r.code != exitFindings {
		t.Errorf("matching -config-digest: want a normal run; %v", r)
	}
	if g := goVet(t, dir, "-config-digest="+digest, "-checks=-LE1001", "./..."); g.code != 0 {
		t.Errorf("go vet with our flags: want them accepted and LE1001 off; %v", g)
	}
	writeFile(t, filepath.Join(dir, ".gatesift.yaml"), "profile: strict\n")
	if r := vet(t, dir, "-config-digest", digest, "./..."); r.code != exitTool || !strings.Contains(r.stderr, "configuration changed") {
		t.Errorf("stale -config-digest: want exit 1; %v", r)
	}
	if g := goVet(t, dir, "-config-digest="+digest, "./..."); g.code == 0 || !strings.Contains(g.stderr, "configuration changed") {
		t.Errorf("go vet with a stale -config-digest: want failure; %v", g)
	}

	v := vet(t, dir, "-V=full")
	if !regexp.MustCompile(`^gatesift-vet version ` + regexp.QuoteMeta(releaseVersion) + ` buildID=[0-9a-f]{64}\n$`).MatchString(v.stdout) {
		t.Errorf("-V=full: %q", v.stdout)
	}
	writeFile(t, filepath.Join(dir, ".gatesift.yaml"), "profile: default\n")
	if v2 := vet(t, dir, "-V=full"); v2.stdout == v.stdout {
		t.Errorf("-V=full does not change when the config does")
	}
	f := vet(t, dir, "-flags")
	for _, name := range []string{`"checks"`, `"profile"`, `"config"`, `"config-digest"`, `"json"`} {
		if !strings.Contains(f.stdout, `"Name": `+name) {
			t.Errorf("-flags does not list %s:\n%s", name, f.stdout)
		}
	}
}

func TestListExplainVersion(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := vet(t, dir, "-list")
	if r.code != exitOK || !regexp.MustCompile(`(?m)^LE1001\s+localsingleton\s+on\s+high\s+`).MatchString(r.stdout) ||
		!regexp.MustCompile(`(?m)^LE3003\s+unfencedwrite\s+off\s+`).MatchString(r.stdout) {
		t.Errorf("-list: %v", r)
	}
	r = vet(t, dir, "-list", "-json")
	var rules []struct {
		ID, Name, URL string
		Default       bool
	}
	if err := json.Unmarshal([]byte(r.stdout), &rules); err != nil || len(rules) < 10 || rules[0].ID != "LE1001" {
		t.Errorf("-list -json: %v %v", err, r)
	}
	r = vet(t, dir, "-explain", "LE3001")
	if r.code != exitOK || !strings.HasPrefix(r.stdout, "LE3001: lockexpiry\n===") || strings.Contains(r.stdout, "<a id=") {
		t.Errorf("-explain LE3001: want the section as text; %v", r)
	}
	if r := vet(t, dir, "-explain", "localsingleton"); r.code != exitOK || !strings.Contains(r.stdout, "LE1001") {
		t.Errorf("-explain by name: %v", r)
	}
	if r := vet(t, dir, "-explain", "LE0000"); r.code != exitTool || !strings.Contains(r.stderr, "LE0000") {
		t.Errorf("-explain of an unknown rule: want exit 1; %v", r)
	}
	if r := vet(t, dir, "-version"); r.code != exitOK || !strings.HasPrefix(r.stdout, "gatesift-vet version ") {
		t.Errorf("-version: %v", r)
	}
	if r := vet(t, dir, "-help"); r.code != exitOK || !strings.Contains(r.stderr, "Exit codes") {
		t.Errorf("-help must document the exit codes: %v", r)
	}
}

// A rule that panics becomes an internal-error finding for its package and
// the run goes on: the other package's finding is still reported.
func TestPanickingRule(t *testing.T) {
	t.Parallel()
	bin := binary(t, "gatesift_testhook")
	dir := writeModule(t, map[string]string{
		"main.go":      chargeGo,
		"boom/boom.go": "package boom\n\nfunc F() {}\n",
	})
	r := execIn(t, dir, bin, "./...")
	if r.code != exitFindings {
		t.Fatalf("want exit 3; %v", r)
	}
	if !regexp.MustCompile(`(?m)^boom/boom\.go:1:9: internal error: rule LE\d{4} .*panicked on package example\.com/x/boom: .*nil map`).MatchString(r.stdout) {
		t.Errorf("no internal-error finding for package boom; %v", r)
	}
	if len(findingLines(r.stdout, "LE1001")) != 1 {
		t.Errorf("the other package's finding is lost; %v", r)
	}

	// SARIF also tells code-scanning services that the tool had a problem.
	out := filepath.Join(dir, "out.sarif")
	execIn(t, dir, bin, "-format=sarif", "-o", out, "./...")
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if errs := loadSARIFSchema(t).validateDoc(data); len(errs) > 0 {
		t.Errorf("invalid SARIF: %v", errs)
	}
	var doc struct {
		Runs []struct {
			Invocations []struct {
				ToolExecutionNotifications []struct {
					Level   string
					Message struct{ Text string }
				}
			}
		}
	}
	json.Unmarshal(data, &doc)
	if len(doc.Runs) != 1 || len(doc.Runs[0].Invocations) != 1 ||
		len(doc.Runs[0].Invocations[0].ToolExecutionNotifications) != 1 ||
		!strings.Contains(doc.Runs[0].Invocations[0].ToolExecutionNotifications[0].Message.Text, "internal error") {
		t.Errorf("no tool notification for the panic:\n%s", data)
	}
}

// The test-hook binary speaks go vet's protocol too: -flags lists each
// analyzer once (the panicker borrowed staticleader's name and made
// unitchecker panic with "flag redefined"), and under go vet the panic is
// still an internal-error finding while the other package is analyzed.
func TestPanickingRuleUnderGoVet(t *testing.T) {
	t.Parallel()
	bin := binary(t, "gatesift_testhook")
	dir := writeModule(t, map[string]string{
		"main.go":      chargeGo,
		"boom/boom.go": "package boom\n\nfunc F() {}\n",
	})
	r := execIn(t, dir, bin, "-flags")
	if r.code != exitOK {
		t.Fatalf("-flags: want exit 0; %v", r)
	}
	var flags []struct{ Name string }
	if err := json.Unmarshal([]byte(r.stdout), &flags); err != nil {
		t.Fatalf("-flags: %v; %v", err, r)
	}
	seen := map[string]bool{}
	for _, f := range flags {
		if seen[f.Name] {
			t.Errorf("-flags lists %q twice", f.Name)
		}
		seen[f.Name] = true
	}
	r = execIn(t, dir, "go", "vet", "-vettool="+bin, "./...")
	if !regexp.MustCompile(`(?m)boom/boom\.go:1:9: internal error: rule LE\d{4} .*panicked on package example\.com/x/boom: .*nil map`).MatchString(r.stderr) {
		t.Errorf("go vet: no internal-error finding for package boom; %v", r)
	}
	if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(chargePos) + `: time\.Tick runs loop body on every replica`).MatchString(r.stderr) {
		t.Errorf("go vet: the other package's finding is lost; %v", r)
	}
}
