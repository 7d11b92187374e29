// Package ownlock: releases of locks a project writes itself, deleting the
// lock row by key.
package ownlock

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/uptrace/bun"
)

type taskLock struct {
	bun.BaseModel `bun:"table:task_locks"`
	Task          string `bun:"task,pk"`
	Owner         string `bun:"owner"`
}

// Positive: the release deletes the row by its key, whoever inserted it.
type TaskLocker struct{ db *bun.DB }

func (l *TaskLocker) Acquire(ctx context.Context, task, me string) error {
	_, err := l.db.NewInsert().Model(&taskLock{Task: task, Owner: me}).Exec(ctx)
	return err
}

func (l *TaskLocker) Release(ctx context.Context, task string) error {
	_, err := l.db.NewDelete().Model((*taskLock)(nil)).Where("task = ?", task).Exec(ctx) // want `Exec releases the lock of \(TaskLocker\).Release by deleting its row of model taskLock by key only, with no owner or token predicate`
	return err
}

// Negative: the release checks the owner (twin: TaskLocker).
type OwnedLocker struct{ db *bun.DB }

func (l *OwnedLocker) Acquire(ctx context.Context, task, me string) error {
	_, err := l.db.NewInsert().Model(&taskLock{Task: task, Owner: me}).Exec(ctx)
	return err
}

func (l *OwnedLocker) Release(ctx context.Context, task, me string) error {
	_, err := l.db.NewDelete().Model((*taskLock)(nil)).Where("task = ? AND owner = ?", task, me).Exec(ctx)
	return err
}

// Positive: WherePK on a model whose primary key is the lock's name only.
type PKLocker struct{ db *bun.DB }

func (l *PKLocker) Lock(ctx context.Context, lock *taskLock) error {
	_, err := l.db.NewInsert().Model(lock).Exec(ctx)
	return err
}

func (l *PKLocker) Unlock(ctx context.Context, lock *taskLock) error {
	_, err := l.db.NewDelete().Model(lock).WherePK().Exec(ctx) // want `Exec releases the lock of \(PKLocker\).Unlock by deleting its row of model taskLock by key only`
	return err
}

// Negative: the primary key includes the owner, so WherePK checks it
// (twin: PKLocker).
type heldLock struct {
	bun.BaseModel `bun:"table:held_locks"`
	Name          string `bun:"name,pk"`
	Holder        string `bun:"holder,pk"`
}

type HeldLocker struct{ db *bun.DB }

func (l *HeldLocker) Lock(ctx context.Context, lock *heldLock) error {
	_, err := l.db.NewInsert().Model(lock).Exec(ctx)
	return err
}

func (l *HeldLocker) Unlock(ctx context.Context, lock *heldLock) error {
	_, err := l.db.NewDelete().Model(lock).WherePK().Exec(ctx)
	return err
}

// Negative: a predicate the analysis cannot read (twin: TaskLocker).
type CondLocker struct {
	db   *bun.DB
	cond string
}

func (l *CondLocker) Acquire(ctx context.Context, task, me string) error {
	_, err := l.db.NewInsert().Model(&taskLock{Task: task, Owner: me}).Exec(ctx)
	return err
}

func (l *CondLocker) Release(ctx context.Context, task, me string) error {
	_, err := l.db.NewDelete().Model((*taskLock)(nil)).Where("task = ?", task).Where(l.cond, me).Exec(ctx)
	return err
}

// Positive: SQL text whose table is configured.
type SQLLocker struct {
	db    *sql.DB
	table string
}

func (l *SQLLocker) TryLock(ctx context.Context, id string) (bool, error) {
	res, err := l.db.ExecContext(ctx, "INSERT INTO "+l.table+" (lock_id) VALUES ($1) ON CONFLICT DO NOTHING", id)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

func (l *SQLLocker) Unlock(ctx context.Context, id string) error {
	_, err := l.db.ExecContext(ctx, fmt.Sprintf("DELETE FROM %s WHERE lock_id = $1", l.table), id) // want `ExecContext releases the lock of \(SQLLocker\).Unlock by deleting its row of table l.table by key only`
	return err
}

// Negative: the delete names the owner's token (twin: SQLLocker).
type TokenLocker struct {
	db    *sql.DB
	table string
}

func (l *TokenLocker) TryLock(ctx context.Context, id, token string) error {
	_, err := l.db.ExecContext(ctx, "INSERT INTO "+l.table+" (lock_id, token) VALUES ($1, $2) ON CONFLICT DO NOTHING", id, token)
	return err
}

func (l *TokenLocker) Unlock(ctx context.Context, id, token string) error {
	_, err := l.db.ExecContext(ctx, fmt.Sprintf("DELETE FROM %s WHERE lock_id = $1 AND token = $2", l.table), id, token)
	return err
}

// Negative: a release that empties the table selects no lock by key
// (twin: SQLLocker).
type ResetLocker struct {
	db    *sql.DB
	table string
}

func (l *ResetLocker) TryLock(ctx context.Context, id string) error {
	_, err := l.db.ExecContext(ctx, "INSERT INTO "+l.table+" (lock_id) VALUES ($1) ON CONFLICT DO NOTHING", id)
	return err
}

func (l *ResetLocker) UnlockAll(ctx context.Context) error {
	_, err := l.db.ExecContext(ctx, "DELETE FROM "+l.table)
	return err
}

// Negative: the release reads the owner before it deletes (a check, if in
// two steps; twin: SQLLocker).
type CheckedLocker struct {
	db    *sql.DB
	table string
	me    string
}

func (l *CheckedLocker) TryLock(ctx context.Context, id string) error {
	_, err := l.db.ExecContext(ctx, "INSERT INTO "+l.table+" (lock_id, owner) VALUES ($1, $2) ON CONFLICT DO NOTHING", id, l.me)
	return err
}

func (l *CheckedLocker) Unlock(ctx context.Context, id string) error {
	var owner string
	if err := l.db.QueryRowContext(ctx, "SELECT owner FROM "+l.table+" WHERE lock_id = $1", id).Scan(&owner); err != nil || owner != l.me {
		return err
	}
	_, err := l.db.ExecContext(ctx, "DELETE FROM "+l.table+" WHERE lock_id = $1", id)
	return err
}
