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
// grow, on a machine of up to about 1,000 disks. Without it the collector
// lets the heap reach twice what was live at its last cycle (the GOGC
// model of runtime/debug.SetGCPercent), so the peak depends on where the
// cycles fall. A larger machine gets memoryPerDevice per block device
// instead (sizeMemory): a fixed limit would make the collector run ever
// more often as the machine grows. GOMEMLIMIT in the environment replaces
// both; GOMEMLIMIT=off removes them. The figures behind both values are in
// docs/performance.md.
const softMemoryLimit = 54 << 20

// memoryPerDevice is a little more than one disk's share of the peak heap
// of a 1,000-disk run (docs/performance.md).
const memoryPerDevice = 54 << 10

// gcPercent is the collector's pace below the limit: the heap may grow to
// three times what was live at the last cycle instead of twice. A run is
// short and the limit bounds its peak anyway, so fewer cycles cost less
// CPU for little memory (docs/performance.md).
const gcPercent = 200

// limitMemory sets softMemoryLimit unless GOMEMLIMIT says otherwise, and
// gcPercent unless GOGC does.
func limitMemory(getenv func(string) string) {
	if getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(softMemoryLimit)
	}
	if getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
}

// sizeMemory raises the limit to memoryPerDevice per block device of the
// machine examined, unless GOMEMLIMIT says otherwise. It only raises: a
// process without limitMemory's (a test calling run) keeps none.
func sizeMemory(devices int) {
	raiseMemoryLimit(os.Getenv, int64(devices)*memoryPerDevice)
}

func raiseMemoryLimit(getenv func(string) string, want int64) {
	if getenv("GOMEMLIMIT") == "" && want > debug.SetMemoryLimit(-1) {
		debug.SetMemoryLimit(want)
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
