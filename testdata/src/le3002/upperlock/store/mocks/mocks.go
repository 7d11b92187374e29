// Package mocks holds a test double of store.Mocked.
package mocks

import "le3002/upperlock/store"

type Mocked struct{}

func (Mocked) TakeMocked(rec *store.LockRecord) error { return nil }
func (Mocked) DropMocked(name string) error           { return nil }
