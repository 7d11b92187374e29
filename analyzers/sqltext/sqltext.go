// Package sqltext classifies SQL statements from their constant text: what
// kind of write they are, which tables they touch, whether repeating them is
// harmless, and whether they coordinate (advisory locks, SKIP LOCKED claims,
// compare-and-set updates).
//
// It is a recogniser, not a parser: it looks at keywords and the identifiers
// after them, which is enough for the statements services actually run and
// errs towards "unknown" (no report) on anything else.
package sqltext

import (
	"regexp"
	"strings"
)

// Kind is what a statement does to shared state.
type Kind string

const (
	Select   Kind = "select"
	Insert   Kind = "insert"
	Update   Kind = "update"
	Delete   Kind = "delete"
	Merge    Kind = "merge"
	Truncate Kind = "truncate"
	Other    Kind = "other" // DDL, SET, locks, and everything not recognised
)

// Statement is what the text says.
type Statement struct {
	Kind   Kind
	Tables []string // tables written (or read, for a SELECT), lower case, schema kept
	// Writes reports whether the statement changes shared data (a SELECT with
	// a data-modifying CTE or FOR UPDATE claim counts as a write).
	Writes bool
	// Idempotent: repeating it does not duplicate an outcome (upserts, ON
	// CONFLICT DO NOTHING, deletes of expired rows).
	Idempotent bool
	// Increment: SET n = n + 1 style counters (never idempotent).
	Increment bool
	// Claim: the statement claims rows so that concurrent runners split the
	// work (FOR UPDATE SKIP LOCKED, or an UPDATE ... WHERE that compares the
	// old value: a compare-and-set).
	Claim bool
	// AdvisoryLock names the advisory lock function called, if any
	// ("pg_try_advisory_xact_lock").
	AdvisoryLock string
	// OwnerColumn: the statement sets or tests an owner-like column
	// (owner, holder, locked_by, leader).
	OwnerColumn bool
	// ExpiryColumn: the statement mentions an expiry-like column (expires,
	// expiry, ttl, until, lease, heartbeat).
	ExpiryColumn bool
}

var (
	lineComment  = regexp.MustCompile(`--[^\n]*`)
	blockComment = regexp.MustCompile(`(?s)/\*.*?\*/`)
	stringLit    = regexp.MustCompile(`'(?:[^']|'')*'`)
	space        = regexp.MustCompile(`\s+`)

	ident       = `((?:"[^"]+"|[a-z_][a-z0-9_$]*)(?:\.(?:"[^"]+"|[a-z_][a-z0-9_$]*))?)`
	insertInto  = regexp.MustCompile(`\binsert\s+(?:or\s+\w+\s+)?into\s+` + ident)
	updateTable = regexp.MustCompile(`\bupdate\s+(?:only\s+)?` + ident)
	deleteFrom  = regexp.MustCompile(`\bdelete\s+from\s+(?:only\s+)?` + ident)
	mergeInto   = regexp.MustCompile(`\bmerge\s+into\s+` + ident)
	truncate    = regexp.MustCompile(`\btruncate\s+(?:table\s+)?(?:only\s+)?` + ident)
	fromTable   = regexp.MustCompile(`\bfrom\s+` + ident)
	replaceInto = regexp.MustCompile(`\breplace\s+into\s+` + ident)

	advisory    = regexp.MustCompile(`\b(pg_(?:try_)?advisory_(?:xact_)?lock(?:_shared)?|pg_advisory_unlock(?:_all|_shared)?|get_lock|release_lock)\s*\(`)
	skipLocked  = regexp.MustCompile(`\bfor\s+(?:no\s+key\s+)?update\s+skip\s+locked\b`)
	onConflict  = regexp.MustCompile(`\bon\s+conflict\b[^;]*?\bdo\s+(nothing|update)\b`)
	onDuplicate = regexp.MustCompile(`\bon\s+duplicate\s+key\s+update\b`)
	increment   = regexp.MustCompile(`\b([a-z_][a-z0-9_]*)\s*=\s*(?:[a-z_][a-z0-9_]*\.)?([a-z_][a-z0-9_]*)\s*[+-]\s*`)
	// Phrases whose "update" is not an UPDATE statement.
	notUpdate    = regexp.MustCompile(`\bfor\s+(?:no\s+key\s+)?(?:update|share)\b|\bdo\s+update\b|\bkey\s+update\b`)
	timeCompare  = regexp.MustCompile(`\b(now\(\)|current_timestamp|current_date|localtimestamp|interval\b|datetime\(|unixepoch\(|utc_timestamp)`)
	expiredCol   = regexp.MustCompile(`\b[a-z_]*(expire|expiry|expires|expired|ttl|deadline|valid_until|until|created_at|updated_at|_at)\b\s*(<|<=)`)
	ownerCol     = regexp.MustCompile(`\b(owner|owner_id|holder|holder_id|locked_by|lock_owner|leader|leader_id|lease_holder|worker_id|node_id|instance_id)\b`)
	expiryCol    = regexp.MustCompile(`\b[a-z_]*(expire|expires|expiry|expires_at|ttl|until|lease|heartbeat|deadline|timeout)[a-z_]*\b`)
	whereClause  = regexp.MustCompile(`\bwhere\b(.*)$`)
	setClause    = regexp.MustCompile(`\bset\b(.*?)(\bwhere\b|\breturning\b|$)`)
	casCondition = regexp.MustCompile(`\b([a-z_][a-z0-9_]*)\s*(?:=|<>|!=|<=|>=|<|>|\s+is\s+)`)
	// The column on the right of the comparison: `? >= visible_at`,
	// `$1 > lease_until` (a bound parameter on the left). The character
	// after the name rules out a function call (`> now()`).
	casConditionRight = regexp.MustCompile(`(?:\?|\$\d+|:[a-z_]+|@[a-z_]+)\s*(?:=|<>|!=|<=|>=|<|>)\s*(?:[a-z_][a-z0-9_]*\.)?([a-z_][a-z0-9_]*)\b([^(]|$)`)
	// An upsert whose update is conditional: of two runners only one
	// changes the row (ON CONFLICT (k) DO UPDATE SET ... WHERE ...).
	conditionalUpsert = regexp.MustCompile(`\bon\s+conflict\b[^;]*?\bdo\s+update\s+set\b[^;]*?\bwhere\b`)
)

