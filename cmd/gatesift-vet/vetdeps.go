package main

// Dependency units under go vet -vettool.
//
// go vet runs the tool once per package of the whole closure, standard
// library included; every package it was not asked to check is a
// dependency unit (VetxOnly): the tool only writes the package's types and
// facts for its importers. Measured on asynq (257 units, 246 of them
// dependencies), those units were most of what the tool cost over go vet's
// own: unitchecker keeps in a VetxOnly unit every analyzer that requires a
// fact-producing one (x/tools issue 443099), so every rule ran its whole
// analysis on every dependency for findings nobody reads, and each
// standard-library unit parsed the knowledge base and type-checked function
// bodies that no analyzer looks at. The two paths below remove that work
// without changing any fact.

import (
	"bytes"
	endian "encoding/binary" // not "binary": the e2e tests have a func binary
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	gobuild "go/build" // not "build": the e2e tests have a func build
	"go/parser"
	"go/token"
	"go/types"
	"os"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/unitchecker"
	"golang.org/x/tools/go/gcexportdata"

	"github.com/gatesift/gatesift-vet/analyzers/effects"
)

// factsOnly returns the analyzers to hand unitchecker for a dependency
// unit. An analyzer that exports facts, or whose result one of those needs,
// is kept as it is. Every other one is replaced by a shell with the same
// name, doc and flags (so go vet's flags parse and select the same
// analyzers), whose Run does nothing and which requires only the shells or
// analyzers of its requirements that lead to facts. The facts computed are
// then exactly those unitchecker computed before: the same fact analyzers
// run, on the same requirements; only reports that a VetxOnly unit throws
// away are no longer computed.
func factsOnly(roots []*analysis.Analyzer) []*analysis.Analyzer {
	usesFacts := map[*analysis.Analyzer]bool{}
	var uses func(a *analysis.Analyzer) bool
	uses = func(a *analysis.Analyzer) bool {
		if v, ok := usesFacts[a]; ok {
			return v
		}
		v := len(a.FactTypes) > 0
		for _, r := range a.Requires {
			v = uses(r) || v
		}
		usesFacts[a] = v
		return v
	}
	// needed: the fact producers and everything below them.
	needed := map[*analysis.Analyzer]bool{}
	var need func(a *analysis.Analyzer)
	need = func(a *analysis.Analyzer) {
		if needed[a] {
			return
		}
		needed[a] = true
		for _, r := range a.Requires {
			need(r)
		}
	}
	var visit func(a *analysis.Analyzer)
	seen := map[*analysis.Analyzer]bool{}
	visit = func(a *analysis.Analyzer) {
		if seen[a] {
			return
		}
		seen[a] = true
		if len(a.FactTypes) > 0 {
			need(a)
		}
		for _, r := range a.Requires {
			visit(r)
		}
	}
	for _, a := range roots {
		uses(a)
		visit(a)
	}
	shells := map[*analysis.Analyzer]*analysis.Analyzer{}
	var shell func(a *analysis.Analyzer) *analysis.Analyzer
	shell = func(a *analysis.Analyzer) *analysis.Analyzer {
		if needed[a] {
			return a
		}
		if s, ok := shells[a]; ok {
			return s
		}
		s := &analysis.Analyzer{
			Name:  a.Name,
			Doc:   a.Doc,
			URL:   a.URL,
			Flags: a.Flags,
			Run:   func(*analysis.Pass) (any, error) { return nil, nil },
		}
		for _, r := range a.Requires {
			if usesFacts[r] {
				s.Requires = append(s.Requires, shell(r))
			}
		}
		shells[a] = s
		return s
	}
	out := make([]*analysis.Analyzer, len(roots))
	for i, a := range roots {
		out[i] = shell(a)
	}
	return out
}

// readUnitConfig reads a *.cfg unit as unitchecker does.
func readUnitConfig(unit string) (*unitchecker.Config, error) {
	data, err := os.ReadFile(unit)
	if err != nil {
		return nil, err
	}
	cfg := new(unitchecker.Config)
	if err := json.Unmarshal(data, cfg); err != nil {
		return nil, err
	}
	return cfg, nil
}

