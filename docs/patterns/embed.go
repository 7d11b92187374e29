// Package patterns embeds the pattern documentation of gatesift-vet, so that the
// binary prints the same text the diagnostics link to: Analyzer.URL points at
// a rule's section of leader-election.md, and `gatesift-vet -explain LE3001`
// prints that section with Section.
package patterns

import (
	_ "embed"
	"regexp"
	"strings"
	"sync"
)

// LeaderElection is docs/patterns/leader-election.md: the Leader Election
// pattern, then one section per rule, each opened by an anchor line
// `<a id="LE1001"></a>` and a heading `## LE1001: localsingleton`.
//
//go:embed leader-election.md
var LeaderElection string

var (
	anchorLine  = regexp.MustCompile(`(?m)^<a id="(LE[0-9]{4})"></a>[ \t]*\r?$`)
	headingLine = regexp.MustCompile(`(?m)^## (LE[0-9]{4}): ([a-z0-9]+)[ \t]*\r?$`)
)

// sections maps each rule ID, and each analyzer name, to its section text.
var sections = sync.OnceValue(func() map[string]string {
	m := make(map[string]string)
	locs := anchorLine.FindAllStringSubmatchIndex(LeaderElection, -1)
	for i, loc := range locs {
		end := len(LeaderElection)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		id := LeaderElection[loc[2]:loc[3]]
		text := strings.TrimRight(LeaderElection[loc[0]:end], " \t\r\n") + "\n"
		m[id] = text
		if h := headingLine.FindStringSubmatch(text); h != nil && h[1] == id {
			m[h[2]] = text
		}
	}
	return m
})

// Section returns the documentation of one rule: the text from its anchor line
// up to the next rule's anchor, or to the end of the document. id is a rule ID
// such as "LE3001" or an analyzer name such as "lockexpiry", in any case. It
// reports false when the document has no such rule.
func Section(id string) (string, bool) {
	id = strings.TrimSpace(id)
	m := sections()
	if s, ok := m[strings.ToUpper(id)]; ok {
		return s, true
	}
	s, ok := m[strings.ToLower(id)]
	return s, ok
}
