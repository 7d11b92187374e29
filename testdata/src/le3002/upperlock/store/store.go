// Package store keeps a project's lock rows in SQL through upper/db; the
// package upperlock takes and releases its locks through these queries.
package store

import (
	"time"

	"github.com/upper/db/v4"
)

type LockRecord struct {
	Name       string    `db:"name"`
	Controller string    `db:"controller"`
	Time       time.Time `db:"time"`
}

// Queries has one implementation here, queries: a call through it writes
// queries' rows.
type Queries interface {
	InsertLock(rec *LockRecord) error
	InsertLockSQL(rec *LockRecord) error
	DeleteLock(name string) error
	DeleteLockFind(name string) error
	DeleteOwnedLock(name, controller string) error
	DeleteExpiredLock(name string, now time.Time) error
	DeleteLockCond(name string, cond db.Cond) error
}

type queries struct {
	sess  db.Session
	table string
}

func New(sess db.Session, table string) Queries { return &queries{sess: sess, table: table} }

func (q *queries) InsertLock(rec *LockRecord) error {
	_, err := q.sess.Collection(q.table).Insert(rec)
	return err
}

func (q *queries) InsertLockSQL(rec *LockRecord) error {
	_, err := q.sess.SQL().InsertInto(q.table).Values(rec).Exec()
	return err
}

func (q *queries) DeleteLock(name string) error {
	_, err := q.sess.SQL().DeleteFrom(q.table).Where(db.Cond{"name": name}).Exec()
	return err
}

func (q *queries) DeleteLockFind(name string) error {
	return q.sess.Collection(q.table).Find(db.Cond{"name": name}).Delete()
}

func (q *queries) DeleteOwnedLock(name, controller string) error {
	_, err := q.sess.SQL().DeleteFrom(q.table).Where(db.Cond{"name": name}).And(db.Cond{"controller": controller}).Exec()
	return err
}

func (q *queries) DeleteExpiredLock(name string, now time.Time) error {
	_, err := q.sess.SQL().DeleteFrom(q.table).Where(db.Cond{"name": name, "time <": now}).Exec()
	return err
}

func (q *queries) DeleteLockCond(name string, cond db.Cond) error {
	_, err := q.sess.SQL().DeleteFrom(q.table).Where(db.Cond{"name": name}).And(cond).Exec()
	return err
}

// other is another store with a table of its own under the same
// expression: its rows are not queries' rows.
type other struct {
	sess  db.Session
	table string
}

// Other has one implementation, other.
type Other interface {
	DeleteOther(name string) error
}

func NewOther(sess db.Session, table string) Other { return &other{sess: sess, table: table} }

func (q *other) DeleteOther(name string) error {
	_, err := q.sess.SQL().DeleteFrom(q.table).Where(db.Cond{"name": name}).Exec()
	return err
}

// Twice has two implementations here: a call through it is not known to
// write either one's rows.
type Twice interface {
	TakeTwice(rec *LockRecord) error
	DropTwice(name string) error
}

type first struct{ sess db.Session }

func (f *first) TakeTwice(rec *LockRecord) error {
	_, err := f.sess.Collection("twice_locks").Insert(rec)
	return err
}

func (f *first) DropTwice(name string) error {
	_, err := f.sess.SQL().DeleteFrom("twice_locks").Where(db.Cond{"name": name}).Exec()
	return err
}

type second struct{}

func (second) TakeTwice(rec *LockRecord) error { return nil }
func (second) DropTwice(name string) error     { return nil }

// Mocked has one implementation here, mocked, and a mock in store/mocks.
type Mocked interface {
	TakeMocked(rec *LockRecord) error
	DropMocked(name string) error
}

type mocked struct{ sess db.Session }

func (m *mocked) TakeMocked(rec *LockRecord) error {
	_, err := m.sess.Collection("mocked_locks").Insert(rec)
	return err
}

func (m *mocked) DropMocked(name string) error {
	_, err := m.sess.SQL().DeleteFrom("mocked_locks").Where(db.Cond{"name": name}).Exec()
	return err
}

// Package-level queries: a static call carries their rows.

func InsertJobLock(sess db.Session, rec *LockRecord) error {
	_, err := sess.Collection("job_locks").Insert(rec)
	return err
}

func DeleteJobLock(sess db.Session, name string) error {
	_, err := sess.SQL().DeleteFrom("job_locks").Where("name = ?", name).Exec()
	return err
}
