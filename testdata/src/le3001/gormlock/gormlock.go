// Package gormlock: lock rows a project writes with gorm.
package gormlock

import (
	"context"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

type JobLock struct {
	Name string `gorm:"primaryKey;column:name"`
}

// Positive: Create fails on the primary key when the row exists; nothing
// gives the row an end.
type Locker struct{ db *gorm.DB }

func (l *Locker) TryLock(ctx context.Context, name string) bool {
	return l.db.WithContext(ctx).Create(&JobLock{Name: name}).Error == nil // want `Create takes the lock in \(Locker\).TryLock by inserting a row of model JobLock`
}

func (l *Locker) Unlock(ctx context.Context, name string) error {
	return l.db.WithContext(ctx).Where("name = ?", name).Delete(&JobLock{}).Error
}

// Negative: an auto-increment primary key takes a new value on every
// insert, so the insert takes nothing (twin: Locker).
type Event struct {
	ID   uint `gorm:"primaryKey"`
	Name string
}

type EventLog struct{ db *gorm.DB }

func (l *EventLog) Lock(ctx context.Context, name string) error {
	return l.db.Create(&Event{Name: name}).Error
}

func (l *EventLog) Unlock(ctx context.Context, name string) error {
	return l.db.Delete(&Event{}, "name = ?", name).Error
}

// Negative: clauses the analysis does not read may make the insert an
// upsert (twin: Locker).
type UpsertLocker struct{ db *gorm.DB }

func (l *UpsertLocker) TryLock(ctx context.Context, name string) bool {
	return l.db.Clauses(clause.OnConflict{UpdateAll: true}).Create(&JobLock{Name: name}).Error == nil
}

func (l *UpsertLocker) Unlock(ctx context.Context, name string) error {
	return l.db.Where("name = ?", name).Delete(&JobLock{}).Error
}

// Negative: gorm.Model brings created_at, a time a reader can judge
// staleness by (twin: Locker).
type StampedLock struct {
	gorm.Model
	Name string `gorm:"uniqueIndex"`
}

type StampedLocker struct{ db *gorm.DB }

func (l *StampedLocker) TryLock(ctx context.Context, name string) bool {
	return l.db.Create(&StampedLock{Name: name}).Error == nil
}

func (l *StampedLocker) Unlock(ctx context.Context, name string) error {
	return l.db.Where("name = ?", name).Delete(&StampedLock{}).Error
}

var _ = time.Second
