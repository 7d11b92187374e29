// Package gormlock: releases of lock rows a project writes with gorm.
package gormlock

import (
	"context"

	"gorm.io/gorm"
)

type TaskLock struct {
	Task  string `gorm:"primaryKey"`
	Owner string
}

// Positive: the release deletes by the task's key, whoever holds it.
type Locker struct{ db *gorm.DB }

func (l *Locker) Acquire(ctx context.Context, task, me string) error {
	return l.db.Create(&TaskLock{Task: task, Owner: me}).Error
}

func (l *Locker) Release(ctx context.Context, task string) error {
	return l.db.Delete(&TaskLock{}, "task = ?", task).Error // want `Delete releases the lock of \(Locker\).Release by deleting its row of model TaskLock by key only`
}

// Positive: Delete of the value deletes by its primary key.
type ValueLocker struct{ db *gorm.DB }

func (l *ValueLocker) Acquire(ctx context.Context, lock *TaskLock) error {
	return l.db.Create(lock).Error
}

func (l *ValueLocker) Release(ctx context.Context, lock *TaskLock) error {
	return l.db.Delete(lock).Error // want `Delete releases the lock of \(ValueLocker\).Release by deleting its row of model TaskLock by key only`
}

// Negative: the release names the owner (twin: Locker).
type OwnedLocker struct{ db *gorm.DB }

func (l *OwnedLocker) Acquire(ctx context.Context, task, me string) error {
	return l.db.Create(&TaskLock{Task: task, Owner: me}).Error
}

func (l *OwnedLocker) Release(ctx context.Context, task, me string) error {
	return l.db.Where("task = ? AND owner = ?", task, me).Delete(&TaskLock{}).Error
}

// Negative: a condition the analysis cannot read (twin: Locker).
type StructCondLocker struct{ db *gorm.DB }

func (l *StructCondLocker) Acquire(ctx context.Context, task, me string) error {
	return l.db.Create(&TaskLock{Task: task, Owner: me}).Error
}

func (l *StructCondLocker) Release(ctx context.Context, task, me string) error {
	return l.db.Where(&TaskLock{Task: task, Owner: me}).Delete(&TaskLock{}).Error
}
