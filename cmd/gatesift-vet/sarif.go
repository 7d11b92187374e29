package main

import (
	"io"
	"net/url"
	"path/filepath"
	"strings"
	"unicode/utf16"

	"github.com/gatesift/gatesift-vet/signals"
)

// SARIF 2.1.0 (OASIS), the subset code-scanning services read. Field names
// follow the specification's JSON property names.
const (
	sarifSchema  = "https://json.schemastore.org/sarif-2.1.0.json"
	sarifVersion = "2.1.0"
	// srcRoot is the uriBaseId of every artifact inside the module, so the
	// log does not depend on where the module was checked out.
	srcRoot = "SRCROOT"
	// fingerprintKey names our partialFingerprints entry; the /v1 changes
	// whenever the fingerprint's recipe does.
	fingerprintKey = "gatesift/v1"
	informationURI = "https://github.com/gatesift/gatesift-vet"
)

type (
	sarifLog struct {
		Schema  string     `json:"$schema"`
		Version string     `json:"version"`
		Runs    []sarifRun `json:"runs"`
	}
	sarifRun struct {
		Tool               sarifTool                `json:"tool"`
		Invocations        []sarifInvocation        `json:"invocations"`
		OriginalURIBaseIDs map[string]sarifArtifact `json:"originalUriBaseIds,omitempty"`
		ColumnKind         string                   `json:"columnKind"`
		Results            []sarifResult            `json:"results"`
	}
	sarifTool struct {
		Driver sarifDriver `json:"driver"`
	}
	sarifDriver struct {
		Name            string      `json:"name"`
		Version         string      `json:"version"`
		SemanticVersion string      `json:"semanticVersion,omitempty"` // SemVer 2.0, without the "v"
		InformationURI  string      `json:"informationUri"`
		Rules           []sarifRule `json:"rules"`
		// Notifications describes the notifications' descriptors (the
		// spec's reportingDescriptor, as for rules).
		Notifications []sarifRule `json:"notifications,omitempty"`
	}
	sarifRule struct {
		ID                   string            `json:"id"`
		Name                 string            `json:"name"`
		ShortDescription     sarifMessage      `json:"shortDescription"`
		FullDescription      sarifMessage      `json:"fullDescription"`
		HelpURI              string            `json:"helpUri,omitempty"`
		DefaultConfiguration *sarifRuleConfig  `json:"defaultConfiguration,omitempty"`
		Properties           map[string]string `json:"properties,omitempty"`
	}
	sarifRuleConfig struct {
		Enabled bool   `json:"enabled"`
		Level   string `json:"level"`
	}
	sarifMessage struct {
		Text string `json:"text"`
	}
	sarifInvocation struct {
		ExecutionSuccessful        bool                `json:"executionSuccessful"`
		ToolExecutionNotifications []sarifNotification `json:"toolExecutionNotifications,omitempty"`
	}
	sarifNotification struct {
		Level      string            `json:"level"`
		Message    sarifMessage      `json:"message"`
		Locations  []sarifLocation   `json:"locations,omitempty"`
		Descriptor *sarifDescriptor  `json:"descriptor,omitempty"`
		Properties map[string]string `json:"properties,omitempty"` // "package": the package ID
	}
	sarifDescriptor struct {
		ID    string `json:"id"`
		Index int    `json:"index"` // in tool.driver.notifications
	}
	sarifResult struct {
		RuleID              string             `json:"ruleId"`
		RuleIndex           *int               `json:"ruleIndex,omitempty"`
		Level               string             `json:"level"`
		Message             sarifMessage       `json:"message"`
		Locations           []sarifLocation    `json:"locations"`
		RelatedLocations    []sarifLocation    `json:"relatedLocations,omitempty"`
		Suppressions        []sarifSuppression `json:"suppressions,omitempty"`
		PartialFingerprints map[string]string  `json:"partialFingerprints"`
	}
	sarifLocation struct {
		ID               *int                   `json:"id,omitempty"`
		PhysicalLocation sarifPhysical          `json:"physicalLocation"`
		LogicalLocations []sarifLogicalLocation `json:"logicalLocations,omitempty"`
		Message          *sarifMessage          `json:"message,omitempty"`
	}
	sarifLogicalLocation struct {
		Name string `json:"name"`
		Kind string `json:"kind"`
	}
	sarifPhysical struct {
		ArtifactLocation sarifArtifact `json:"artifactLocation"`
		Region           sarifRegion   `json:"region"`
	}
	sarifArtifact struct {
		URI       string `json:"uri"`
		URIBaseID string `json:"uriBaseId,omitempty"`
	}
	sarifRegion struct {
		StartLine   int `json:"startLine"`
		StartColumn int `json:"startColumn,omitempty"`
		EndLine     int `json:"endLine,omitempty"`
		EndColumn   int `json:"endColumn,omitempty"`
	}
	sarifSuppression struct {
		Kind          string         `json:"kind"`
		Justification string         `json:"justification,omitempty"`
		Location      *sarifLocation `json:"location,omitempty"`
	}
)

