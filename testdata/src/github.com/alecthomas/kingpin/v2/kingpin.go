// Package kingpin is a test stub of the command-line parser's registration API.
package kingpin

type Application struct{}

type CmdClause struct{}

type ParseContext struct{}

type Action func(*ParseContext) error

func New(name, help string) *Application { return &Application{} }

func (a *Application) Command(name, help string) *CmdClause { return &CmdClause{} }

func (c *CmdClause) Command(name, help string) *CmdClause { return &CmdClause{} }

func (c *CmdClause) Action(a Action) *CmdClause { return c }

func (c *CmdClause) PreAction(a Action) *CmdClause { return c }
