package main

import (
	"regexp"
	"strings"
)

var (
	htmlLine     = regexp.MustCompile(`^\s*<[a-zA-Z/][^>]*>(\s*</[a-zA-Z]+>)?\s*$`)
	markdownLink = regexp.MustCompile(`\[([^\]]+)\]\(([^)\s]+)\)`)
	strongText   = regexp.MustCompile(`\*\*([^*]+)\*\*`)
)

// markdownToText renders a section of the pattern documentation for a
// terminal: no HTML anchor lines, headings as underlined titles, code
// blocks indented by four spaces without their fences, links as "text
// (target)" and bold as plain text. Inline code keeps its backticks, which
// read well as quotes and mark what to type.
func markdownToText(md string) string {
	var b strings.Builder
	inCode := false
	for _, line := range strings.Split(strings.TrimRight(md, "\n"), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inCode = !inCode
			continue
		}
		if inCode {
			if strings.TrimSpace(line) != "" {
				b.WriteString("    " + line)
			}
			b.WriteString("\n")
			continue
		}
		if htmlLine.MatchString(line) {
			continue
		}
		line = markdownLink.ReplaceAllString(line, "$1 ($2)")
		line = strongText.ReplaceAllString(line, "$1")
		switch {
		case strings.HasPrefix(line, "## "):
			title := strings.TrimPrefix(line, "## ")
			b.WriteString(title + "\n" + strings.Repeat("=", len(title)) + "\n")
		case strings.HasPrefix(line, "### "):
			title := strings.TrimPrefix(line, "### ")
			b.WriteString(title + "\n" + strings.Repeat("-", len(title)) + "\n")
		default:
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}
