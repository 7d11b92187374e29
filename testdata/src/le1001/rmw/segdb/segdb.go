// Package segdb keeps the segment range of a log in a database or in
// redis, shared by the replicas, behind the methods of package wal's Log.
package segdb

import (
	"context"
	"database/sql"
	"strconv"

	"github.com/redis/go-redis/v9"
)

type SQLLog struct{ db *sql.DB }

func (l *SQLLog) Range() (first, last int, err error) {
	err = l.db.QueryRow(`SELECT first, last FROM segments WHERE log = 'rules'`).Scan(&first, &last)
	return first, last, err
}

func (l *SQLLog) Truncate(n int) error {
	_, err := l.db.Exec(`UPDATE segments SET first = $1 WHERE log = 'rules'`, n)
	return err
}

type RedisLog struct{ rdb *redis.Client }

func (l *RedisLog) Range() (first, last int, err error) {
	s, err := l.rdb.Get(context.Background(), "segments:rules:first").Result()
	if err != nil {
		return 0, 0, err
	}
	first, err = strconv.Atoi(s)
	return first, first, err
}

func (l *RedisLog) Truncate(n int) error {
	return l.rdb.Set(context.Background(), "segments:rules:first", n, 0).Err()
}