// sarifWriter holds what converting positions needs: the module root for
// relative URIs and the source lines for UTF-16 columns.
type sarifWriter struct {
	res      *results
	lines    lineCache
	severity map[string]map[string]string // directory -> its configuration's severities
}

func writeSARIF(w io.Writer, res *results) error {
	sw := &sarifWriter{res: res, lines: newLineCache(), severity: map[string]map[string]string{}}
	// The catalogue's levels follow the configuration of the directory the
	// tool runs in; each result's level follows its own file's.
	var topSeverity map[string]string
	if s, err := res.source.ForDir(res.cwd); err == nil && s.Config != nil {
		topSeverity = s.Config.Severity
	}
	run := sarifRun{
		Tool: sarifTool{Driver: sarifDriver{
			Name:            progname,
			Version:         version(),
			SemanticVersion: strings.TrimPrefix(version(), "v"),
			InformationURI:  informationURI,
		}},
		OriginalURIBaseIDs: map[string]sarifArtifact{
			srcRoot: {URI: fileURI(res.root) + "/"},
		},
		// Go positions count bytes; SARIF's default unit is UTF-16 code
		// units, which is what the columns below are converted to.
		ColumnKind: "utf16CodeUnits",
		Results:    []sarifResult{},
	}
	index := map[string]int{}
	for _, r := range signals.Rules {
		index[r.ID] = len(run.Tool.Driver.Rules)
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRule{
			ID:               r.ID,
			Name:             r.Name,
			ShortDescription: sarifMessage{r.Title},
			FullDescription:  sarifMessage{r.Help},
			HelpURI:          r.URL(),
			DefaultConfiguration: &sarifRuleConfig{
				Enabled: r.Default,
				Level:   level(r, topSeverity),
			},
			Properties: map[string]string{"precision": string(r.Precision), "since": r.Since},
		})
	}

	inv := sarifInvocation{ExecutionSuccessful: len(res.errors) == 0 && len(res.broken) == 0 && len(res.skipped) == 0}
	if len(res.broken) > 0 || len(res.skipped) > 0 {
		run.Tool.Driver.Notifications = notificationDescriptors
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, sw.loadNotifications()...)
	}
	for _, e := range res.errors {
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, sarifNotification{
			Level:   "error",
			Message: sarifMessage{e.pkgID + ": " + e.analyzer + ": " + e.err},
		})
	}
	for _, f := range res.findings {
		// A rule that panicked lost its findings for that package: say so
		// where services look for tool problems, not only as a result.
		if strings.HasPrefix(f.diag.Message, "internal error:") {
			inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, sarifNotification{
				Level:   "error",
				Message: sarifMessage{f.pkgID + ": " + f.diag.Message},
			})
		}
	}
	run.Invocations = []sarifInvocation{inv}

	for _, list := range [][]*finding{res.findings, res.suppressed} {
		for _, f := range list {
			run.Results = append(run.Results, sw.result(f, index))
		}
	}
	return writeIndentedJSON(w, sarifLog{Schema: sarifSchema, Version: sarifVersion, Runs: []sarifRun{run}})
}

// The descriptors of the notifications for packages that were not
// analyzed, in tool.driver.notifications; a notification refers to one by
// ID and index.
var notificationDescriptors = []sarifRule{
	{
		ID:               "load-error",
		Name:             "PackageDoesNotLoad",
		ShortDescription: sarifMessage{"a package does not load or type-check"},
		FullDescription: sarifMessage{"go list, the parser or the type checker reported an error in the package, at the notification's location: " +
			"the package and every package importing it are not analyzed, and the run exits 1."},
	},
	{
		ID:               "not-analyzed",
		Name:             "ImportDoesNotLoad",
		ShortDescription: sarifMessage{"a package is not analyzed because an import does not load"},
		FullDescription:  sarifMessage{"The package loads, but one of its imports does not (see that import's load-error notification), so it is not analyzed."},
	},
}

