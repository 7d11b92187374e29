package lockrenewal

import (
	"go/ast"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/gatesift/gatesift-vet/analyzers/lockfacts"
)

// SQL queue claims: a statement sets a lease column of the item's row to
// now() plus a constant interval, and some statement of the package takes
// rows whose lease column has passed (`locked_until < now()`): once the
// interval is over, another consumer claims the same row.

// sqlStmt is a SQL statement of the package with its folded text.
type sqlStmt struct {
	k    kbCall
	text string // lower case, white space collapsed
}

var (
	sqlSpace   = regexp.MustCompile(`\s+`)
	sqlUpdate  = regexp.MustCompile(`\bupdate\s+([\w."]+)\s+(?:as\s+\w+\s+)?set\s+(.+?)\s+where\b`)
	sqlNow     = `(?:now\(\)|current_timestamp(?:\(\))?|clock_timestamp\(\)|statement_timestamp\(\)|transaction_timestamp\(\)|utc_timestamp\(\)|localtimestamp)`
	sqlLeaseTo = regexp.MustCompile(`([\w."]+)\s*=\s*(?:` +
		sqlNow + `\s*\+\s*(?:interval\s*'\s*(\d+)\s*([a-z]+)\s*'|'\s*(\d+)\s*([a-z]+)\s*'\s*::\s*interval|interval\s+(\d+)\s+([a-z]+))` +
		`|date_add\(\s*` + sqlNow + `\s*,\s*interval\s+(\d+)\s+([a-z]+)\s*\))`)
	sqlSetCol = regexp.MustCompile(`([\w."]+)\s*=\s*([^,]+)`)
	// a lease column set from a statement argument: c = ? or c = $2
	sqlSetParam = regexp.MustCompile(`([\w."]+)\s*=\s*(\?|\$\d+)`)
)

func (c *checker) sqlStatements(calls []kbCall) []sqlStmt {
	var out []sqlStmt
	for _, k := range calls {
		if !strings.HasPrefix(k.api.Kind, "sql") {
			continue
		}
		i, ok := k.api.Arg("query")
		if !ok || i >= len(k.call.Args) {
			continue
		}
		text, _, ok := lockfacts.FoldSQL(c.info, k.decl.Body, k.call.Args[i], k.call.Pos())
		if !ok {
			continue
		}
		out = append(out, sqlStmt{k: k, text: sqlSpace.ReplaceAllString(strings.ToLower(text), " ")})
	}
	return out
}

// bareColumn drops a table qualifier and quotes: j.locked_until -> locked_until.
func bareColumn(col string) string {
	col = strings.Trim(col, `"`)
	if i := strings.LastIndexByte(col, '.'); i >= 0 {
		col = strings.Trim(col[i+1:], `"`)
	}
	return col
}

func bareTable(t string) string { return bareColumn(t) }

// expiredPredicate: the text takes rows whose column col has passed.
func expiredPredicate(text, col string) bool {
	c := `(?:[\w"]+\.)?"?` + regexp.QuoteMeta(col) + `"?`
	re := regexp.MustCompile(`(?:^|[^\w.])` + c + `\s*<=?\s*` + sqlNow + `|` + sqlNow + `\s*>=?\s*` + c + `(?:$|[^\w])`)
	return re.MatchString(text)
}

func sqlUnit(n, unit string) time.Duration {
	v, err := strconv.Atoi(n)
	if err != nil {
		return 0
	}
	var u time.Duration
	switch unit {
	case "second", "seconds", "sec", "secs", "s":
		u = time.Second
	case "minute", "minutes", "min", "mins":
		u = time.Minute
	case "hour", "hours", "h":
		u = time.Hour
	case "millisecond", "milliseconds", "ms":
		u = time.Millisecond
	}
	return time.Duration(v) * u
}

// leaseSet returns the lease column the UPDATE's SET list moves to now()
// plus a constant, and that constant.
func leaseSet(set string) (string, time.Duration, bool) {
	m := sqlLeaseTo.FindStringSubmatch(set)
	if m == nil {
		return "", 0, false
	}
	for j := 2; j+1 < len(m); j += 2 {
		if m[j] != "" {
			if d := sqlUnit(m[j], m[j+1]); d > 0 {
				return bareColumn(m[1]), d, true
			}
		}
	}
	return "", 0, false
}

// setsColumn: the SET list assigns col something other than NULL.
func setsColumn(set, col string) bool {
	for _, m := range sqlSetCol.FindAllStringSubmatch(set, -1) {
		if bareColumn(m[1]) == col && strings.TrimSpace(m[2]) != "null" {
			return true
		}
	}
	return false
}

// sqlClaims finds claims of a row by a lease column with a constant expiry
// that some statement of the package takes over once it has passed.
func (c *checker) sqlClaims(calls []kbCall) []*queueClaim {
	stmts := c.sqlStatements(calls)
	var out []*queueClaim
	for i, st := range stmts {
		m := sqlUpdate.FindStringSubmatch(st.text)
		if m == nil {
			continue
		}
		table, set := bareTable(m[1]), m[2]
		// the item: what the claim returns, or the row a SELECT of the
		// same table picked before it in the same function
		var seeds []*ast.CallExpr
		if strings.Contains(st.text, " returning ") {
			seeds = append(seeds, st.k.call)
		}
		for _, o := range stmts {
			if o.k.decl == st.k.decl && o.k.call.Pos() < st.k.call.Pos() && strings.HasPrefix(strings.TrimSpace(o.text), "select") &&
				strings.Contains(o.text, " for update") && mentionsTable(o.text, table) {
				seeds = append(seeds, o.k.call)
			}
		}
		if len(seeds) == 0 {
			continue // checked first: reading arguments in SSA costs a build
		}
		col, d, ok := leaseSet(set)
		expiryOf := "now() plus a constant interval in the statement"
		if !ok {
			// c = ? with the argument time.Now().Add(d), d a constant
			col, d, expiryOf, ok = c.leaseParam(st, strings.Index(st.text, set), set)
		}
		if !ok {
			continue
		}
		var taker *sqlStmt
		var renewals []*ast.CallExpr
		for j := range stmts {
			o := &stmts[j]
			if !mentionsTable(o.text, table) {
				continue
			}
			if taker == nil && (expiredPredicate(o.text, col) || c.expiredParam(*o, col)) {
				taker = o
			}
			if j == i {
				continue
			}
			if om := sqlUpdate.FindStringSubmatch(o.text); om != nil && bareTable(om[1]) == table && setsColumn(om[2], col) && !expiredPredicate(o.text, col) && !c.expiredParam(*o, col) {
				renewals = append(renewals, o.k.call)
			}
		}
		if taker == nil {
			continue
		}
		out = append(out, &queueClaim{
			call: st.k.call,
			what: "the UPDATE of " + table + "." + col,
			takeovers: []takeover{{node: taker.k.call, expiry: d, expiryOf: expiryOf,
				what: "the statement taking rows whose " + col + " has passed"}},
			fix: func(d time.Duration) string {
				return "extend " + col + " of the item's row while working (UPDATE " + table + " SET " + col + " = now() + ... WHERE its key and owner, from a goroutine every " +
					lockfacts.FmtDuration((d / 3).Truncate(time.Second)) + ")"
			},
			seeds:    seeds,
			renewals: renewals,
		})
	}
	return out
}

// mentionsTable: the statement names the table as a word.
func mentionsTable(text, table string) bool {
	return regexp.MustCompile(`(?:^|[^\w])"?` + regexp.QuoteMeta(table) + `"?(?:$|[^\w])`).MatchString(text)
}
