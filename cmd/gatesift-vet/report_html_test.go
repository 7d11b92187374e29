package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/gatesift/gatesift-vet/analyzers/inventory"
	"github.com/gatesift/gatesift-vet/internal/testserver"
	"github.com/gatesift/gatesift-vet/signals"
)

// exampleSite is an entry the report on examples/ must list: the line of
// file holding text, with its kind, verdict and rules.
type exampleSite struct {
	file, text string
	kind       inventory.Kind
	verdict    inventory.Verdict
	rules      string
}

var exampleSites = []exampleSite{
	// The two jobs writing table invoices are also LE2001's pair.
	{"examples/flagged/main.go", "time.NewTicker(time.Hour)", inventory.KindJob, inventory.Finding, "LE1001,LE2001"},
	{"examples/flagged/main.go", "time.Tick(10 * time.Minute)", inventory.KindJob, inventory.Finding, "LE1001,LE2001"},
	{"examples/flagged/main.go", "for { // LE1002", inventory.KindJob, inventory.Finding, "LE1002"},
	{"examples/flagged/reconcile.go", "time.Tick(time.Minute)", inventory.KindJob, inventory.Finding, "LE1001"},
	{"examples/flagged/reconcile.go", `rdb.SetNX(ctx, "lock:reconcile"`, inventory.KindLock, inventory.Finding, "LE3001,LE3002"},
	{"examples/remediated/main.go", "billing.Run(ctx,", inventory.KindElection, inventory.Coordinated, ""},
	{"examples/remediated/main.go", "time.NewTicker(time.Minute)", inventory.KindJob, inventory.Coordinated, ""},
}

// lineOf returns the line of the module file holding text.
func lineOf(t *testing.T, root, file, text string) int {
	t.Helper()
	f, err := os.Open(filepath.Join(root, file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		if strings.Contains(sc.Text(), text) {
			return line
		}
	}
	t.Fatalf("%s has no line with %q", file, text)
	return 0
}

// siteKey identifies a row: "file:line kind verdict rules".
func siteKey(file string, line int, kind, verdict, rules string) string {
	return fmt.Sprintf("%s:%d %s %s %s", file, line, kind, verdict, rules)
}

func expectedSites(t *testing.T, root string) []string {
	var want []string
	for _, s := range exampleSites {
		want = append(want, siteKey(s.file, lineOf(t, root, s.file, s.text), string(s.kind), string(s.verdict), s.rules))
	}
	slices.Sort(want)
	return want
}

// examplesReport runs -report=json once, in the module root, on both
// examples (the analysis of their dependencies is most of this package's
// test time); the tests render the markdown and HTML forms from it with the
// binary's own code. It runs with -mod=readonly, unlike vet: this is the
// shared checkout, whose go.mod a test must never rewrite.
var examplesReport = sync.OnceValues(func() (*inventory.Report, error) {
	bin, err := builtBinary()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "-report=json", "-test=false", "./examples/flagged", "./examples/remediated")
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=readonly", "GOPROXY=off")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("-report=json: %v\n%s", err, stderr.String())
	}
	var rep inventory.Report
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		return nil, fmt.Errorf("-report=json: %v\n%s", err, stdout.String())
	}
	return &rep, nil
})

