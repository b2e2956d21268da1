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
	"strconv"
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
	hidden := restoreMemLimit()
	if err := checkRuntimeEnv(os.Getenv, hidden); err != nil {
		fmt.Fprintln(os.Stderr, "diskdoctor:", err)
		os.Exit(rules.ExitUnknown)
	}
	limitMemory(os.Getenv, hidden)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// crashBySignal makes a fatal error of the Go runtime (out of memory, an
// unrecovered panic in a goroutine of a library, a concurrent map write,
// SIGQUIT) end the process by SIGABRT instead of exit status 2, a
// critical verdict's (runtime/panic.go fatalpanic and dieFromSignal;
// GOTRACEBACK=crash in runtime/extern.go): the shipped unit records a
// signal as a failure (its SuccessExitStatus lists 1 and 2 only), NRPE a
// CRITICAL with the trace on stderr (nrpe.c my_system). The trace is the
// runtime's fullest; no core is written (machine.NoCoreDumps). The
// doctor's own panics are caught before they get here (run: exit 3).
func crashBySignal() {
	machine.NoCoreDumps()
	debug.SetTraceback("crash")
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

// memoryPerDevice is one block device's share of softMemoryLimit on a
// machine of 1,000 disks with the device-mapper, multipath and loop
// devices a real one has besides them (1,196 block devices on the
// synthetic machine: LVM volumes, both paths of each multipathed drive,
// its map and the map's partition; an NVMe namespace's hidden per-path
// disk is not counted: checks.Options.Inventoried), so that the raise
// starts past such a machine, not at it (docs/performance.md).
const memoryPerDevice = 46 << 10

// gcPercent is the collector's pace below the limit: the heap may grow to
// three times what was live at the last cycle instead of twice. A run is
// short and the limit bounds its peak anyway, so fewer cycles cost less
// CPU for little memory (docs/performance.md).
const gcPercent = 200

// limitMemory sets softMemoryLimit unless GOMEMLIMIT says otherwise, and
// gcPercent unless GOGC does. A GOMEMLIMIT hidden from the runtime
// (restoreMemLimit) is applied here, as the runtime would have; it is one
// checkRuntimeEnv accepted.
func limitMemory(getenv func(string) string, hidden bool) {
	switch v := getenv("GOMEMLIMIT"); {
	case v == "":
		debug.SetMemoryLimit(softMemoryLimit)
	case hidden && v != "off":
		if n, ok := parseMemLimit(v); ok {
			debug.SetMemoryLimit(n)
		}
	}
	if getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
}

// minMemoryLimit is the least GOMEMLIMIT the doctor runs under: below it
// the collector runs without pause (a limit under the live heap of the
// smallest machine), which looks like a hang, not a verdict.
const minMemoryLimit = 16 << 20

// checkRuntimeEnv refuses GOGC and GOMEMLIMIT values the doctor cannot
// use. GOGC that is not a number the runtime silently reads as 100
// (runtime mgcpacer.go readGOGC). A GOMEMLIMIT the runtime cannot parse
// aborts it before main with exit status 2, a verdict's (mgcpacer.go
// readGOMEMLIMIT); hidden from it by the entry point (restoreMemLimit) it
// is refused here instead. A build without that entry point still aborts,
// which is one reason the shipped unit unsets both (docs/fleet.md).
func checkRuntimeEnv(getenv func(string) string, hidden bool) error {
	if v := getenv("GOGC"); v != "" && v != "off" {
		if n, err := strconv.Atoi(v); err != nil || n < 0 {
			return fmt.Errorf("GOGC=%q: not a percentage or off (the Go runtime would ignore it); unset it", v)
		}
	}
	if v := getenv("GOMEMLIMIT"); v != "" && v != "off" {
		n, ok := parseMemLimit(v)
		if !ok && hidden {
			return fmt.Errorf("GOMEMLIMIT=%q: not a size the Go runtime reads (a number of bytes with an optional B, KiB, MiB, GiB or TiB: 64MiB, not 64MB); unset it or set off", v)
		}
		if ok && n < minMemoryLimit {
			return fmt.Errorf("GOMEMLIMIT=%s: %d bytes, less than the %d MiB the doctor needs (the suffixes are B, KiB, MiB, GiB, TiB); unset it or set off", v, n, minMemoryLimit>>20)
		}
	}
	return nil
}

// parseMemLimit reads GOMEMLIMIT's syntax (runtime/debug SetMemoryLimit's
// documentation: a number of bytes with an optional B, KiB, MiB, GiB or
// TiB suffix); false where the doctor does not know it.
func parseMemLimit(v string) (int64, bool) {
	mult := int64(1)
	for _, u := range []struct {
		s string
		m int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40}, {"B", 1}} {
		if strings.HasSuffix(v, u.s) {
			v, mult = strings.TrimSuffix(v, u.s), u.m
			break
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 || n > (1<<62)/mult {
		return 0, false
	}
	return n * mult, true
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
// parsed); nothing for text or a format that is not one. With --output the
// form replaces the file too, so that a textfile collector's file does not
// keep the last good report after a run that could not examine the
// machine; an interrupted run (stopped by its operator or its deadline)
// leaves the file as it was.
func failure(stdout io.Writer, args []string, reason, message string) {
	format := flagArg(args, "format", "f")
	_ = report.Failure(stdout, format, tool(), reason, message)
	if out := flagArg(args, "output", "o"); out != "" && out != "-" && format != "" && format != "text" && reason != report.FailInterrupted {
		_ = machine.WriteAtomically(out, 0o644, func(w io.Writer) error {
			return report.Failure(w, format, tool(), reason, message)
		})
	}
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
