// Package signals holds what gatesift-vet knows, as data: the rule registry
// (stable IDs, analyzer names, defaults) and the knowledge base of APIs
// (schedulers, shared-state effects, locks, coordinators, designations),
// embedded as YAML and extended by a project's .gatesift.yaml.
//
// Rule IDs are a public contract: they are never reused or renamed.
package signals

import (
	"fmt"
	"strings"
)

// DocURL is the page every rule's Analyzer.URL points to; a rule's section is
// DocURL + "#" + ID.
const DocURL = "https://github.com/gatesift/gatesift-vet/blob/main/docs/patterns/leader-election.md"

// Precision says how much evidence a rule needs before it reports.
type Precision string

const (
	// High: the rule reports only on a known API with constant-folded
	// evidence; a false positive is a bug.
	High Precision = "high"
	// Medium: the rule infers intent (what "leader-only" work is); it may
	// need a directive on unusual code.
	Medium Precision = "medium"
)

// Rule is one entry of the registry.
type Rule struct {
	ID        string    // stable, e.g. "LE1001"
	Name      string    // analyzer name, e.g. "localsingleton"
	Title     string    // one line
	Default   bool      // on unless the user enables it
	Precision Precision // how sure a finding is
	Since     string    // first version that shipped it
	Help      string    // a paragraph for SARIF fullDescription and -list -v
}

// URL returns the link to the rule's documentation section.
func (r Rule) URL() string { return DocURL + "#" + r.ID }

// Rules is the registry, in ID order.
var Rules = []Rule{
	{
		ID: "LE1001", Name: "localsingleton", Default: true, Precision: High, Since: "v0.1.0",
		Title: "periodic work with a shared effect is guarded only by process-local state",
		Help: "Periodic or background work that changes shared external state (SQL writes, " +
			"messages, emails, HTTP calls) runs on every replica when it is guarded by nothing " +
			"but process-local state (sync.Once, a mutex, a boolean). Coordinate it with a lease " +
			"that expires (the elector, client-go leaderelection, etcd election) or make the " +
			"effect a claim (SKIP LOCKED, compare-and-set).",
	},
	{
		ID: "LE1002", Name: "staticleader", Default: true, Precision: High, Since: "v0.1.0",
		Title: "singleton work is enabled by a static designation of one instance",
		Help: "A hostname or ordinal compare, an environment variable, a flag or a config " +
			"boolean picks the one instance that runs singleton work. Nothing takes over when " +
			"that instance dies, and two instances run the work when the setting is copied.",
	},
	{
		ID: "LE2001", Name: "competingschedulers", Default: true, Precision: Medium, Since: "v0.1.0",
		Title: "two scheduler sites act on the same shared resource without a common coordinator",
		Help: "Two or more scheduled jobs in one program or module write the same table, key " +
			"prefix or queue with no coordinator in common, so their effects interleave.",
	},
	{
		ID: "LE3001", Name: "lockexpiry", Default: true, Precision: High, Since: "v0.1.0",
		Title: "a distributed lock or lease is taken without expiry, or its expiry is set non-atomically",
		Help: "A lock without expiry is held forever when its holder crashes; an expiry set by a " +
			"separate call after the acquire is lost when the process dies between the two.",
	},
	{
		ID: "LE3002", Name: "unsafeunlock", Default: true, Precision: High, Since: "v0.1.0",
		Title: "a lock release does not check ownership, or a session lock is taken through a pool",
		Help: "A plain DEL or DELETE of the lock key releases whoever holds it now, not only the " +
			"caller; a session-level advisory lock taken through a connection pool is unlocked " +
			"on whatever connection the pool hands out.",
	},
	{
		ID: "LE3003", Name: "unfencedwrite", Default: false, Precision: Medium, Since: "v0.1.0",
		Title: "work under a lock writes to a shared store without a fencing token",
		Help: "A holder that pauses past its lease keeps writing after another holder took over. " +
			"Only a fencing token checked at the resource rejects the stale writes.",
	},
	{
		ID: "LE3004", Name: "lockrenewal", Default: true, Precision: High, Since: "v0.1.0",
		Title: "a fixed-TTL lock is held around work of unbounded duration and never renewed",
		Help: "When the work outlasts the TTL the lock expires mid-work and a second holder " +
			"starts the same work.",
	},
	{
		ID: "LE4001", Name: "leadershiploss", Default: true, Precision: High, Since: "v0.1.0",
		Title: "leader-only work is not bound to leadership",
		Help: "Work started on a context that does not end with leadership, a discarded " +
			"lost-lock channel or acquire result, or a leadership check done once before a long " +
			"loop keeps acting after another instance became leader.",
	},
	{
		ID: "LE4002", Name: "leasetiming", Default: true, Precision: High, Since: "v0.1.0",
		Title: "unsafe constant lease timing",
		Help: "A lease duration not above the renew deadline, a renew deadline not above 1.2 x " +
			"the retry period, or a TTL below what the library allows lets two leaders overlap " +
			"or makes leadership flap.",
	},
	{
		ID: "LE9001", Name: "directives", Default: true, Precision: High, Since: "v0.1.0",
		Title: "a //gatesift: directive is malformed, has no reason, or matched nothing",
		Help: "Suppressions must say why and must still suppress something, so they do not " +
			"outlive the code they were written for.",
	},
}

// Lookup finds a rule by ID ("LE3001") or analyzer name ("lockexpiry"),
// case-insensitively.
func Lookup(idOrName string) (Rule, bool) {
	for _, r := range Rules {
		if strings.EqualFold(r.ID, idOrName) || strings.EqualFold(r.Name, idOrName) {
			return r, true
		}
	}
	return Rule{}, false
}

// MustLookup is Lookup for the rule packages' own IDs, which are known at
// compile time.
func MustLookup(id string) Rule {
	r, ok := Lookup(id)
	if !ok {
		panic(fmt.Sprintf("signals: no rule %q in the registry", id))
	}
	return r
}
