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
	"syscall"

	"github.com/diskdoctor/diskdoctor/rules"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

func main() {
	limitMemory(os.Getenv)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// softMemoryLimit is the memory the Go runtime may hold (the heap and its
// own) before the collector works harder rather than let the process
// grow; with the program's own pages the process stays near 60 MiB. By
// default the collector lets the heap reach twice what was live at its
// last cycle, so the peak depended on where the cycles fell: a 1,000-disk
// machine peaked at 56-62 MiB from run to run. Below the limit nothing
// changes, and a machine of up to about 1,000 disks does not reach it.
// On 10,000 block devices the collector runs more often: 3 % more CPU for
// 63 MiB instead of 72 (docs/performance.md). GOMEMLIMIT in the
// environment replaces it; GOMEMLIMIT=off removes it.
const softMemoryLimit = 54 << 20

// limitMemory sets softMemoryLimit unless GOMEMLIMIT says otherwise.
func limitMemory(getenv func(string) string) {
	if getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(softMemoryLimit)
	}
}

// run is main without the process: tests call it directly. A panic is a bug,
// and its exit status is 3 (UNKNOWN), never that of a verdict.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "diskdoctor: internal error, the machine was not examined (please report this): %v\n%s", r, debug.Stack())
			code = rules.ExitUnknown
		}
	}()
	exit := rules.ExitOK
	root := newRootCmd(&exit)
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	if err := root.ExecuteContext(ctx); err != nil {
		if msg := err.Error(); msg != "" {
			fmt.Fprintln(stderr, "diskdoctor:", msg)
		}
		// A subcommand may end with a verdict of its own (bench refusing on
		// a critical finding exits 2).
		var ec interface{ ExitCode() int }
		if errors.As(err, &ec) {
			return ec.ExitCode()
		}
		return rules.ExitUnknown
	}
	return exit
}

// exitStatus ends a subcommand with a status that is a verdict, not a
// failure (diff: something got worse).
type exitStatus int

func (e exitStatus) Error() string { return "" }
func (e exitStatus) ExitCode() int { return int(e) }
