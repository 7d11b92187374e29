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
// .gatesift.yaml discovery, because package config has one override file,
// not a merge of two. exclude is refused: its globs are relative to the
// config file's directory, which plugin settings do not have; golangci-lint's
// own linters.exclusions.paths does the same job.
package golangci

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/golangci/plugin-module-register/register"
	"golang.org/x/tools/go/analysis"
	"gopkg.in/yaml.v3"

	"github.com/gatesift/gatesift-vet/analyzers/suite"
	"github.com/gatesift/gatesift-vet/config"
)

// Name is the linter name users enable in .golangci.yml.
const Name = "gatesift"

func init() {
	register.Plugin(Name, New)
}

// Plugin is the register.LinterPlugin of gatesift-vet.
type Plugin struct {
	// Config is the decoded settings (never nil).
	Config *config.Config
	// File is the configuration file written for settings that replace
	// discovery, or "".
	File string
}

// New decodes golangci-lint's plugin settings (a map decoded from YAML, or
// nil when there are none) and applies them to package config, which every
// rule consults. A settings error is returned, so golangci-lint stops with
// it instead of running with a configuration the user did not write.
func New(settings any) (register.LinterPlugin, error) {
	c := new(config.Config)
	if settings != nil {
		data, err := json.Marshal(settings)
		if err != nil {
			return nil, fmt.Errorf("%s plugin settings: %v", Name, err)
		}
		if c, err = config.ParseJSON(Name+" plugin settings", data); err != nil {
			return nil, err
		}
	}
	if len(c.Exclude) > 0 {
		return nil, fmt.Errorf("%s plugin settings: exclude is not supported here (its globs need a config file's directory); "+
			"use golangci-lint's linters.exclusions.paths or a %s", Name, config.FileName)
	}
	p := &Plugin{Config: c}
	if onlyOverrides(c) {
		config.Overrides.Checks = strings.Join(c.Checks, ",")
		config.Overrides.Profile = c.Profile
		return p, nil
	}
	file, err := writeConfig(c)
	if err != nil {
		return nil, err
	}
	p.File = file
	config.Overrides.File = file
	return p, nil
}

// onlyOverrides reports whether the settings hold nothing but checks and
// profile, the two settings that merge with a discovered .gatesift.yaml.
func onlyOverrides(c *config.Config) bool {
	rest := *c
	rest.Checks, rest.Profile = nil, ""
	return reflect.ValueOf(rest).IsZero()
}

// writeConfig writes the settings as a .gatesift.yaml in a directory of its
// own, for config.Overrides.File. The file outlives New on purpose: the
// rules read it when golangci-lint analyses the first package, and the
// process ends soon after.
func writeConfig(c *config.Config) (string, error) {
	data, err := yaml.Marshal(c)
	if err != nil {
		return "", fmt.Errorf("%s plugin settings: %v", Name, err)
	}
	dir, err := os.MkdirTemp("", "gatesift-golangci-")
	if err != nil {
		return "", fmt.Errorf("%s plugin settings: %v", Name, err)
	}
	file := filepath.Join(dir, config.FileName)
	if err := os.WriteFile(file, data, 0o600); err != nil {
		return "", fmt.Errorf("%s plugin settings: %v", Name, err)
	}
	// Parse it back: the file must mean what the settings meant.
	if _, err := config.Parse(file, data); err != nil {
		return "", fmt.Errorf("%s plugin settings: %v", Name, err)
	}
	return file, nil
}

// BuildAnalyzers returns every gatesift-vet analyzer, in registry order.
// Rules the settings disable still run as analyzers (others may require
// them) but report nothing, exactly as in the binary.
func (p *Plugin) BuildAnalyzers() ([]*analysis.Analyzer, error) {
	return suite.All(), nil
}

// GetLoadMode asks for type information: every rule needs types, and the
// facts that carry effects across packages need the dependencies too.
func (p *Plugin) GetLoadMode() string {
	return register.LoadModeTypesInfo
}