// Normalize lower-cases the text and removes comments, string literals and
// extra white space.
func Normalize(q string) string {
	q = blockComment.ReplaceAllString(q, " ")
	q = lineComment.ReplaceAllString(q, " ")
	q = stringLit.ReplaceAllString(q, "''")
	q = strings.ToLower(q)
	return strings.TrimSpace(space.ReplaceAllString(q, " "))
}

// Classify reads one statement (or a few separated by ';').
func Classify(q string) Statement {
	n := Normalize(q)
	tables := notUpdate.ReplaceAllString(n, " ")
	var s Statement
	add := func(k Kind, re *regexp.Regexp) {
		for _, m := range re.FindAllStringSubmatch(tables, -1) {
			if s.Kind == "" || s.Kind == Select || s.Kind == Other {
				s.Kind = k
			}
			s.Tables = appendUnique(s.Tables, strings.ReplaceAll(m[1], `"`, ""))
		}
	}
	add(Insert, insertInto)
	add(Insert, replaceInto)
	add(Update, updateTable)
	add(Delete, deleteFrom)
	add(Merge, mergeInto)
	add(Truncate, truncate)
	if m := advisory.FindStringSubmatch(n); m != nil {
		s.AdvisoryLock = m[1]
	}
	if s.Kind == "" {
		if strings.HasPrefix(n, "select") || strings.HasPrefix(n, "with") || strings.HasPrefix(n, "(select") {
			s.Kind = Select
			for _, m := range fromTable.FindAllStringSubmatch(tables, -1) {
				s.Tables = appendUnique(s.Tables, strings.ReplaceAll(m[1], `"`, ""))
			}
		} else {
			s.Kind = Other
		}
	}
	s.Writes = s.Kind == Insert || s.Kind == Update || s.Kind == Delete || s.Kind == Merge || s.Kind == Truncate
	s.Claim = skipLocked.MatchString(n)
	if s.Claim {
		s.Writes = true // the claim is followed by the claimed rows' updates
	}
	s.OwnerColumn = ownerCol.MatchString(n)
	s.ExpiryColumn = expiryCol.MatchString(n)
	switch s.Kind {
	case Insert:
		s.Idempotent = onConflict.MatchString(n) || onDuplicate.MatchString(n)
		s.Claim = s.Claim || conditionalUpsert.MatchString(n)
	case Merge:
		s.Idempotent = true // MERGE is an upsert
	case Delete:
		// Deleting what has expired converges: a second run finds nothing.
		if w := whereClause.FindStringSubmatch(n); w != nil {
			s.Idempotent = timeCompare.MatchString(w[1]) || expiredCol.MatchString(w[1])
		}
	case Update:
		if m := setClause.FindStringSubmatch(n); m != nil {
			if inc := increment.FindStringSubmatch(m[1]); inc != nil && inc[1] == inc[2] {
				s.Increment = true
			}
		}
		s.Claim = s.Claim || isCompareAndSet(n)
		if s.Claim {
			// deliveries = deliveries + 1 in a claim counts this
			// replica's claim of the row, once per claim: part of the
			// claim, not a counter every replica adds to.
			s.Increment = false
		}
	}
	return s
}

// isCompareAndSet recognises UPDATE t SET c = $new ... WHERE ... c = $old
// (or c = 'pending', c < now() - interval, c IS NULL): a column both
// assigned and tested, so that of two concurrent runners only one updates
// the row. It is a claim only where the caller checks the affected rows.
func isCompareAndSet(n string) bool {
	set := setClause.FindStringSubmatch(n)
	where := whereClause.FindStringSubmatch(n)
	if set == nil || where == nil {
		return false
	}
	assigned := map[string]bool{}
	for _, part := range strings.Split(set[1], ",") {
		if col, _, ok := strings.Cut(part, "="); ok {
			assigned[strings.TrimSpace(col)] = true
		}
	}
	// The where clause runs to the end, so a subquery that picks the
	// target row (WHERE id = (SELECT id ... WHERE ? >= visible_at LIMIT
	// 1)) is read too: its test of the row's own column is the claim's
	// condition.
	for _, re := range []*regexp.Regexp{casCondition, casConditionRight} {
		for _, m := range re.FindAllStringSubmatch(where[1], -1) {
			if assigned[m[1]] && m[1] != "id" {
				return true
			}
		}
	}
	return false
}

func appendUnique(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}
