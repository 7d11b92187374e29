// Package upperlock takes and releases lock rows kept with upper/db, in
// its own package and through the queries of package store.
package upperlock

import (
	"time"

	"github.com/upper/db/v4"

	"le3002/upperlock/store"
	"le3002/upperlock/store/mocks"
)

// Positive: the release deletes the row by name only, through the only
// implementation of store.Queries.
type Sem struct {
	q    store.Queries
	name string
	me   string
}

func (s *Sem) lock() bool {
	return s.q.InsertLock(&store.LockRecord{Name: s.name, Controller: s.me, Time: time.Now()}) == nil
}

func (s *Sem) unlock() {
	_ = s.q.DeleteLock(s.name) // want `DeleteLock releases the lock of \(Sem\).unlock by deleting its row of table q.table \(in store.DeleteLock\) by key only`
}

// Positive: the insert through Values, the delete through Find(...).Delete().
type FindSem struct {
	q    store.Queries
	name string
}

func (s *FindSem) Lock() error {
	return s.q.InsertLockSQL(&store.LockRecord{Name: s.name})
}

func (s *FindSem) Unlock() error {
	return s.q.DeleteLockFind(s.name) // want `DeleteLockFind releases the lock of \(FindSem\).Unlock by deleting its row of table q.table`
}

// Negative: the delete also tests the controller column, which the
// insert writes from this instance's name (twin: Sem).
type OwnedSem struct {
	q    store.Queries
	name string
	me   string
}

func (s *OwnedSem) lock() bool {
	return s.q.InsertLock(&store.LockRecord{Name: s.name, Controller: s.me}) == nil
}

func (s *OwnedSem) unlock() {
	_ = s.q.DeleteOwnedLock(s.name, s.me)
}

// Negative: the delete tests the row's time: only an expired row goes
// (twin: Sem).
type ExpirySem struct {
	q    store.Queries
	name string
}

func (s *ExpirySem) lock() bool {
	return s.q.InsertLock(&store.LockRecord{Name: s.name}) == nil
}

func (s *ExpirySem) unlock() {
	_ = s.q.DeleteExpiredLock(s.name, time.Now())
}

// Negative: the delete's condition is a value the analysis does not read
// (twin: Sem).
type CondSem struct {
	q    store.Queries
	name string
}

func (s *CondSem) lock() bool {
	return s.q.InsertLock(&store.LockRecord{Name: s.name}) == nil
}

func (s *CondSem) unlock() {
	_ = s.q.DeleteLockCond(s.name, db.Cond{"controller": "me"})
}

// Negative: the release deletes another store's table, named by the same
// expression (twin: Sem).
type MixedSem struct {
	q    store.Queries
	o    store.Other
	name string
}

func (s *MixedSem) lock() bool {
	return s.q.InsertLock(&store.LockRecord{Name: s.name}) == nil
}

func (s *MixedSem) unlock() {
	_ = s.o.DeleteOther(s.name)
}

// Negative: store.Twice has two implementations (twin: Sem).
type TwiceSem struct {
	t    store.Twice
	name string
}

func (s *TwiceSem) lock() bool {
	return s.t.TakeTwice(&store.LockRecord{Name: s.name}) == nil
}

func (s *TwiceSem) unlock() {
	_ = s.t.DropTwice(s.name)
}

// Negative: store.Mocked has a second implementation visible here, the
// mock (twin: Sem).
type MockedSem struct {
	m    store.Mocked
	name string
}

var _ store.Mocked = mocks.Mocked{}

func (s *MockedSem) lock() bool {
	return s.m.TakeMocked(&store.LockRecord{Name: s.name}) == nil
}

func (s *MockedSem) unlock() {
	_ = s.m.DropMocked(s.name)
}

// Positive: package-level queries called statically.
type JobLock struct {
	sess db.Session
	name string
}

func (j *JobLock) Acquire() error {
	return store.InsertJobLock(j.sess, &store.LockRecord{Name: j.name})
}

func (j *JobLock) Release() error {
	return store.DeleteJobLock(j.sess, j.name) // want `DeleteJobLock releases the lock of \(JobLock\).Release by deleting its row of table job_locks by key only`
}

type lockRow struct {
	Name  string `db:"name"`
	Owner string `db:"owner"`
}

// Positive: the chains in the package itself.
type LocalLock struct {
	sess db.Session
	name string
	me   string
}

func (l *LocalLock) Lock() error {
	_, err := l.sess.Collection("locks").Insert(&lockRow{Name: l.name, Owner: l.me})
	return err
}

func (l *LocalLock) Unlock() error {
	_, err := l.sess.SQL().DeleteFrom("locks").Where(db.Cond{"name": l.name}).Exec() // want `Exec releases the lock of \(LocalLock\).Unlock by deleting its row of table locks by key only`
	return err
}

// Negative: the same, deleting only this instance's row (twin: LocalLock).
type LocalOwned struct {
	sess db.Session
	name string
	me   string
}

func (l *LocalOwned) Lock() error {
	_, err := l.sess.Collection("locks").Insert(&lockRow{Name: l.name, Owner: l.me})
	return err
}

func (l *LocalOwned) Unlock() error {
	_, err := l.sess.SQL().DeleteFrom("locks").Where(db.Cond{"name": l.name, "owner": l.me}).Exec()
	return err
}

// Negative: a condition the knowledge base does not name, Limit: the
// chain is not read (twin: LocalLock).
type LocalLimit struct {
	sess db.Session
	name string
}

func (l *LocalLimit) Lock() error {
	_, err := l.sess.Collection("locks").Insert(&lockRow{Name: l.name})
	return err
}

func (l *LocalLimit) Unlock() error {
	_, err := l.sess.SQL().DeleteFrom("locks").Where(db.Cond{"name": l.name}).Limit(1).Exec()
	return err
}
