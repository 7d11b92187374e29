package signals

import (
	"bytes"
	"errors"
	"fmt"
	"go/types"
	"io"
	"sort"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
)

// API names one function or method of a known package, with the positions
// of the arguments a rule cares about. The same shape serves every section
// of the knowledge base; Kind and the argument roles mean what the section
// says.
type API struct {
	// Pkg is the import path ("database/sql", "github.com/redis/go-redis/v9").
	Pkg string `yaml:"pkg" json:"pkg"`
	// Recv is the receiver's type name without "*": "" for a package-level
	// function, "*" for a method of any type in Pkg (go-redis commands live on
	// an unexported type promoted into every client).
	Recv string `yaml:"recv,omitempty" json:"recv,omitempty"`
	// Name is the function or method name; a trailing "*" matches a prefix
	// ("Exec*" matches Exec and ExecContext).
	Name string `yaml:"name" json:"name"`
	// Kind classifies the API within its section (scheduler: "ticker",
	// "cron"...; effect: "insert", "send", "sql"...).
	Kind string `yaml:"kind,omitempty" json:"kind,omitempty"`
	// Args maps a role ("fn", "period", "query", "key", "ttl"...) to the
	// argument index, counting from 0 after the receiver.
	Args map[string]int `yaml:"args,omitempty" json:"args,omitempty"`
	// Idempotent marks effects that duplicate load, not outcomes.
	Idempotent bool `yaml:"idempotent,omitempty" json:"idempotent,omitempty"`
	// Values lists the constant values of an argument for which the entry
	// holds (the driver names of an embedded SQL engine, engines.yaml).
	Values []string `yaml:"values,omitempty" json:"values,omitempty"`
	// Note says why the entry is there, for -list -v and reviewers.
	Note string `yaml:"note,omitempty" json:"note,omitempty"`
}

// Arg returns the index of the argument with the given role.
func (a *API) Arg(role string) (int, bool) {
	i, ok := a.Args[role]
	return i, ok
}

func (a *API) String() string {
	if a.Recv == "" {
		return a.Pkg + "." + a.Name
	}
	return "(" + a.Pkg + "." + a.Recv + ")." + a.Name
}

// Knowledge is the knowledge base: every API the analysis recognises, by
// section. Sections are documented in signals/kb/README.md.
type Knowledge struct {
	Schedulers   []API `yaml:"schedulers,omitempty" json:"schedulers,omitempty"`
	Effects      []API `yaml:"effects,omitempty" json:"effects,omitempty"`
	Locks        []API `yaml:"locks,omitempty" json:"locks,omitempty"`
	Coordinators []API `yaml:"coordinators,omitempty" json:"coordinators,omitempty"`
	Guards       []API `yaml:"guards,omitempty" json:"guards,omitempty"`
	Designations []API `yaml:"designations,omitempty" json:"designations,omitempty"`
	// PerReplica and LeaderOnly declare a project's own functions: work
	// scheduled through a PerReplica function is meant to run everywhere;
	// a LeaderOnly function is only ever called under leadership.
	PerReplica []API `yaml:"per_replica,omitempty" json:"per_replica,omitempty"`
	LeaderOnly []API `yaml:"leader_only,omitempty" json:"leader_only,omitempty"`
	// Engines names the openers of embedded SQL engines (a file or memory
	// the process holds itself): SQL on their handles is local state.
	Engines []API `yaml:"engines,omitempty" json:"engines,omitempty"`
	// Commands names the registration APIs of command-line libraries
	// (kingpin, cobra): which command a function is the action of.
	Commands []API `yaml:"commands,omitempty" json:"commands,omitempty"`

	once  sync.Once
	index map[string]map[section][]*API // pkg -> section -> entries
}

type section int

// The sections, for Match.
const (
	Schedulers section = iota
	Effects
	Locks
	Coordinators
	Guards
	Designations
	PerReplica
	LeaderOnly
	Engines
	Commands
	numSections
)

func (k *Knowledge) sections() [numSections]*[]API {
	return [numSections]*[]API{&k.Schedulers, &k.Effects, &k.Locks, &k.Coordinators,
		&k.Guards, &k.Designations, &k.PerReplica, &k.LeaderOnly, &k.Engines, &k.Commands}
}

// Merge appends other's entries to k. It must be called before the first
// Match.
func (k *Knowledge) Merge(other *Knowledge) {
	ks, os := k.sections(), other.sections()
	for i := range ks {
		*ks[i] = append(*ks[i], *os[i]...)
	}
}

func (k *Knowledge) build() {
	k.index = make(map[string]map[section][]*API)
	for s, list := range k.sections() {
		for i := range *list {
			a := &(*list)[i]
			m := k.index[a.Pkg]
			if m == nil {
				m = make(map[section][]*API)
				k.index[a.Pkg] = m
			}
			m[section(s)] = append(m[section(s)], a)
		}
	}
}

// Knows reports whether any entry names the package path, so analyzers can
// exit early on packages that import nothing relevant. Entries of Commands
// do not count: a command-line library is no work, effect or coordination.
func (k *Knowledge) Knows(pkgPath string) bool {
	k.once.Do(k.build)
	return known(k.index[pkgPath])
}