// loadNotifications says, for each package that does not load, each of its
// errors at its position, and for each package skipped because of one,
// which imports caused it.
func (sw *sarifWriter) loadNotifications() []sarifNotification {
	var out []sarifNotification
	for _, b := range sw.res.broken {
		for _, e := range b.errs {
			n := sarifNotification{
				Level: "error",
				Message: sarifMessage{"package " + b.pkgID + " does not load; it and the packages importing it are not analyzed: " +
					shortenPaths(e.String(), sw.res.root)},
				Descriptor: &sarifDescriptor{ID: notificationDescriptors[0].ID, Index: 0},
				Properties: map[string]string{"package": b.pkgID},
			}
			if e.pos.Filename != "" && e.pos.Line > 0 {
				n.Locations = []sarifLocation{{PhysicalLocation: sw.physical(e.pos.Filename, e.pos.Line, e.pos.Column, 0, 0)}}
			}
			out = append(out, n)
		}
	}
	for _, s := range sw.res.skipped {
		out = append(out, sarifNotification{
			Level:      "error",
			Message:    sarifMessage{"package " + s.pkgID + " is not analyzed because an import does not load: " + strings.Join(s.imports, ", ")},
			Descriptor: &sarifDescriptor{ID: notificationDescriptors[1].ID, Index: 1},
			Properties: map[string]string{"package": s.pkgID},
		})
	}
	return out
}

// level is a rule's SARIF level: a severity override from the config, else
// warning for a rule that is on by default and note for an opt-in one.
func level(r signals.Rule, severity map[string]string) string {
	for k, v := range severity {
		if o, ok := signals.Lookup(k); ok && o.ID == r.ID {
			return v
		}
	}
	if r.Default {
		return "warning"
	}
	return "note"
}

func (sw *sarifWriter) result(f *finding, index map[string]int) sarifResult {
	dir := filepath.Dir(f.pos.Filename)
	severity, ok := sw.severity[dir]
	if !ok {
		if s, err := sw.res.source.ForDir(dir); err == nil && s.Config != nil {
			severity = s.Config.Severity
		}
		sw.severity[dir] = severity
	}
	lvl := "warning"
	if f.rule.ID != "" {
		lvl = level(f.rule, severity)
	}
	r := sarifResult{
		RuleID:              f.ruleID,
		Level:               lvl,
		Message:             sarifMessage{f.diag.Message},
		PartialFingerprints: map[string]string{fingerprintKey: f.fingerprint},
	}
	if i, ok := index[f.ruleID]; ok {
		r.RuleIndex = &i
	}
	loc := sarifLocation{PhysicalLocation: sw.physical(f.pos.Filename, f.pos.Line, f.pos.Column, f.end.Line, f.end.Column)}
	if f.fn != "" {
		loc.LogicalLocations = []sarifLogicalLocation{{Name: f.fn, Kind: "function"}}
	}
	r.Locations = []sarifLocation{loc}
	for i, rel := range f.diag.Related {
		start := f.fset.Position(rel.Pos)
		end := f.fset.Position(rel.End)
		if !end.IsValid() {
			end = start
		}
		id := i + 1
		r.RelatedLocations = append(r.RelatedLocations, sarifLocation{
			ID:               &id,
			PhysicalLocation: sw.physical(start.Filename, start.Line, start.Column, end.Line, end.Column),
			Message:          &sarifMessage{rel.Message},
		})
	}
	if f.by != nil {
		dloc := sarifLocation{PhysicalLocation: sw.physical(f.by.File, f.by.Line, 0, 0, 0)}
		r.Suppressions = []sarifSuppression{{Kind: "inSource", Justification: f.by.Reason, Location: &dloc}}
	}
	return r
}

// physical builds a location; columns are 1-based byte columns from
// go/token, converted to UTF-16 code units. A zero column means the whole
// line.
func (sw *sarifWriter) physical(filename string, line, col, endLine, endCol int) sarifPhysical {
	art := sarifArtifact{URI: fileURI(filename)}
	if rel := sw.res.relPath(filename); !filepath.IsAbs(filepath.FromSlash(rel)) {
		art = sarifArtifact{URI: (&url.URL{Path: rel}).EscapedPath(), URIBaseID: srcRoot}
	}
	reg := sarifRegion{StartLine: max(line, 1)}
	if col > 0 {
		reg.StartColumn = sw.utf16Col(filename, line, col)
		if endLine >= line && endCol > 0 {
			reg.EndLine = endLine
			reg.EndColumn = sw.utf16Col(filename, endLine, endCol)
		}
	}
	return sarifPhysical{ArtifactLocation: art, Region: reg}
}

func (sw *sarifWriter) utf16Col(filename string, line, col int) int {
	text := sw.lines.line(filename, line)
	if col-1 > len(text) {
		return col // the file changed under us; keep the byte column
	}
	return len(utf16.Encode([]rune(text[:col-1]))) + 1
}

func fileURI(path string) string {
	p := filepath.ToSlash(path)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // a Windows drive path
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}
