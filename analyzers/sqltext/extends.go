package sqltext

import (
	"regexp"
	"strings"
)

var (
	// expiryAssigned: a column that holds when a row's hold ends (a
	// lease's expiry, a message's visibility timeout, a lock's deadline).
	// A heartbeat or last-seen time is not one: it records liveness, and
	// what others do with a stale one is out of sight.
	expiryAssigned = regexp.MustCompile(`^(?:[a-z_][a-z0-9_]*\.)?"?([a-z_]*(?:expir|ttl|until|deadline|timeout|visible|visibility)[a-z0-9_]*)"?$`)
	// clearedValue: an assignment that ends the hold instead of extending
	// it (a release): NULL, or now itself with no interval added.
	clearedValue = regexp.MustCompile(`^(?:null|now\(\)|current_timestamp|localtimestamp|datetime\(''now''\)|unixepoch\(\)|0)$`)
	ownerCleared = regexp.MustCompile(`\b(?:owner|owner_id|holder|holder_id|locked_by|lock_owner|leader|leader_id|lease_holder|worker_id|node_id|instance_id|locked)\s*=\s*(?:null\b|false\b|''|0\b)`)
)

// ExtendsExpiry reports whether an UPDATE moves an expiry-like column of
// the rows it touches (SET lease_expires_at = now() + $1, SET timeout = ?):
// the renewal of a lease or of a message's visibility timeout, when the
// row is one its caller holds. An assignment of NULL or of now() itself,
// or one that clears the owner, ends the hold instead: a release, not a
// renewal. A claim (a compare-and-set that takes the row) is not one
// either; callers test Statement.Claim for that.
func ExtendsExpiry(q string) bool {
	n := Normalize(q)
	if !updateHead.MatchString(n) || strings.Contains(n, ";") {
		return false
	}
	set := setClause.FindStringSubmatch(n)
	if set == nil || ownerCleared.MatchString(set[1]) {
		return false
	}
	extends := false
	for _, part := range splitAssignments(set[1]) {
		col, val, ok := strings.Cut(part, "=")
		if !ok {
			continue
		}
		col, val = strings.TrimSpace(col), strings.TrimSpace(val)
		if !expiryAssigned.MatchString(col) {
			continue
		}
		if clearedValue.MatchString(val) {
			return false
		}
		extends = true
	}
	return extends
}

// splitAssignments splits a SET list at the commas outside parentheses
// (now() + make_interval(secs => $1), x = coalesce(a, b)).
func splitAssignments(s string) []string {
	var parts []string
	depth, start := 0, 0
	for i, c := range s {
		switch c {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, s[start:i])
				start = i + 1
			}
		}
	}
	return append(parts, s[start:])
}

// holderKeyed: a WHERE comparison of an owner-like column with a bound
// parameter (worker = ?, owner_id = $3): the statement touches the row
// only while the caller holds it. Ambiguous names (instance_id, node_id:
// often the item's own key) are left out.
var holderKeyed = regexp.MustCompile(`(?:^|[^a-z0-9_.])(?:[a-z_][a-z0-9_]*\.)?"?(owner|owner_id|owner_name|holder|holder_id|locked_by|lock_owner|lease_holder|lease_owner|leader_id|worker|worker_id|worker_name|claimed_by|consumer)"?\s*=\s*(?:\?|\$\d+|:[a-z_]+|@[a-z_]+)`)

// HolderColumn returns the owner-like column an UPDATE or DELETE compares
// with a bound parameter in its WHERE clause ("worker" for WHERE id = ?
// AND worker = ?), "" when there is none: the statement is conditional on
// its caller holding the row, so zero affected rows means the hold is
// gone.
func HolderColumn(q string) string {
	n := Normalize(q)
	if !updateHead.MatchString(n) || strings.Contains(n, ";") {
		return ""
	}
	loc := whereWord.FindStringIndex(n)
	if loc == nil {
		return ""
	}
	where := n[loc[1]:]
	if r := returning.FindStringIndex(where); r != nil {
		where = where[:r[0]]
	}
	if m := holderKeyed.FindStringSubmatch(where); m != nil {
		return m[1]
	}
	return ""
}

// Returns reports whether the statement has a RETURNING clause.
func Returns(q string) bool {
	return returning.MatchString(Normalize(q))
}

// holderAssigned: a SET assignment of an owner-like column from a bound
// parameter (worker = ?): the row is taken for whoever it names.
var holderAssigned = regexp.MustCompile(`^(?:[a-z_][a-z0-9_]*\.)?"?(owner|owner_id|owner_name|holder|holder_id|locked_by|lock_owner|lease_holder|lease_owner|leader_id|worker|worker_id|worker_name|claimed_by|consumer)"?\s*=\s*(?:\?|\$\d+|:[a-z_]+|@[a-z_]+)$`)

// stampAssigned: a bookkeeping time set beside an expiry (updated_at).
var stampAssigned = regexp.MustCompile(`^(?:[a-z_][a-z0-9_]*\.)?"?(updated_at|modified_at|last_heartbeat(?:_at)?|heartbeat(?:_at)?|last_seen(?:_at)?)"?$`)

// SetsHolder returns the owner-like column an UPDATE assigns from a bound
// parameter (SET locked_until = ?, worker = ?: a claim's write of who
// holds the row), "" when none.
func SetsHolder(q string) string {
	n := Normalize(q)
	if !updateHead.MatchString(n) || strings.Contains(n, ";") {
		return ""
	}
	set := setClause.FindStringSubmatch(n)
	if set == nil {
		return ""
	}
	for _, part := range splitAssignments(set[1]) {
		if m := holderAssigned.FindStringSubmatch(strings.TrimSpace(part)); m != nil {
			return m[1]
		}
	}
	return ""
}

// OnlyExpiry reports whether every assignment of an UPDATE's SET list is
// of an expiry column (or a bookkeeping stamp such as updated_at): a
// renewal and nothing else (a retry that also records an attempt or a
// state is not one).
func OnlyExpiry(q string) bool {
	n := Normalize(q)
	set := setClause.FindStringSubmatch(n)
	if set == nil {
		return false
	}
	expiry := false
	for _, part := range splitAssignments(set[1]) {
		col, _, ok := strings.Cut(part, "=")
		if !ok {
			return false
		}
		col = strings.TrimSpace(col)
		switch {
		case expiryAssigned.MatchString(col):
			expiry = true
		case stampAssigned.MatchString(col):
		default:
			return false
		}
	}
	return expiry
}
