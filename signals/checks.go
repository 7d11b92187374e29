package signals

import (
	"fmt"
	"path"
	"strings"
)

// Checks is a parsed -checks / config "checks" list, in staticcheck's
// manner: a list that starts with a rule names the rules that run ("LE1*"
// runs only the LE1xxx rules); "default" (or "inherit") stands for the
// registry defaults, so "default,LE3003" adds LE3003; a list that starts
// with a removal amends the defaults ("-LE1002" is the defaults without
// LE1002); "all" and "none" switch everything. Terms apply in order.
// Patterns match IDs or analyzer names, with * as in path.Match.
type Checks []checkTerm

type checkTerm struct {
	enable  bool
	pattern string
}

// ParseChecks parses a comma-separated list. An entry that matches no rule is
// an error, so a typo never silently disables the gate.
func ParseChecks(spec string) (Checks, error) {
	var cs Checks
	for _, raw := range strings.Split(spec, ",") {
		term := strings.TrimSpace(raw)
		if term == "" {
			continue
		}
		enable := true
		if strings.HasPrefix(term, "-") {
			enable, term = false, term[1:]
		}
		if term == "none" {
			enable, term = !enable, "all"
		}
		if term == "inherit" {
			term = "default"
		}
		if term != "all" && term != "default" && !matchesAny(term) {
			return nil, fmt.Errorf("checks: %q matches no rule (see gatesift-vet -list)", raw)
		}
		if len(cs) == 0 && enable && term != "default" && term != "all" {
			// A list that starts by naming rules selects them alone.
			cs = append(cs, checkTerm{enable: false, pattern: "all"})
		}
		cs = append(cs, checkTerm{enable: enable, pattern: term})
	}
	return cs, nil
}

func matchesAny(pattern string) bool {
	for _, r := range Rules {
		if matchRule(pattern, r) {
			return true
		}
	}
	return false
}

func matchRule(pattern string, r Rule) bool {
	if pattern == "all" {
		return true
	}
	for _, s := range []string{r.ID, r.Name} {
		if ok, _ := path.Match(strings.ToUpper(pattern), strings.ToUpper(s)); ok {
			return true
		}
	}
	return false
}

// Enabled reports whether rule r is on, starting from its default.
func (cs Checks) Enabled(r Rule) bool {
	on := r.Default
	for _, t := range cs {
		switch {
		case t.pattern == "default":
			on = r.Default // "-default" is not meaningful; treat both as a reset
		case matchRule(t.pattern, r):
			on = t.enable
		}
	}
	return on
}

// Profile selects how much evidence is enough.
type Profile string

const (
	// ProfileDefault reports duplicated outcomes only.
	ProfileDefault Profile = "default"
	// ProfileStrict also reports idempotent-only work (duplicated load).
	ProfileStrict Profile = "strict"
)

// ParseProfile accepts "", "default" or "strict".
func ParseProfile(s string) (Profile, error) {
	switch Profile(s) {
	case "", ProfileDefault:
		return ProfileDefault, nil
	case ProfileStrict:
		return ProfileStrict, nil
	}
	return "", fmt.Errorf("profile %q: want default or strict", s)
}
