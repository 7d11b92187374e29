// Package xorm is a minimal stand-in for xorm.io/xorm: the call shapes the
// effects analysis reads.
package xorm

// Engine is a database handle.
type Engine struct{}

// Session is a builder; every condition method returns it.
type Session struct{}

func (e *Engine) ID(id any) *Session                       { return &Session{} }
func (e *Engine) Where(q any, args ...any) *Session        { return &Session{} }
func (e *Engine) Insert(beans ...any) (int64, error)       { return 0, nil }
func (e *Engine) Update(bean any, c ...any) (int64, error) { return 0, nil }
func (e *Engine) Delete(beans ...any) (int64, error)       { return 0, nil }

func (s *Session) ID(id any) *Session                       { return s }
func (s *Session) Where(q any, args ...any) *Session        { return s }
func (s *Session) Cols(cols ...string) *Session             { return s }
func (s *Session) Incr(col string, arg ...any) *Session     { return s }
func (s *Session) Decr(col string, arg ...any) *Session     { return s }
func (s *Session) Insert(beans ...any) (int64, error)       { return 0, nil }
func (s *Session) Update(bean any, c ...any) (int64, error) { return 0, nil }
func (s *Session) Delete(beans ...any) (int64, error)       { return 0, nil }
