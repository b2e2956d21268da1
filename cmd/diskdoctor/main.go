// Command diskdoctor examines a Linux machine's storage — drive write
// caches, TRIM, PCIe links, CPU power states, I/O pressure — compares what it
// sees with the drives' datasheets, and prints ranked findings with the
// commands that fix them. It only reads; it never changes the machine.
//
// This package is the command line only: it parses flags, calls doctor/
// (the examination) and report/ (the renderers and the one atomic writer),
// and turns the result into an exit status.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/diskdoctor/diskdoctor/doctor"
	"github.com/diskdoctor/diskdoctor/internal/buildinfo"
	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/report"
	"github.com/diskdoctor/diskdoctor/rules"
)

// version is set at build time with -ldflags "-X main.version=..." (make
// build and the packages, from packaging/version.sh); init resolves an
// unset one from the build info (buildinfo.Version).
var version string

func init() { version = buildinfo.Version(version) }

func main() {
	crashBySignal()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// crashBySignal makes a fatal error of the Go runtime (out of memory, an
// unrecovered panic in a goroutine of a library, a concurrent map write,
// SIGQUIT) end the process by SIGABRT instead of exit status 2, which the
// doctor's formats read as a critical verdict (runtime/panic.go fatalpanic
// and dieFromSignal; GOTRACEBACK=crash in runtime/extern.go). The trace on
// stderr is the runtime's fullest; no core is written (machine.NoCoreDumps):
// it would hold the serials a snapshot redacts. The doctor's own panics are
// caught before they get here (run: exit 3).
func crashBySignal() {
	machine.NoCoreDumps()
	debug.SetTraceback("crash")
}

// run is main without the process: tests call it directly. A panic is a bug,
// and its exit status is 3 (UNKNOWN), never that of a verdict (2 under
// --format npd, whose Unknown it is).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) (code int) {
	// Last of all: a format with an exit protocol of its own (--format
	// npd) gets its status for the doctor's, a panic's 3 too.
	defer func() { code = report.ExitStatus(flagArg(args, "format", "f"), code) }()
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "diskdoctor: internal error, the machine was not examined (please report this): %v\n%s", r, debug.Stack())
			failure(stdout, args, report.FailInternal, fmt.Sprintf("internal error: %v", r))
			code = rules.ExitUnknown
		}
	}()
	exit := rules.ExitOK
	root := newRootCmd(&exit)
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return exit
	}
	if msg := err.Error(); msg != "" {
		fmt.Fprintln(stderr, "diskdoctor:", msg)
	}
	// A subcommand may end with a verdict of its own (bench refusing on
	// a critical finding exits 2).
	var ec interface{ ExitCode() int }
	if errors.As(err, &ec) {
		return ec.ExitCode()
	}
	// The examination's formats say it failed in their own form; the
	// subcommands have formats of their own.
	if cmd == root {
		reason := report.FailUsage
		var ex examineError
		switch {
		case ctx.Err() != nil || errors.Is(err, doctor.ErrInterrupted) || errors.Is(err, doctor.ErrDeadline) || errors.Is(err, context.Canceled):
			reason = report.FailInterrupted
		case errors.As(err, &ex):
			reason = report.FailExamine
		}
		failure(stdout, args, reason, err.Error())
	}
	return rules.ExitUnknown
}

// examineError is a run whose flags were right and whose examination or
// rendering failed.
type examineError struct{ error }

func (e examineError) Unwrap() error { return e.error }

// failure writes the failure form of the --format the arguments ask for
// (read from them, since a usage error may come before the flags are
// parsed), to stdout and to the --output file (report.EmitFailure).
func failure(stdout io.Writer, args []string, reason, message string) {
	report.EmitFailure(stdout, flagArg(args, "output", "o"), flagArg(args, "format", "f"), tool(), reason, message)
}

// flagArg is the value of the last --long/-short in args ("" if none), as
// pflag would read it: --long=x, --long x, -s x, -sx; nothing after --.
func flagArg(args []string, long, short string) string {
	value := ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return value
		case a == "--"+long || a == "-"+short:
			if i+1 < len(args) {
				value = args[i+1]
				i++
			}
		case strings.HasPrefix(a, "--"+long+"="):
			value = strings.TrimPrefix(a, "--"+long+"=")
		case strings.HasPrefix(a, "-"+short) && !strings.HasPrefix(a, "--"):
			value = strings.TrimPrefix(strings.TrimPrefix(a, "-"+short), "=")
		}
	}
	return value
}

// exitStatus ends a subcommand with a status that is a verdict, not a
// failure (diff: something got worse).
type exitStatus int

func (e exitStatus) Error() string { return "" }
func (e exitStatus) ExitCode() int { return int(e) }