func reportOnExamples(t *testing.T) *inventory.Report {
	t.Helper()
	binary(t, "") // builds it, or fails the test with the reason
	rep, err := examplesReport()
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestReportFormatsOnExamples checks that -report=json and the markdown
// form list exactly the expected jobs, locks and elections of the examples,
// under the right binary.
func TestReportFormatsOnExamples(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	want := expectedSites(t, root)

	rep := reportOnExamples(t)
	var got []string
	for _, b := range rep.Binaries {
		for _, e := range b.Entries {
			if !strings.HasPrefix(e.Site.File, "examples/"+b.Name+"/") {
				t.Errorf("%s listed under binary %s", e.Site, b.Name)
			}
			got = append(got, siteKey(e.Site.File, e.Site.Line, string(e.Kind), string(e.Verdict), strings.Join(e.Rules, ",")))
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("-report=json entries:\n got %q\nwant %q", got, want)
	}
	if rep.Schema != inventory.Schema || rep.Version != releaseVersion || len(rep.Library) != 0 || rep.Summary.Finding != 5 {
		t.Errorf("-report=json header: schema %d version %q library %d summary %+v", rep.Schema, rep.Version, len(rep.Library), rep.Summary)
	}

	var b strings.Builder
	if err := rep.Markdown(&b); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, s := range exampleSites {
		row := fmt.Sprintf("| `%s:%d:", s.file, lineOf(t, root, s.file, s.text))
		i := strings.Index(md, row)
		if i < 0 {
			t.Errorf("markdown lacks a row for %s:\n%s", row, md)
			continue
		}
		line := md[i : i+strings.IndexByte(md[i:], '\n')]
		verdict := string(s.verdict)
		if s.rules != "" {
			verdict += " " + strings.ReplaceAll(s.rules, ",", ", ")
		}
		if !strings.Contains(line, "| "+string(s.kind)+" |") || !strings.Contains(line, "| "+verdict+":") {
			t.Errorf("markdown row %s: want kind %s and verdict %q", line, s.kind, verdict)
		}
	}
	if n := strings.Count(md, "\n| `examples/"); n != len(want) {
		t.Errorf("markdown has %d rows, want %d", n, len(want))
	}
	for _, h := range []string{"## Binary `flagged`", "## Binary `remediated`"} {
		if !strings.Contains(md, h) {
			t.Errorf("markdown lacks %q", h)
		}
	}
}

// chromium finds the browser, or skips (fails under
// GATESIFT_REQUIRE_SERVICES=1) naming the Debian package.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	testserver.SkipMissing(t, "chromium", "chromium not found: install the Debian package chromium (apt-get install chromium) to test the HTML report in a browser")
	return ""
}

// dumpDOM loads url in headless chromium and returns the DOM after the
// page's scripts ran. The browser runs in its own process group, killed
// when the run ends or after 60 s.
func dumpDOM(t *testing.T, browser, url string) *html.Node {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	profile := t.TempDir()
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu",
		"--disable-background-networking", "--no-first-run", "--user-data-dir="+profile, "--dump-dom", url)
	cmd.Env = append(os.Environ(), "HOME="+profile)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // helpers left behind, if any
	}
	if err != nil || errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatalf("chromium --dump-dom %s: %v\n%s", url, err, stderr.String())
	}
	doc, err := html.Parse(&stdout)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func attr(n *html.Node, name string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == name {
			return a.Val, true
		}
	}
	return "", false
}

func hasClass(n *html.Node, class string) bool {
	v, _ := attr(n, "class")
	return slices.Contains(strings.Fields(v), class)
}

func text(n *html.Node) string {
	var b strings.Builder
	for c := range n.Descendants() {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
	}
	return b.String()
}

// domRow is a report row as the browser shows it.
type domRow struct {
	key    string // siteKey of the row
	hidden bool
	href   string
	rules  map[string]string // rule ID -> link
}

func domRows(t *testing.T, doc *html.Node) (rows []domRow, filter string, filtered bool) {
	t.Helper()
	for n := range doc.Descendants() {
		if n.Type != html.ElementNode {
			continue
		}
		if n.Data == "body" {
			filter, filtered = attr(n, "data-filter")
		}
		if n.Data != "tr" || !hasClass(n, "entry") {
			continue
		}
		file, _ := attr(n, "data-file")
		line, _ := attr(n, "data-line")
		kind, _ := attr(n, "data-kind")
		verdict, _ := attr(n, "data-verdict")
		_, hidden := attr(n, "hidden")
		r := domRow{hidden: hidden, rules: map[string]string{}}
		var ids []string
		for c := range n.Descendants() {
			if c.Type != html.ElementNode || c.Data != "a" {
				continue
			}
			href, _ := attr(c, "href")
			switch {
			case hasClass(c, "source"):
				r.href = href
			case hasClass(c, "rule"):
				r.rules[text(c)] = href
				ids = append(ids, text(c))
			}
		}
		l, _ := strconv.Atoi(line)
		r.key = siteKey(file, l, kind, verdict, strings.Join(ids, ","))
		rows = append(rows, r)
	}
	return rows, filter, filtered
}