// known: a package's entries name work, effects or coordination. A
// command-line library alone (Commands) does not: a package that imports
// only cobra has nothing for the analyzers to see.
func known(bySection map[section][]*API) bool {
	for s, list := range bySection {
		if s != Commands && len(list) > 0 {
			return true
		}
	}
	return false
}

// KnowsIn reports whether some entry of section s names the package path.
func (k *Knowledge) KnowsIn(s section, pkgPath string) bool {
	k.once.Do(k.build)
	return len(k.index[pkgPath][s]) > 0
}

// Packages returns every package path Knows reports, sorted.
func (k *Knowledge) Packages() []string {
	k.once.Do(k.build)
	var out []string
	for p, bySection := range k.index {
		if known(bySection) {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// Match returns the first entry of section s that names fn, or nil. Generic
// instantiations match their origin.
func (k *Knowledge) Match(s section, fn *types.Func) *API {
	if fn == nil || fn.Pkg() == nil {
		return nil
	}
	k.once.Do(k.build)
	fn = fn.Origin()
	bySection := k.index[fn.Pkg().Path()]
	if bySection == nil {
		return nil
	}
	recv := RecvName(fn)
	for _, a := range bySection[s] {
		if !nameMatches(a.Name, fn.Name()) {
			continue
		}
		switch a.Recv {
		case "*":
			if recv == "" {
				continue
			}
		default:
			if a.Recv != recv {
				continue
			}
		}
		return a
	}
	return nil
}

// MatchField returns the first entry of section s that names a field of
// the named type t (Recv is the type's name, "*" for any type of Pkg; Name
// the field's), or nil. An instantiation matches its origin.
func (k *Knowledge) MatchField(s section, t *types.Named, field string) *API {
	if t == nil || t.Obj().Pkg() == nil {
		return nil
	}
	k.once.Do(k.build)
	t = t.Origin()
	for _, a := range k.index[t.Obj().Pkg().Path()][s] {
		if (a.Recv == "*" || a.Recv == t.Obj().Name()) && nameMatches(a.Name, field) {
			return a
		}
	}
	return nil
}

func nameMatches(pattern, name string) bool {
	if p, ok := strings.CutSuffix(pattern, "*"); ok {
		return strings.HasPrefix(name, p)
	}
	return pattern == name
}

// RecvName returns the name of fn's receiver type without "*", or "" for a
// package-level function.
func RecvName(fn *types.Func) string {
	sig, ok := fn.Type().(*types.Signature)
	if !ok || sig.Recv() == nil {
		return ""
	}
	t := sig.Recv().Type()
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	switch t := types.Unalias(t).(type) {
	case *types.Named:
		return t.Obj().Name()
	case *types.Interface:
		return "" // a method of an unnamed interface: not nameable in the KB
	}
	return ""
}

//go:generate go run ./internal/kbgen

// Builtin returns the embedded knowledge base (kb/*.yaml, compiled into
// knowledge_builtin.go by internal/kbgen). It is shared and read-only; the
// error is kept for callers written when it was parsed at run time.
func Builtin() (*Knowledge, error) {
	return builtinKnowledge, nil
}

// ParseKnowledge decodes one YAML document strictly: an unknown key is an
// error that names the file and line.
func ParseKnowledge(filename string, data []byte) (*Knowledge, error) {
	k := new(Knowledge)
	if err := DecodeStrict(filename, data, k); err != nil {
		return nil, err
	}
	if err := k.validate(filename); err != nil {
		return nil, err
	}
	return k, nil
}

func (k *Knowledge) validate(filename string) error {
	for _, list := range k.sections() {
		for _, a := range *list {
			if a.Pkg == "" || a.Name == "" {
				return fmt.Errorf("%s: entry %v needs pkg and name", filename, a.String())
			}
			for role, i := range a.Args {
				if i < 0 {
					return fmt.Errorf("%s: %v: argument %q has negative index %d", filename, a.String(), role, i)
				}
			}
		}
	}
	return nil
}

// DecodeStrict decodes YAML into v, rejecting unknown keys, and formats
// errors as "file:line: message" so editors can jump to them.
func DecodeStrict(filename string, data []byte, v any) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		if errors.Is(err, io.EOF) {
			return nil // an empty file is an empty document
		}
		return YAMLError(filename, err)
	}
	return nil
}

// YAMLError rewrites yaml.v3's "yaml: line N: msg" into "file:N: msg", one
// line per error of a *yaml.TypeError.
func YAMLError(filename string, err error) error {
	return errors.New(yamlError(filename, err))
}

func yamlError(filename string, err error) string {
	var te *yaml.TypeError
	if errors.As(err, &te) {
		var b strings.Builder
		for i, e := range te.Errors {
			if i > 0 {
				b.WriteString("\n")
			}
			b.WriteString(lineMessage(filename, e))
		}
		return b.String()
	}
	return lineMessage(filename, err.Error())
}

func lineMessage(filename, msg string) string {
	msg = strings.TrimPrefix(msg, "yaml: ")
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if n, tail, ok := strings.Cut(rest, ": "); ok {
			return filename + ":" + n + ": " + tail
		}
	}
	return filename + ": " + msg
}
