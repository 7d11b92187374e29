package lockfacts

import (
	"regexp"
	"strings"
)

// Statement is what constant SQL text says about locking.
type Statement struct {
	Verb  string // "insert", "update", "delete", "select", or ""
	Table string // the table written (INSERT INTO / UPDATE / DELETE FROM), lower case
	// LockTable: the table is named like a lock (lock, leader, lease, mutex
	// as a word part: distributed_locks, shedlock, leader_election).
	LockTable bool
	// Expiry: the statement mentions an expiry or time column (expires_at,
	// locked_until, ttl, heartbeat, lease_duration, now()...), so the lock
	// can expire or be judged stale.
	Expiry bool
	// OwnerSet: the statement writes an owner-like column (INSERT columns or
	// UPDATE SET owner = ...), to a non-null value.
	OwnerSet bool
	// OwnerCleared: UPDATE SET owner = NULL / locked = false (a release).
	OwnerCleared bool
	// OwnerPred: the WHERE clause tests an owner-like column or a token.
	OwnerPred bool
	// NamePred: the WHERE clause selects the lock by a name-like column.
	NamePred bool
	// OnConflictNothing: INSERT ... ON CONFLICT DO NOTHING (a claim).
	OnConflictNothing bool
	// Advisory is the advisory-lock function called, lower case
	// ("pg_advisory_lock", "pg_advisory_unlock", "pg_try_advisory_xact_lock";
	// MySQL's named locks "get_lock", "release_lock", "release_all_locks").
	Advisory string
}

// SessionAdvisoryLock reports a session-level (not transaction-scoped)
// advisory lock acquire: pg_advisory_lock and its try form, or MySQL
// GET_LOCK, which always belongs to the session.
func (s *Statement) SessionAdvisoryLock() bool {
	a := s.Advisory
	return a == "get_lock" ||
		a != "" && !strings.Contains(a, "xact") && !strings.Contains(a, "unlock") && strings.Contains(a, "advisory_lock")
}

// AdvisoryUnlock reports a session advisory unlock.
func (s *Statement) AdvisoryUnlock() bool {
	return strings.Contains(s.Advisory, "advisory_unlock") || strings.HasPrefix(s.Advisory, "release_")
}

// MySQLLock reports MySQL's named locks (GET_LOCK, RELEASE_LOCK), which
// have no transaction-scoped form.
func (s *Statement) MySQLLock() bool {
	return s.Advisory == "get_lock" || strings.HasPrefix(s.Advisory, "release_")
}

var (
	sqlSpace     = regexp.MustCompile(`\s+`)
	sqlQuoted    = regexp.MustCompile(`"([a-z0-9_]+)"|` + "`([a-z0-9_]+)`")
	sqlInsert    = regexp.MustCompile(`^\s*insert\s+into\s+([a-z0-9_.]+)\s*(\(([^)]*)\))?`)
	sqlUpdate    = regexp.MustCompile(`^\s*update\s+([a-z0-9_.]+)\s+(?:as\s+[a-z0-9_]+\s+)?set\s+(.*?)(?:\swhere\s(.*))?$`)
	sqlDelete    = regexp.MustCompile(`^\s*delete\s+from\s+([a-z0-9_.]+)(?:\s+as\s+[a-z0-9_]+)?(?:\s+where\s+(.*))?$`)
	sqlAdvisory  = regexp.MustCompile(`pg_(?:try_)?advisory_(?:xact_)?(?:un)?lock(?:_shared|_all)?\s*\(`)
	sqlNamedLock = regexp.MustCompile(`\b(get_lock|release_lock|release_all_locks)\s*\(`)
	sqlOnNothing = regexp.MustCompile(`on\s+conflict\b.*\bdo\s+nothing`)
	sqlAssign    = regexp.MustCompile(`([a-z0-9_]+)\s*=\s*([^,]+)`)
	sqlWord      = regexp.MustCompile(`[a-z_][a-z0-9_]*`)
)