// isStdDependency reports whether a unit is a standard-library package go
// vet runs the tool on for facts only. The test is the analyzers' own
// (effects.InGOROOT on the first file): they export no fact and report
// nothing on such a package, so its vetx file holds its types and no fact.
func isStdDependency(cfg *unitchecker.Config) bool {
	return cfg.VetxOnly && len(cfg.GoFiles) > 0 && effects.InGOROOT(cfg.GoFiles[0]) && cfg.VetxOutput != ""
}

// vetxMagic and the layout below are unitchecker's vetx file (x/tools
// v0.52: "vetx", the lengths of the types and the facts as little-endian
// uint32, the indexed export data, the gob-encoded facts). The end-to-end
// tests run go vet -vettool over packages whose importers read these files,
// so a change of the layout in a new x/tools fails them.
const vetxMagic = "vetx"

// writeStdVetx writes the vetx file of a standard-library dependency unit
// the way unitchecker would, from a type-check of its declarations only:
// export data holds no function body, so skipping them changes no byte of
// it, and the fact part is empty (no analyzer exports a fact there, and the
// package's imports, standard library too, carry none to re-export).
func writeStdVetx(cfg *unitchecker.Config) error {
	fset := token.NewFileSet()
	files := make([]*ast.File, 0, len(cfg.GoFiles))
	for _, name := range cfg.GoFiles {
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files = append(files, f)
	}
	imports := map[string]*types.Package{}
	importer := importerFunc(func(importPath string) (*types.Package, error) {
		path, ok := cfg.ImportMap[importPath]
		if !ok {
			return nil, fmt.Errorf("can't resolve import %q", importPath)
		}
		if path == "unsafe" {
			return types.Unsafe, nil
		}
		if pkg, ok := imports[path]; ok && pkg.Complete() {
			return pkg, nil
		}
		file, ok := cfg.PackageVetx[path]
		if !ok {
			return nil, fmt.Errorf("no package vetx file for %q", path)
		}
		typesData, factsData, err := readVetx(file)
		if err != nil {
			return nil, err
		}
		if len(factsData) > 0 {
			// Not the case this path was written for: let unitchecker
			// decode and re-export them.
			return nil, fmt.Errorf("%s: standard-library import %q carries facts", cfg.ImportPath, path)
		}
		return gcexportdata.Read(bytes.NewReader(append([]byte{'i'}, typesData...)), fset, imports, path)
	})
	tc := &types.Config{
		Importer:         importer,
		Sizes:            types.SizesFor("gc", gobuild.Default.GOARCH),
		GoVersion:        cfg.GoVersion,
		IgnoreFuncBodies: true,
	}
	pkg, err := tc.Check(cfg.ImportPath, fset, files, nil)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	buf.WriteString(vetxMagic)
	buf.Write(make([]byte, 8))
	if err := gcexportdata.Write(&buf, fset, pkg); err != nil {
		return err
	}
	data := buf.Bytes()
	// gcexportdata.Write puts the indexed format's 'i' in front, which
	// unitchecker's reader does not expect.
	data = append(data[:12], data[13:]...)
	endian.LittleEndian.PutUint32(data[4:8], uint32(len(data)-12))
	if cfg.Stdout != "" {
		// unitchecker creates it; go vet copies it to its output.
		if err := os.WriteFile(cfg.Stdout, nil, 0o666); err != nil {
			return err
		}
	}
	return os.WriteFile(cfg.VetxOutput, data, 0o666)
}

// readVetx splits a vetx file into its types and facts.
func readVetx(file string) (typesData, factsData []byte, err error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, nil, err
	}
	if len(data) < 12 || string(data[:4]) != vetxMagic {
		return nil, nil, errors.New(file + ": not a vetx file")
	}
	nt := uint64(endian.LittleEndian.Uint32(data[4:8]))
	nf := uint64(endian.LittleEndian.Uint32(data[8:12]))
	if 12+nt+nf > uint64(len(data)) {
		return nil, nil, errors.New(file + ": vetx lengths past the end")
	}
	return data[12 : 12+nt], data[12+nt : 12+nt+nf], nil
}
