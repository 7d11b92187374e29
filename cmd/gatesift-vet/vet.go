package main

import (
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/tools/go/analysis/unitchecker"

	"github.com/gatesift/gatesift-vet/config"
)

// printFullVersion answers go vet's -V=full with "gatesift-vet version
// v0.1.0 buildID=<hash>". cmd/go keys its vet result cache on that answer:
// for a version without "devel" it takes the whole line as the tool's ID
// (cmd/go/internal/work/buildid.go, toolID), so the hash stays in the key.
// The hash mixes the executable's own bytes with the digest of every
// .gatesift.yaml of the module go vet runs in: rebuilding the tool or
// editing a config then invalidates cached results, which would otherwise
// hide the change.
//
// A malformed config does not stop the answer: the digest covers the
// file's bytes whatever they are, and each package's run reports the
// problem (checkUnitConfig). Failing here instead made cmd/go abort with
// "go: error obtaining buildID" followed by "unlinkat ... directory not
// empty" (Go 1.26), burying the config error under go-command noise.
func printFullVersion(stdout, stderr io.Writer) int {
	exe, err := os.Executable()
	if err != nil {
		return fatalf(stderr, "%v", err)
	}
	f, err := os.Open(exe)
	if err != nil {
		return fatalf(stderr, "%v", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return fatalf(stderr, "%v", err)
	}
	cwd, err := os.Getwd()
	if err != nil {
		return fatalf(stderr, "%v", err)
	}
	// The command line is not parsed yet: the digest covers the files
	// discovery finds (a -config file is in go vet's flags, also keyed).
	// A broken file is reported by each package's run, not here: go vet
	// stops with "error obtaining buildID" when -V=full fails.
	var discovery config.Source
	fmt.Fprintf(h, "\x00config %s", discovery.DigestFiles(discovery.Files(cwd)))
	fmt.Fprintf(stdout, "%s version %s buildID=%x\n", progname, version(), h.Sum(nil))
	return exitOK
}

// runVet speaks the unitchecker protocol for go vet -vettool. Our own flags
// live on flag.CommandLine, so unitchecker parses them with its own and
// lists them for -flags (go vet accepts only the flags a tool lists).
func runVet(args []string) {
	var cf commonFlags
	cf.register(flag.CommandLine)

	// unitchecker parses the command line and analyzes in one call, but
	// -config-digest and -config must be checked before any analysis, so
	// the command line is read once more here on a throwaway flag set that
	// knows every flag unitchecker will define.
	var pre commonFlags
	var src config.Source
	dependency := false
	if prescan(args, &pre) {
		unit := ""
		if u := args[len(args)-1]; strings.HasSuffix(u, ".cfg") {
			unit = u
		}
		dependency = isDependency(unit)
		if dependency && testAnalyzers == nil {
			// A standard-library package needs no analysis: write its
			// types (vetdeps.go). Anything unexpected falls back to
			// unitchecker, which then reports it as before.
			if cfg, err := readUnitConfig(unit); err == nil && isStdDependency(cfg) && writeStdVetx(cfg) == nil {
				os.Exit(exitOK)
			}
		}
		if dependency {
			// go vet also runs the tool on every dependency (the standard
			// library, the module cache) for facts only; it runs there in
			// that package's directory, whose config digest is not the one
			// the user pinned, and findings are not reported there.
			pre.configDigest = ""
		}
		var err error
		if src, err = pre.source(true); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", progname, err)
			os.Exit(exitTool)
		}
		if unit != "" {
			if err := checkUnitConfig(unit, src); err != nil {
				// Print it once, without the per-analyzer repetition
				// unitchecker would produce (every rule fails the same way).
				fmt.Fprintln(os.Stderr, err)
				os.Exit(exitTool)
			}
		}
	}
	all := analyzers(src)
	if dependency {
		all = factsOnly(all)
	}
	unitchecker.Main(all...)
}

// prescan parses args into pre, reporting false when the command line does
// not parse (unitchecker then reports the problem itself).
func prescan(args []string, pre *commonFlags) bool {
	fs := flag.NewFlagSet("prescan", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	pre.register(fs)
	// The flags analysisflags.Parse defines in multi mode: an enable flag
	// per analyzer, their own flags, and the standard ones. Only whether a
	// flag is boolean matters here, so each gets a throwaway value.
	for _, a := range analyzers(config.Source{}) {
		if fs.Lookup(a.Name) != nil {
			continue // analyzer names need not be unique
		}
		fs.Bool(a.Name, false, "")
		a.Flags.VisitAll(func(f *flag.Flag) {
			if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
				fs.Bool(a.Name+"."+f.Name, false, "")
			} else {
				fs.String(a.Name+"."+f.Name, "", "")
			}
		})
	}
	for _, name := range []string{"flags", "V", "json", "fix", "diff", "source", "v", "all"} {
		fs.Bool(name, false, "")
	}
	fs.String("c", "", "")
	fs.String("tags", "", "")
	// A flag a newer x/tools adds must not make the -config-digest check
	// silently disappear: learn it as a boolean and parse again.
	for range 20 {
		err := fs.Parse(args)
		if err == nil {
			return true
		}
		name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -")
		if !ok || fs.Lookup(name) != nil {
			return false
		}
		fs.Bool(name, false, "")
	}
	return false
}

// isDependency reports whether the *.cfg unit asks for facts only
// (VetxOnly): a dependency of the packages go vet was asked to check.
func isDependency(unit string) bool {
	if unit == "" {
		return false
	}
	data, err := os.ReadFile(unit)
	if err != nil {
		return false
	}
	var cfg struct{ VetxOnly bool }
	return json.Unmarshal(data, &cfg) == nil && cfg.VetxOnly
}

// checkUnitConfig resolves the configuration for the package a *.cfg file
// describes, so a malformed .gatesift.yaml is a clear tool error.
func checkUnitConfig(unit string, src config.Source) error {
	data, err := os.ReadFile(unit)
	if err != nil {
		return nil // unitchecker reports it
	}
	var cfg struct{ GoFiles []string }
	if json.Unmarshal(data, &cfg) != nil || len(cfg.GoFiles) == 0 {
		return nil
	}
	_, err = src.ForDir(filepath.Dir(cfg.GoFiles[0]))
	return err
}