// ParseSQL classifies constant SQL text. It recognises the statements lock
// code runs, not SQL in general; anything else has Verb "".
func ParseSQL(text string) *Statement {
	q := strings.ToLower(sqlSpace.ReplaceAllString(strings.TrimSpace(text), " "))
	q = sqlQuoted.ReplaceAllString(q, "$1$2")
	q = strings.TrimSuffix(strings.TrimSpace(q), ";")
	s := &Statement{}
	if m := sqlAdvisory.FindString(q); m != "" {
		s.Advisory = strings.TrimSpace(strings.TrimSuffix(m, "("))
	} else if m := sqlNamedLock.FindStringSubmatch(q); m != nil {
		s.Advisory = m[1]
	}
	var rest string // the statement without its table name
	switch {
	case sqlInsert.MatchString(q):
		m := sqlInsert.FindStringSubmatch(q)
		s.Verb, s.Table = "insert", m[1]
		rest = strings.Replace(q, m[1], "", 1)
		for _, col := range strings.Split(m[3], ",") {
			if ownerColumn(strings.TrimSpace(col)) {
				s.OwnerSet = true
			}
		}
		s.OnConflictNothing = sqlOnNothing.MatchString(q)
	case sqlUpdate.MatchString(q):
		m := sqlUpdate.FindStringSubmatch(q)
		s.Verb, s.Table = "update", m[1]
		rest = strings.Replace(q, m[1], "", 1)
		for _, a := range sqlAssign.FindAllStringSubmatch(m[2], -1) {
			col, val := a[1], strings.TrimSpace(a[2])
			if !ownerColumn(col) && !lockedFlag(col) {
				continue
			}
			switch {
			case val == "null" || val == "''" || val == "false" || (lockedFlag(col) && val == "0"):
				s.OwnerCleared = true
			default:
				if ownerColumn(col) || val == "true" || val == "1" {
					s.OwnerSet = true
				}
			}
		}
		s.whereClause(m[3])
	case sqlDelete.MatchString(q):
		m := sqlDelete.FindStringSubmatch(q)
		s.Verb, s.Table = "delete", m[1]
		rest = strings.Replace(q, m[1], "", 1)
		s.whereClause(m[2])
	case strings.HasPrefix(q, "select"):
		s.Verb = "select"
		rest = q
	default:
		return s
	}
	s.LockTable = LockTableName(s.Table)
	for _, w := range sqlWord.FindAllString(rest, -1) {
		if !sqlKeyword[w] && expiryWord(w) {
			s.Expiry = true
		}
	}
	return s
}

func (s *Statement) whereClause(where string) {
	for _, w := range sqlWord.FindAllString(where, -1) {
		switch {
		case ownerColumn(w) || strings.Contains(w, "token") || strings.Contains(w, "fenc") ||
			w == "version" || w == "generation" || w == "epoch":
			s.OwnerPred = true
		case nameColumn(w):
			s.NamePred = true
		}
	}
}

// LockTableName reports whether a table is named like a lock: lock, leader,
// lease or mutex as a word part (distributed_locks, shedlock, leader_election),
// but not block, clock, release or leaderboard.
func LockTableName(table string) bool {
	if i := strings.LastIndexByte(table, '.'); i >= 0 {
		table = table[i+1:]
	}
	for _, p := range strings.FieldsFunc(table, func(r rune) bool { return r == '_' || r == '-' }) {
		switch p {
		case "history", "log", "logs", "audit", "events", "event", "stats", "metrics":
			return false
		}
	}
	for _, part := range strings.FieldsFunc(table, func(r rune) bool { return r == '_' || r == '-' }) {
		for _, p := range []string{part, strings.TrimSuffix(part, "s"), strings.TrimSuffix(part, "es")} {
			switch p {
			case "block", "clock", "unlock", "deadlock", "padlock", "release", "please":
				return false
			}
			if p == "lock" || p == "leader" || p == "lease" || p == "mutex" || p == "leadership" ||
				p == "leaderelection" || p == "locker" ||
				strings.HasSuffix(p, "lock") || strings.HasPrefix(p, "lock") || strings.HasSuffix(p, "leader") {
				return true
			}
		}
	}
	return false
}

// ownerColumn: a column naming the instance that holds the row. A
// controller column is one: in a lock or holder row it names the
// controller (the replica of a controller service) that wrote it, as a
// node or instance column does.
func ownerColumn(w string) bool {
	switch w {
	case "owner", "owner_id", "holder", "holder_id", "holder_identity", "locked_by", "lock_holder",
		"lock_owner", "leader", "leader_id", "acquired_by", "instance_id", "node_id", "worker_id",
		"hostname", "host", "instance", "node", "client_id", "owner_name", "lockedby", "lock_by",
		"controller", "controller_id", "controller_name":
		return true
	}
	return false
}

func lockedFlag(w string) bool {
	return w == "locked" || w == "is_locked" || w == "held" || w == "acquired"
}

func nameColumn(w string) bool {
	switch w {
	case "name", "key", "lock_name", "lock_key", "lockname", "lock", "resource", "resource_name",
		"job", "job_name", "task_name", "scope":
		return true
	}
	return false
}

var sqlKeyword = map[string]bool{
	"update": true, "set": true, "where": true, "and": true, "or": true, "insert": true, "into": true,
	"values": true, "delete": true, "from": true, "select": true, "on": true, "conflict": true, "do": true,
	"nothing": true, "is": true, "null": true, "not": true, "returning": true, "as": true,
}

// expiryWord: a column or function that gives the lock an end (or lets a
// reader judge it stale).
func expiryWord(w string) bool {
	for _, s := range []string{"expir", "until", "ttl", "heartbeat", "lease", "renew", "deadline",
		"timeout", "interval", "valid", "now", "current_timestamp", "time", "_at", "date", "stale"} {
		if strings.Contains(w, s) {
			return true
		}
	}
	return false
}