// TestHTMLReportInBrowser renders -report=html of both examples in
// headless chromium and checks the DOM after the page's script ran: every
// expected row with its verdict and rule links, source links to the right
// file and line, and the verdict filter read from the URL fragment.
func TestHTMLReportInBrowser(t *testing.T) {
	t.Parallel()
	browser := chromium(t)
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	want := expectedSites(t, root)
	page := filepath.Join(t.TempDir(), "report.html")
	var buf bytes.Buffer
	if err := writeHTMLReport(&buf, reportOnExamples(t), sourceLinks{template: defaultSourceURL, cwd: root, root: root}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, buf.Bytes(), 0o666); err != nil {
		t.Fatal(err)
	}

	rows, filter, filtered := domRows(t, dumpDOM(t, browser, "file://"+page))
	if !filtered || filter != "finding,per-replica,coordinated" {
		t.Errorf("unfiltered page: the script did not run or did not keep every verdict (data-filter %q, set %v)", filter, filtered)
	}
	var got []string
	for _, r := range rows {
		got = append(got, r.key)
		if r.hidden {
			t.Errorf("%s hidden without a filter", r.key)
		}
		file, line, _ := strings.Cut(strings.Fields(r.key)[0], ":")
		if wantHref := "file://" + filepath.ToSlash(filepath.Join(root, file)) + "#L" + line; r.href != wantHref {
			t.Errorf("%s: source link %q, want %q", r.key, r.href, wantHref)
		}
		for id, href := range r.rules {
			if rule, ok := signals.Lookup(id); !ok || href != rule.URL() {
				t.Errorf("%s: rule %s links to %q", r.key, id, href)
			}
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("rows in the browser:\n got %q\nwant %q", got, want)
	}

	rows, filter, _ = domRows(t, dumpDOM(t, browser, "file://"+page+"#verdict=coordinated"))
	if filter != "coordinated" {
		t.Errorf("#verdict=coordinated: data-filter %q", filter)
	}
	var shown, hidden int
	for _, r := range rows {
		isFinding := strings.Contains(r.key, " finding ")
		switch {
		case isFinding && !r.hidden:
			t.Errorf("#verdict=coordinated shows the finding %s", r.key)
		case !isFinding && r.hidden:
			t.Errorf("#verdict=coordinated hides %s", r.key)
		}
		if r.hidden {
			hidden++
		} else {
			shown++
		}
	}
	if shown == 0 || hidden == 0 {
		t.Errorf("#verdict=coordinated: %d rows shown, %d hidden; want both", shown, hidden)
	}
}

// TestSourceLinks checks the -report-source-url substitutions and that
// only http, https and file templates are accepted.
func TestSourceLinks(t *testing.T) {
	l := sourceLinks{template: "https://example.com/r/blob/main/{file}#L{line}", cwd: "/src/m/sub", root: "/src/m"}
	if got := string(l.url(inventory.Position{File: "a b/c.go", Line: 7})); got != "https://example.com/r/blob/main/sub/a%20b/c.go#L7" {
		t.Errorf("template URL: %s", got)
	}
	l.template = ""
	if got := string(l.url(inventory.Position{File: "c.go", Line: 3})); got != "file:///src/m/sub/c.go#L3" {
		t.Errorf("default URL: %s", got)
	}
	for tmpl, ok := range map[string]bool{
		defaultSourceURL: true, "https://x/{file}#L{line}": true, "http://x/{file}": true,
		"javascript:alert(1)//{file}": false, "{file}:{line}": false,
	} {
		if err := checkSourceURL(tmpl); (err == nil) != ok {
			t.Errorf("checkSourceURL(%q) = %v", tmpl, err)
		}
	}
}

// TestReportFlags runs -report=html and markdown through the command line
// on a small module: one self-contained page with the -report-source-url
// links, and the flag errors.
func TestReportFlags(t *testing.T) {
	t.Parallel()
	dir := writeModule(t, map[string]string{"main.go": chargeGo})
	r := vet(t, dir, "-report=html", "-report-source-url=https://example.com/x/blob/main/{file}#L{line}", "./...")
	if r.code != exitOK {
		t.Fatalf("-report=html: %v", r)
	}
	page := r.stdout
	line := strings.Split(chargePos, ":")[1]
	for _, want := range []string{"<!DOCTYPE html>", `href="https://example.com/x/blob/main/main.go#L` + line + `"`,
		`data-verdict="finding"`, "<h2>Binary x <code>example.com/x</code></h2>", "<style>", "<script>"} {
		if !strings.Contains(page, want) {
			t.Errorf("-report=html lacks %s:\n%s", want, page)
		}
	}
	// Self-contained: nothing is fetched, whatever the network.
	for _, external := range []string{"<link", " src=", "@import", "url("} {
		if strings.Contains(page, external) {
			t.Errorf("-report=html refers to an external resource (%s)", external)
		}
	}
	if r := vet(t, dir, "-report=markdown", "./..."); r.code != exitOK || !strings.Contains(r.stdout, "## Binary `x` (`example.com/x`)") {
		t.Errorf("-report=markdown: %v", r)
	}
	if r := vet(t, dir, "-report=pdf", "./..."); r.code != exitTool || !strings.Contains(r.stderr, "markdown, json, html") {
		t.Errorf("-report=pdf: want exit 1 naming the formats; %v", r)
	}
	if r := vet(t, dir, "-report=html", "-report-source-url=javascript:alert(1)", "./..."); r.code != exitTool {
		t.Errorf("a javascript: source URL: want exit 1; %v", r)
	}
}

// builtBinary returns the binary binary(t, "") built, outside a test.
func builtBinary() (string, error) {
	v, ok := builds.Load(buildKey{})
	if !ok {
		return "", errors.New("gatesift-vet is not built yet")
	}
	return v.(func() (string, error))()
}
