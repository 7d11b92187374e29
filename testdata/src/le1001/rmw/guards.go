package rmw

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"log"
	"os"
	"strconv"
	"sync"
	"time"
)

type Counters interface {
	Get(ctx context.Context, key string) (int64, error)
	Set(ctx context.Context, key string, n int64) error
	CompareAndSwap(ctx context.Context, key string, old, new int64) (bool, error)
	Mark(ctx context.Context, offset int) error
}

var errConflict = errors.New("conflict")

// Negative: compare-and-set, its answer checked.
func casChecked(ctx context.Context, c Counters) error {
	n, err := c.Get(ctx, "invoices")
	if err != nil {
		return err
	}
	ok, err := c.CompareAndSwap(ctx, "invoices", n, n+1)
	if err != nil {
		return err
	}
	if !ok {
		return errConflict
	}
	return nil
}

// Twin: the compare-and-set's answer is dropped (only its error checked).
func casDropped(ctx context.Context, c Counters) error {
	n, err := c.Get(ctx, "invoices")
	if err != nil {
		return err
	}
	_, err = c.CompareAndSwap(ctx, "invoices", n, n+1)
	return err
}

// Twin: the answer is checked, but the write does not take the old value.
func setChecked(ctx context.Context, c Counters) error {
	n, err := c.Get(ctx, "invoices")
	if err != nil {
		return err
	}
	if err := c.Set(ctx, "invoices", n+1); err != nil {
		return err
	}
	return nil
}

func RunCAS(ctx context.Context, c Counters) {
	for range time.Tick(time.Minute) {
		casChecked(ctx, c)
	}
}

func RunCASDropped(ctx context.Context, c Counters) {
	for range time.Tick(time.Minute) { // want `reads a value through c.Get \(guards.go:\d+\) and writes it back incremented through c.CompareAndSwap`
		casDropped(ctx, c)
	}
}

func RunSetChecked(ctx context.Context, c Counters) {
	for range time.Tick(time.Minute) { // want `reads a value through c.Get \(guards.go:\d+\) and writes it back incremented through c.Set`
		setChecked(ctx, c)
	}
}

// Negative: SELECT ... FOR UPDATE in the transaction that writes.
func nextInvoiceLocked(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var n int64
	if err := tx.QueryRowContext(ctx, `SELECT n FROM sequences WHERE name = 'invoice' FOR UPDATE`).Scan(&n); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE sequences SET n = $1 WHERE name = 'invoice'`, n+1); err != nil {
		return err
	}
	return tx.Commit()
}

// Twin: the same transaction without FOR UPDATE.
func nextInvoiceUnlocked(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var n int64
	if err := tx.QueryRowContext(ctx, `SELECT n FROM sequences WHERE name = 'invoice'`).Scan(&n); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE sequences SET n = $1 WHERE name = 'invoice'`, n+1); err != nil {
		return err
	}
	return tx.Commit()
}

// Twin: FOR UPDATE outside a transaction: the lock ends with the SELECT.
func nextInvoiceNoTx(ctx context.Context, db *sql.DB) error {
	var n int64
	if err := db.QueryRowContext(ctx, `SELECT n FROM sequences WHERE name = 'invoice' FOR UPDATE`).Scan(&n); err != nil {
		return err
	}
	_, err := db.ExecContext(ctx, `UPDATE sequences SET n = $1 WHERE name = 'invoice'`, n+1)
	return err
}

func RunLocked(ctx context.Context, db *sql.DB) {
	for range time.Tick(time.Minute) {
		nextInvoiceLocked(ctx, db)
	}
}

func RunUnlocked(ctx context.Context, db *sql.DB) {
	for range time.Tick(time.Minute) { // want `reads a value through tx.QueryRowContext \(guards.go:\d+\) and writes it back incremented through tx.ExecContext`
		nextInvoiceUnlocked(ctx, db)
	}
}

func RunNoTx(ctx context.Context, db *sql.DB) {
	for range time.Tick(time.Minute) { // want `reads a value through db.QueryRowContext \(guards.go:\d+\) and writes it back incremented through db.ExecContext`
		nextInvoiceNoTx(ctx, db)
	}
}

// Negative: the instance's own counter, keyed by its host name.
func bumpOwn(ctx context.Context, c Counters) error {
	host, _ := os.Hostname()
	n, err := c.Get(ctx, host)
	if err != nil {
		return err
	}
	return c.Set(ctx, host, n+1)
}

// Twin: one key for all replicas.
func bumpShared(ctx context.Context, c Counters) error {
	key := "runs"
	n, err := c.Get(ctx, key)
	if err != nil {
		return err
	}
	return c.Set(ctx, key, n+1)
}

func RunOwn(ctx context.Context, c Counters) {
	for range time.Tick(time.Minute) {
		bumpOwn(ctx, c)
	}
}

func RunShared(ctx context.Context, c Counters) {
	for range time.Tick(time.Minute) { // want `reads a value through c.Get \(guards.go:\d+\) and writes it back incremented through c.Set`
		bumpShared(ctx, c)
	}
}

// Negative: the value written is the one read (a copy), not moved on; the
// incremented value only goes to the log.
func copyCount(ctx context.Context, c Counters) error {
	n, err := c.Get(ctx, "runs")
	if err != nil {
		return err
	}
	log.Printf("next run %d", n+1)
	return c.Set(ctx, "runs:copy", n)
}

// Negative: the value written does not come from the read.
func resetCount(ctx context.Context, c Counters) error {
	n, err := c.Get(ctx, "runs")
	if err != nil || n < 100 {
		return err
	}
	return c.Set(ctx, "runs", int64(time.Now().Unix()%7))
}

