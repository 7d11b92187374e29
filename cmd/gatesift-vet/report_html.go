package main

import (
	"fmt"
	"html/template"
	"io"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gatesift/gatesift-vet/analyzers/inventory"
	"github.com/gatesift/gatesift-vet/signals"
)

// defaultSourceURL links each site to the local file. Browsers open it
// from a local report; the #L fragment is for viewers that understand it.
const defaultSourceURL = "file://{abs}#L{line}"

// sourceLinks turns a position into the URL of -report-source-url:
// {file} is the path relative to the module root, {abs} the absolute path
// (both slash-separated and escaped for a URL path), {line} the line.
type sourceLinks struct {
	template string
	cwd      string // entry positions are relative to it
	root     string // the module root, for {file}
}

// checkSourceURL refuses a template that would not make a link a browser
// follows safely: it must be an http, https or file URL.
func checkSourceURL(t string) error {
	u, err := url.Parse(strings.NewReplacer("{file}", "f", "{abs}", "/f", "{line}", "1").Replace(t))
	if err != nil {
		return fmt.Errorf("-report-source-url %q: %v", t, err)
	}
	switch u.Scheme {
	case "http", "https", "file":
		return nil
	}
	return fmt.Errorf("-report-source-url %q: want an http, https or file URL with {file} or {abs} and {line}", t)
}

func (l sourceLinks) url(p inventory.Position) template.URL {
	abs := filepath.FromSlash(p.File)
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(l.cwd, abs)
	}
	rel, err := filepath.Rel(l.root, abs)
	if err != nil || strings.HasPrefix(rel, "..") {
		rel = abs
	}
	t := l.template
	if t == "" {
		t = defaultSourceURL
	}
	u := strings.NewReplacer(
		"{file}", escapePath(filepath.ToSlash(rel)),
		"{abs}", escapePath(filepath.ToSlash(abs)),
		"{line}", strconv.Itoa(p.Line),
	).Replace(t)
	// The scheme was checked by checkSourceURL and every substituted part
	// is escaped, so the URL is safe in an href.
	return template.URL(u)
}

// escapePath escapes each element of a slash-separated path.
func escapePath(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		parts[i] = url.PathEscape(s)
	}
	return strings.Join(parts, "/")
}

// htmlRow is one table row, resolved for the template.
type htmlRow struct {
	inventory.Entry
	Href  template.URL
	Rules []htmlRule
}

type htmlRule struct {
	ID, Title string
	URL       string
}

type htmlSection struct {
	Title, Package string
	Rows           []htmlRow
}

type htmlPage struct {
	Report   *inventory.Report
	Verdicts []htmlVerdict
	Sections []htmlSection
}

type htmlVerdict struct {
	Name  string
	Count int
}

// writeHTMLReport writes the report as one self-contained page: inline CSS
// and script, no external resource, every value escaped by html/template.
func writeHTMLReport(w io.Writer, r *inventory.Report, links sourceLinks) error {
	page := htmlPage{Report: r}
	for _, v := range []inventory.Verdict{inventory.Finding, inventory.PerReplica, inventory.Coordinated} {
		page.Verdicts = append(page.Verdicts, htmlVerdict{string(v), r.Summary.Count(v)})
	}
	rows := func(entries []inventory.Entry) []htmlRow {
		var out []htmlRow
		for _, e := range entries {
			row := htmlRow{Entry: e, Href: links.url(e.Site)}
			for _, id := range e.Rules {
				hr := htmlRule{ID: id}
				if rule, ok := signals.Lookup(id); ok {
					hr.Title, hr.URL = rule.Title, rule.URL()
				}
				row.Rules = append(row.Rules, hr)
			}
			out = append(out, row)
		}
		return out
	}
	for _, b := range r.Binaries {
		page.Sections = append(page.Sections, htmlSection{Title: "Binary " + b.Name, Package: b.Package, Rows: rows(b.Entries)})
	}
	if len(r.Library) > 0 || len(r.Binaries) == 0 {
		page.Sections = append(page.Sections, htmlSection{Title: "Library (reached by no analyzed binary)", Rows: rows(r.Library)})
	}
	return htmlReport.Execute(w, page)
}

