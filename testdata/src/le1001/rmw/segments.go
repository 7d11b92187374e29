package rmw

import (
	"context"
	"time"

	"le1001/rmw/kv"
	"le1001/rmw/segdb"
	"le1001/rmw/wal"
)

// Negative: a periodic truncation of this replica's own write-ahead log.
// The segment range is read through the log (Dir, Range) and Truncate
// takes last+1, but the log's methods only touch files on the local disk.
type Storage struct{ wal *wal.Log }

func (s *Storage) truncate() error {
	first, last, err := wal.Segments(s.wal.Dir())
	if err != nil {
		return err
	}
	last--
	if last <= first {
		return nil
	}
	return s.wal.Truncate(last + 1)
}

func (s *Storage) truncateByRange() error {
	_, last, err := s.wal.Range()
	if err != nil {
		return err
	}
	return s.wal.Truncate(last + 1)
}

func (s *Storage) RunTruncate() {
	for range time.Tick(time.Minute) {
		s.truncate()
		s.truncateByRange()
	}
}

// Twin: the same range kept in a database, shared by the replicas.
type SQLSegments struct{ log *segdb.SQLLog }

func (s *SQLSegments) RunTruncate() {
	for range time.Tick(time.Minute) { // want `reads a value through s.log.Range \(segments.go:\d+\) and writes it back incremented through s.log.Truncate \(segments.go:\d+\)`
		_, last, err := s.log.Range()
		if err != nil {
			continue
		}
		s.log.Truncate(last + 1)
	}
}

// Twin: the same range kept in redis.
type RedisSegments struct{ log *segdb.RedisLog }

func (s *RedisSegments) RunTruncate() {
	for range time.Tick(time.Minute) { // want `reads a value through s.log.Range \(segments.go:\d+\) and writes it back incremented through s.log.Truncate \(segments.go:\d+\)`
		_, last, err := s.log.Range()
		if err != nil {
			continue
		}
		s.log.Truncate(last + 1)
	}
}

// Twin: behind an interface whose implementations in sight keep the
// range in a database or in redis.
type segmentLog interface {
	Range() (first, last int, err error)
	Truncate(n int) error
}

type SharedSegments struct{ log segmentLog }

func (s *SharedSegments) RunTruncate() {
	for range time.Tick(time.Minute) { // want `reads a value through s.log.Range \(segments.go:\d+\) and writes it back incremented through s.log.Truncate \(segments.go:\d+\)`
		_, last, err := s.log.Range()
		if err != nil {
			continue
		}
		s.log.Truncate(last + 1)
	}
}

// Negative (twin of RunQuota): the same quota update on a client of
// another package that keeps quotas in this process's memory.
func RunLocalQuota(ctx context.Context, l *kv.Local) {
	for range time.Tick(time.Minute) {
		q, err := l.GetQuota(ctx, "quota:exports")
		if err != nil {
			continue
		}
		q.Used++
		l.PutQuota(ctx, "quota:exports", q)
	}
}
