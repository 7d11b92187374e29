package main

import (
	"strings"
	"testing"

	"github.com/gatesift/gatesift-vet/docs/patterns"
	"github.com/gatesift/gatesift-vet/signals"
)

func TestMarkdownToText(t *testing.T) {
	in := "<a id=\"LE1001\"></a>\n## LE1001: localsingleton\n\n### Bad\n\nSee **this** and [the elector](../elector.md), `elector.Run`.\n\n```go\nfunc f() {\n\n\tg()\n}\n```\n"
	want := "LE1001: localsingleton\n======================\n\nBad\n---\n\nSee this and the elector (../elector.md), `elector.Run`.\n\n    func f() {\n\n    \tg()\n    }\n"
	if got := markdownToText(in); got != want {
		t.Errorf("markdownToText =\n%s\nwant\n%s", got, want)
	}
}

// Every rule's section renders without markup a terminal shows raw.
func TestExplainEveryRuleIsText(t *testing.T) {
	for _, r := range signals.Rules {
		md, ok := patterns.Section(r.ID)
		if !ok {
			t.Errorf("%s: no section", r.ID)
			continue
		}
		text := markdownToText(md)
		if !strings.HasPrefix(text, r.ID+": "+r.Name+"\n===") {
			t.Errorf("%s: the text does not open with its title: %.80q", r.ID, text)
		}
		for _, raw := range []string{"<a id=", "</a>", "```", "\n## ", "\n### "} {
			if strings.Contains(text, raw) {
				t.Errorf("%s: the text has raw markup %q", r.ID, raw)
			}
		}
	}
}
