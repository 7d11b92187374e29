// Package cobra is a test stub of the command type.
package cobra

type Command struct {
	Use   string
	Short string
	Run   func(cmd *Command, args []string)
	RunE  func(cmd *Command, args []string) error
}

func (c *Command) AddCommand(cmds ...*Command) {}
