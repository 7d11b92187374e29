// Package cli is a test stub of a command-line library the built-in
// knowledge base does not name.
package cli

type Context struct{}

type ActionFunc func(*Context) error

type Command struct {
	Name        string
	Usage       string
	Action      ActionFunc
	Subcommands []*Command
}

type App struct {
	Name     string
	Commands []*Command
}
