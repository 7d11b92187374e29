// Package wal is a write-ahead log in segment files on the local disk:
// each replica has its own.
package wal

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
)

type Log struct {
	dir  string
	head *os.File
}

func (l *Log) Dir() string { return l.dir }

// Segments returns the first and last segment numbers in dir.
func Segments(dir string) (first, last int, err error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return 0, 0, err
	}
	var ns []int
	for _, e := range ents {
		if n, err := strconv.Atoi(e.Name()); err == nil {
			ns = append(ns, n)
		}
	}
	if len(ns) == 0 {
		return -1, -1, nil
	}
	sort.Ints(ns)
	return ns[0], ns[len(ns)-1], nil
}

// Range is Segments as a method.
func (l *Log) Range() (first, last int, err error) { return Segments(l.dir) }

// Truncate removes the segments below n.
func (l *Log) Truncate(n int) error {
	first, _, err := Segments(l.dir)
	if err != nil {
		return err
	}
	for i := first; i < n; i++ {
		if err := os.Remove(filepath.Join(l.dir, fmt.Sprint(i))); err != nil {
			return err
		}
	}
	return nil
}
