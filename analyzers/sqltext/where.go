package sqltext

import (
	"regexp"
	"strconv"
	"strings"
)

var (
	numbered   = regexp.MustCompile(`\$(\d+)`)
	whereWord  = regexp.MustCompile(`\bwhere\b`)
	returning  = regexp.MustCompile(`\breturning\b`)
	updateHead = regexp.MustCompile(`^(with\b.*?\)\s*)?(update|delete)\b`)
)

// WhereArgs returns the arguments (1-based, in the order they follow the
// statement) that an UPDATE or DELETE uses in its WHERE clause: the
// statement's key, the row it touches. ok is false for other statements,
// for one without a WHERE or without placeholders ($N or ?) there, and
// for one mixing both styles: its key is then not known by position.
func WhereArgs(q string) (args []int, ok bool) {
	n := Normalize(q)
	if !updateHead.MatchString(n) || strings.Contains(n, ";") {
		return nil, false
	}
	loc := whereWord.FindStringIndex(n)
	if loc == nil {
		return nil, false
	}
	end := len(n)
	if r := returning.FindStringIndex(n[loc[1]:]); r != nil {
		end = loc[1] + r[0]
	}
	where := n[loc[1]:end]
	hasNumbered, hasQuestion := numbered.MatchString(n), strings.Contains(n, "?")
	switch {
	case hasNumbered && hasQuestion:
		return nil, false
	case hasNumbered:
		for _, m := range numbered.FindAllStringSubmatch(where, -1) {
			if i, err := strconv.Atoi(m[1]); err == nil && i > 0 {
				args = append(args, i)
			}
		}
	case hasQuestion:
		before := strings.Count(n[:loc[1]], "?")
		for i := 0; i < strings.Count(where, "?"); i++ {
			args = append(args, before+i+1)
		}
	}
	return args, len(args) > 0
}