// Twin of both: the value read, incremented.
func stepCount(ctx context.Context, c Counters) error {
	n, err := c.Get(ctx, "runs")
	if err != nil || n < 100 {
		return err
	}
	return c.Set(ctx, "runs", n+7)
}

func RunCopy(ctx context.Context, c Counters) {
	for range time.Tick(time.Minute) {
		copyCount(ctx, c)
		resetCount(ctx, c)
	}
}

func RunStep(ctx context.Context, c Counters) {
	for range time.Tick(time.Minute) { // want `reads a value through c.Get \(guards.go:\d+\) and writes it back incremented through c.Set`
		stepCount(ctx, c)
	}
}

// Negative: read only; the incremented value is logged.
func RunReadOnly(ctx context.Context, c Counters) {
	for range time.Tick(time.Minute) {
		n, err := c.Get(ctx, "runs")
		if err == nil {
			log.Printf("next run %d", n+1)
		}
	}
}

// Negative: read from one store, written to another.
func RunCopyAcross(ctx context.Context, src, dst Counters) {
	for range time.Tick(time.Minute) {
		n, err := src.Get(ctx, "runs")
		if err == nil {
			src.Set(ctx, "copied", 1)
			dst.Set(ctx, "runs", n+1)
		}
	}
}

// Twin of both: written back to the store it was read from.
func RunWriteBack(ctx context.Context, src, dst Counters) {
	for range time.Tick(time.Minute) { // want `reads a value through src.Get \(guards.go:\d+\) and writes it back incremented through src.Set`
		n, err := src.Get(ctx, "runs")
		if err == nil {
			src.Set(ctx, "runs", n+1)
		}
	}
}

// Pages reads through a cursor: a call that takes a derived value and
// returns data is a read.
type Pages interface {
	// Page reads the page at cursor and returns the cursor after it.
	Page(ctx context.Context, cursor int) (int, error)
	Mark(ctx context.Context, cursor int) error
}

// Negative: the next page, read from a cursor moved on.
func RunPaging(ctx context.Context, p Pages) {
	for range time.Tick(time.Minute) {
		after, err := p.Page(ctx, 0)
		if err != nil {
			continue
		}
		next, _ := p.Page(ctx, after+1)
		log.Println(next)
	}
}

// Twin: the moved-on cursor handed to a call whose answer is only an error.
func RunMarking(ctx context.Context, p Pages) {
	for range time.Tick(time.Minute) { // want `reads a value through p.Page \(guards.go:\d+\) and writes it back incremented through p.Mark`
		after, err := p.Page(ctx, 0)
		if err != nil {
			continue
		}
		p.Mark(ctx, after+1)
	}
}

// Negative: a process-local map behind the standard library.
func RunLocalMap(m *sync.Map) {
	for range time.Tick(time.Minute) {
		v, _ := m.Load("runs")
		n, _ := v.(int)
		m.Store("runs", n+1)
	}
}

// Negative: a concrete store of this package that keeps its counter in
// memory.
type memCounter struct {
	mu sync.Mutex
	n  map[string]int64
}

func (m *memCounter) Get(key string) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.n[key], nil
}

func (m *memCounter) Set(key string, n int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.n[key] = n
	return nil
}

func RunMemCounter(m *memCounter) {
	for range time.Tick(time.Minute) {
		n, _ := m.Get("runs")
		m.Set("runs", n+1)
	}
}

// Negative: a standard-library value in memory, whose writes can fail.
func RunBuffer(b *bytes.Buffer) {
	for range time.Tick(time.Minute) {
		n := b.Len()
		b.WriteString(strconv.Itoa(n + 1))
	}
}

// Tally has an implementation in sight that keeps the count in memory:
// which one runs decides, and the analysis cannot see that.
type Tally interface {
	Count(ctx context.Context) (int, error)
	SetCount(ctx context.Context, n int) error
}

type memTally struct{ n int }

func (m *memTally) Count(ctx context.Context) (int, error)    { return m.n, nil }
func (m *memTally) SetCount(ctx context.Context, n int) error { m.n = n; return nil }

// Negative: an interface with a process-local implementation in sight.
func RunTally(ctx context.Context, t Tally) {
	for range time.Tick(time.Minute) {
		n, err := t.Count(ctx)
		if err == nil {
			t.SetCount(ctx, n+1)
		}
	}
}

// Cache cannot fail: nothing says it leaves the process.
type Cache interface {
	Get(key string) int
	Put(key string, n int)
}

// Negative: a write that cannot fail, on a store the analysis cannot see.
func RunCache(c Cache) {
	for range time.Tick(time.Minute) {
		c.Put("runs", c.Get("runs")+1)
	}
}

type Doc struct {
	Count   int
	Version int64
}

type Docs interface {
	Load(ctx context.Context) (*Doc, error)
	SaveIfVersion(ctx context.Context, d *Doc, version int64) error
}

// Negative: a version-checked write, its conflict error returned.
func bumpVersioned(ctx context.Context, d Docs) error {
	doc, err := d.Load(ctx)
	if err != nil {
		return err
	}
	v := doc.Version
	doc.Count++
	return d.SaveIfVersion(ctx, doc, v)
}

// Twin: the version conflict is dropped.
func bumpVersionDropped(ctx context.Context, d Docs) {
	doc, err := d.Load(ctx)
	if err != nil {
		return
	}
	doc.Count++
	d.SaveIfVersion(ctx, doc, doc.Version)
}

func RunVersioned(ctx context.Context, d Docs) {
	for range time.Tick(time.Minute) {
		bumpVersioned(ctx, d)
	}
}

func RunVersionDropped(ctx context.Context, d Docs) {
	for range time.Tick(time.Minute) { // want `reads a value through d.Load \(guards.go:\d+\) and writes it back incremented through d.SaveIfVersion`
		bumpVersionDropped(ctx, d)
	}
}
