package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/gatesift/gatesift-vet/analyzers/settings"
	"github.com/gatesift/gatesift-vet/analyzers/suite"
	"github.com/gatesift/gatesift-vet/config"
	"github.com/gatesift/gatesift-vet/signals"
)

// The exit codes, a contract with CI scripts (see doc.go and -help).
const (
	exitOK       = 0 // no findings (or -json / SARIF without -fail-on-findings)
	exitTool     = 1 // tool, config or load error
	exitFindings = 3 // findings reported (the singlechecker convention)
)

const progname = "gatesift-vet"

// testAnalyzers is a hook for the end-to-end tests: a file built only with
// the gatesift_testhook tag adds a rule that panics, so the tests can see a
// panic become an internal-error diagnostic in a real binary. It is nil in
// every build users get.
var testAnalyzers func() []*analysis.Analyzer

// analyzers is the set every mode runs: the suite, plus the test hook's and
// extra roots, bound together to the configuration source of the command
// line (one Bind: a fact type may have one analyzer only).
func analyzers(src config.Source, extra ...*analysis.Analyzer) []*analysis.Analyzer {
	all := suite.All()
	if testAnalyzers != nil {
		all = append(all, testAnalyzers()...)
	}
	return settings.Bind(append(all, extra...), src)
}

func main() {
	args := os.Args[1:]
	// go vet asks every tool for -V=full before anything else; it is
	// answered the same way in both modes, before any flag parsing, because
	// unitchecker's own answer would not include the config digest.
	if hasFullVersionFlag(args) {
		os.Exit(printFullVersion(os.Stdout, os.Stderr))
	}
	if isVetInvocation(args) {
		runVet(args) // does not return
	}
	os.Exit(runStandalone(args, os.Stdout, os.Stderr))
}

// isVetInvocation reports whether go vet (or another build system speaking
// the unitchecker protocol) runs the tool: the last argument is a *.cfg unit
// description, or the caller asks for the flag list.
func isVetInvocation(args []string) bool {
	if len(args) > 0 && strings.HasSuffix(args[len(args)-1], ".cfg") {
		return true
	}
	for _, a := range args {
		if a == "--" {
			break
		}
		if name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "="); strings.HasPrefix(a, "-") && name == "flags" {
			return true
		}
	}
	return false
}

func hasFullVersionFlag(args []string) bool {
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "-V=full" || a == "--V=full" {
			return true
		}
	}
	return false
}

// commonFlags are the flags both modes share; under go vet they reach the
// tool through go vet's command line, so -flags lists them.
type commonFlags struct {
	checks       string
	profile      string
	configFile   string
	configDigest string
}

func (c *commonFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.checks, "checks", "", "the rules to run, after the config file: `LE3*` only those, default,LE3003 adds to the defaults, -LE1002 removes from them (IDs or names, * globs, all, none)")
	fs.StringVar(&c.profile, "profile", "", "evidence profile: `default` or strict (strict also reports idempotent-only work)")
	fs.StringVar(&c.configFile, "config", "", "use this `file` instead of discovering .gatesift.yaml (an absolute path under go vet)")
	fs.StringVar(&c.configDigest, "config-digest", "", "fail unless the configuration digest is `D` (see -print-config-digest); under go vet it also keys the result cache")
}

// source validates the flags and returns the configuration source the
// analyzers are bound to, before any package is analyzed.
func (c *commonFlags) source(vet bool) (config.Source, error) {
	var src config.Source
	if c.checks != "" {
		if _, err := signals.ParseChecks(c.checks); err != nil {
			return src, fmt.Errorf("-checks: %v", err)
		}
	}
	if _, err := signals.ParseProfile(c.profile); err != nil {
		return src, fmt.Errorf("-profile: %v", err)
	}
	file := c.configFile
	if file != "" {
		if vet && !filepath.IsAbs(file) {
			// go vet runs the tool in each package's directory, so a
			// relative path would name a different file per package.
			return src, fmt.Errorf("-config %s: under go vet the path must be absolute", file)
		}
		abs, err := filepath.Abs(file)
		if err != nil {
			return src, err
		}
		data, err := os.ReadFile(abs)
		if err != nil {
			return src, fmt.Errorf("-config: %v", err)
		}
		if _, err := config.Parse(abs, data); err != nil {
			return src, err
		}
		file = abs
	}
	src.Overrides = config.Overrides{Checks: c.checks, Profile: c.profile, File: file}
	if c.configDigest != "" {
		cwd, err := os.Getwd()
		if err != nil {
			return src, err
		}
		if got := src.Digest(cwd); got != c.configDigest {
			return src, fmt.Errorf("the configuration changed: -config-digest=%s, but the .gatesift.yaml files now digest to %s", c.configDigest, got)
		}
	}
	return src, nil
}

func fatalf(stderr io.Writer, format string, args ...any) int {
	fmt.Fprintf(stderr, progname+": "+format+"\n", args...)
	return exitTool
}
