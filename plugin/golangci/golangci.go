// Package golangci is the golangci-lint v2 module plugin of gatesift-vet.
// A custom golangci-lint built with it (golangci-lint custom, see
// docs/golangci-lint.md) runs every gatesift-vet rule as the linter
// "gatesift", with the same findings as the gatesift-vet binary.
//
// The plugin settings are the .gatesift.yaml schema written under
// linters.settings.custom.gatesift.settings. checks and profile are applied
// like the binary's -checks and -profile flags: on top of whatever
// .gatesift.yaml the analysed package finds, so a project keeps one config
// file for every driver. Any other key (tests, generated, severity,
// knowledge) makes the settings a complete configuration that replaces
// .gatesift.yaml discovery, because package config has one override, not a
// merge of two. exclude is refused: its globs are relative to the
// config file's directory, which plugin settings do not have; golangci-lint's
// own linters.exclusions.paths does the same job.
package golangci

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/golangci/plugin-module-register/register"
	"golang.org/x/tools/go/analysis"
	"gopkg.in/yaml.v3"

	"github.com/gatesift/gatesift-vet/analyzers/settings"
	"github.com/gatesift/gatesift-vet/analyzers/suite"
	"github.com/gatesift/gatesift-vet/config"
)

// Name is the linter name users enable in .golangci.yml.
const Name = "gatesift"

func init() {
	register.Plugin(Name, New)
}

// Plugin is the register.LinterPlugin of gatesift-vet. Each Plugin holds
// its own analyzers, bound to its own settings: two plugins in one process
// (two golangci-lint configurations, tests) do not share a configuration.
type Plugin struct {
	// Config is the decoded settings (never nil).
	Config *config.Config
	// Source is how the analyzers resolve each package's configuration.
	Source    config.Source
	analyzers []*analysis.Analyzer
}

// New decodes golangci-lint's plugin settings (a map decoded from YAML, or
// nil when there are none) into the plugin's own configuration source. A
// settings error is returned, so golangci-lint stops with it instead of
// running with a configuration the user did not write.
func New(raw any) (register.LinterPlugin, error) {
	c, err := decode(raw)
	if err != nil {
		return nil, err
	}
	if len(c.Exclude) > 0 {
		return nil, fmt.Errorf("%s plugin settings: exclude is not supported here (its globs need a config file's directory); "+
			"use golangci-lint's linters.exclusions.paths or a %s", Name, config.FileName)
	}
	p := &Plugin{Config: c}
	if onlyOverrides(c) {
		p.Source.Checks = strings.Join(c.Checks, ",")
		p.Source.Profile = c.Profile
	} else {
		p.Source.Config = c
	}
	p.analyzers = settings.Bind(suite.All(), p.Source)
	return p, nil
}

// decode parses the settings with the .gatesift.yaml parser, strict about
// unknown keys. The map golangci-lint hands over is re-encoded as YAML, one
// key a line, so an error's line names the key; the line is quoted too,
// since the user wrote it in .golangci.yml, not here.
func decode(raw any) (*config.Config, error) {
	if raw == nil {
		return new(config.Config), nil
	}
	// Through JSON first: it rejects what is no configuration at all (a
	// func, a channel), and yields plain maps and slices for yaml.
	data, err := json.Marshal(raw)
	if err != nil {
		return nil, fmt.Errorf("%s plugin settings: %v", Name, err)
	}
	var plain any
	if err := json.Unmarshal(data, &plain); err != nil {
		return nil, fmt.Errorf("%s plugin settings: %v", Name, err)
	}
	if data, err = yaml.Marshal(plain); err != nil {
		return nil, fmt.Errorf("%s plugin settings: %v", Name, err)
	}
	source := Name + " plugin settings"
	c, err := config.Parse(source, data)
	if err != nil {
		return nil, quoteLine(err, source, data)
	}
	return c, nil
}

// quoteLine appends the settings line an error "source:N: ..." points at.
func quoteLine(err error, source string, data []byte) error {
	rest, ok := strings.CutPrefix(err.Error(), source+":")
	if !ok {
		return err
	}
	num, _, ok := strings.Cut(rest, ":")
	n, convErr := strconv.Atoi(num)
	lines := strings.Split(string(data), "\n")
	if !ok || convErr != nil || n < 1 || n > len(lines) {
		return err
	}
	return fmt.Errorf("%v (at %q)", err, strings.TrimSpace(lines[n-1]))
}

// onlyOverrides reports whether the settings hold nothing but checks and
// profile, the two settings that merge with a discovered .gatesift.yaml.
func onlyOverrides(c *config.Config) bool {
	rest := *c
	rest.Checks, rest.Profile = nil, ""
	return reflect.ValueOf(rest).IsZero()
}

// BuildAnalyzers returns every gatesift-vet analyzer, in registry order,
// bound to the plugin's settings. Rules the settings disable still run as
// analyzers (others may require them, and their facts are needed) but
// report nothing, exactly as in the binary.
func (p *Plugin) BuildAnalyzers() ([]*analysis.Analyzer, error) {
	return p.analyzers, nil
}

// GetLoadMode asks for type information: every rule needs types, and the
// facts that carry effects across packages need the dependencies too.
func (p *Plugin) GetLoadMode() string {
	return register.LoadModeTypesInfo
}