var htmlReport = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Report.Tool}} inventory</title>
<style>
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 1.5em 2em; color: #1b1f24; }
h1 { font-size: 1.4em; margin-bottom: .2em; }
h2 { font-size: 1.15em; margin: 1.6em 0 .4em; }
h2 code { font-weight: normal; color: #57606a; }
.meta { color: #57606a; }
fieldset { border: 1px solid #d0d7de; border-radius: 6px; display: inline-block; padding: .4em .9em; }
fieldset label { margin-right: 1.2em; cursor: pointer; }
table { border-collapse: collapse; width: 100%; margin-top: .4em; }
th, td { text-align: left; vertical-align: top; padding: .35em .6em; border-bottom: 1px solid #d8dee4; }
th { background: #f6f8fa; font-weight: 600; }
td.site { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; white-space: nowrap; }
.verdict { font-weight: 600; padding: 0 .35em; border-radius: 4px; }
.verdict-finding { background: #ffebe9; color: #a40e26; }
.verdict-per-replica { background: #fff8c5; color: #7d4e00; }
.verdict-coordinated { background: #dafbe1; color: #116329; }
.reason { color: #57606a; font-size: .92em; }
tr[hidden] { display: none; }
</style>
</head>
<body>
<h1>Jobs, locks and leader elections</h1>
<p class="meta">{{.Report.Tool}} {{.Report.Version}}: <span id="count-finding">{{.Report.Summary.Finding}}</span> finding(s), <span id="count-per-replica">{{.Report.Summary.PerReplica}}</span> per-replica, <span id="count-coordinated">{{.Report.Summary.Coordinated}}</span> coordinated.</p>
<form id="filter"><fieldset><legend>Show verdicts</legend>
{{range .Verdicts}}<label><input type="checkbox" class="verdict-filter" name="verdict" value="{{.Name}}" checked> <span class="verdict verdict-{{.Name}}">{{.Name}}</span> ({{.Count}})</label>
{{end}}</fieldset></form>
{{with .Report.NotAnalyzed}}<section class="not-analyzed">
<h2>Not analyzed</h2>
<p>{{len .}} package(s) were not analyzed; their jobs, locks and elections are missing below.</p>
<ul>
{{range .}}<li class="not-analyzed-package"><code>{{.Package}}</code>: {{.Why}}</li>
{{end}}</ul>
</section>
{{end}}{{range .Sections}}<section class="binary">
<h2>{{.Title}}{{if .Package}} <code>{{.Package}}</code>{{end}}</h2>
{{if .Rows}}<table>
<thead><tr><th>Site</th><th>Kind</th><th>Scheduler / API</th><th>Schedule / TTL</th><th>Writes</th><th>Guard / coordinator</th><th>Verdict</th></tr></thead>
<tbody>
{{range .Rows}}<tr class="entry" data-verdict="{{.Verdict}}" data-kind="{{.Kind}}" data-file="{{.Site.File}}" data-line="{{.Site.Line}}">
<td class="site"><a class="source" href="{{.Href}}">{{.Site}}</a>{{if .Function}}<div class="reason">in {{.Function}}</div>{{end}}</td>
<td class="kind">{{.Kind}}</td>
<td class="api">{{.Scheduler}}</td>
<td class="when">{{.When}}</td>
<td class="writes">{{.Writes}}</td>
<td class="guard">{{.Coordination}}</td>
<td class="verdict-cell"><span class="verdict verdict-{{.Verdict}}">{{.Verdict}}</span>{{range .Rules}} <a class="rule" href="{{.URL}}" title="{{.Title}}">{{.ID}}</a>{{end}}<div class="reason">{{.Reason}}</div></td>
</tr>
{{end}}</tbody>
</table>{{else}}<p>Nothing found.</p>{{end}}
</section>
{{end}}<script>
(function () {
  "use strict";
  var boxes = Array.prototype.slice.call(document.querySelectorAll("input.verdict-filter"));
  // apply hides every row whose verdict is unchecked, and records the
  // filter in effect on <body data-filter>.
  function apply() {
    var on = {};
    boxes.forEach(function (b) { on[b.value] = b.checked; });
    document.querySelectorAll("tr.entry").forEach(function (tr) {
      tr.hidden = !on[tr.getAttribute("data-verdict")];
    });
    document.body.setAttribute("data-filter", checked().join(","));
  }
  function checked() {
    return boxes.filter(function (b) { return b.checked; }).map(function (b) { return b.value; });
  }
  // fromLocation reads #verdict=a,b (or ?verdict=a,b) so a link can open
  // the page filtered.
  function fromLocation() {
    var m = /(?:^|[#?&])verdict=([^&#]*)/.exec(location.hash) || /(?:^|[#?&])verdict=([^&#]*)/.exec(location.search);
    if (!m) { return; }
    var want = decodeURIComponent(m[1]).split(",");
    boxes.forEach(function (b) { b.checked = want.indexOf(b.value) >= 0; });
  }
  // A change of the checkboxes goes into the URL, so the filtered view can
  // be bookmarked or shared.
  boxes.forEach(function (b) {
    b.addEventListener("change", function () {
      apply();
      try { history.replaceState(null, "", "#verdict=" + checked().join(",")); } catch (e) { /* some file:// contexts refuse */ }
    });
  });
  window.addEventListener("hashchange", function () { fromLocation(); apply(); });
  fromLocation();
  apply();
})();
</script>
</body>
</html>
`))
