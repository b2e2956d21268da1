package clidoc

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/diskdoctor/diskdoctor/internal/suggest"
)

// SuggestFlag is a cobra flag error function: it answers a mistyped long
// flag with the closest one the command has (its own and those it
// inherits), by the distance cobra uses for commands (suggest.Closest).
func SuggestFlag(cmd *cobra.Command, err error) error {
	name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok {
		return err
	}
	var names []string
	add := func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	}
	cmd.Flags().VisitAll(add)
	cmd.InheritedFlags().VisitAll(add)
	if s := suggest.Closest(name, names); s != "" {
		return fmt.Errorf("unknown flag --%s: did you mean --%s?", name, s)
	}
	return fmt.Errorf("unknown flag --%s (see '%s --help')", name, cmd.CommandPath())
}

// UnknownCommand is cobra Args for a root command that takes none: a word
// there is a mistyped subcommand, answered with the closest one.
func UnknownCommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	var names []string
	for _, c := range cmd.Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
		}
	}
	msg := fmt.Sprintf("unknown command %q (commands: %s)", args[0], strings.Join(names, ", "))
	if s := suggest.Closest(args[0], names); s != "" {
		msg = fmt.Sprintf("unknown command %q: did you mean %q?", args[0], s)
	}
	return errors.New(msg)
}
