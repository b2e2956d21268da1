// Package bench is `diskdoctor bench`: it resolves the target path to its
// devices, runs the doctor's preflight on them, measures competing I/O,
// drives fio (or dd) through one Runner, and reads the figures against the
// device's datasheet.
//
// It owns the benchmark's decisions and results. It must not touch the
// machine itself: facts come through machine.Host, and everything that
// executes a program or writes a file (the test file, fio, dd) goes through
// the Runner, which a test replaces with recorded fio JSON. Its tables are
// rendered here (render.go) with report's styles.
package bench

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dustin/go-humanize"
)

// Options are a bench run's settings, as the command line gives them.
type Options struct {
	Profile     string // cdm, sync, sweep
	Runtime     time.Duration
	Size        uint64 // test file bytes (ParseSize)
	Engine      string // auto or a fio engine
	DryRun      bool
	Force       bool
	DeviceWrite bool // --device-write-i-know
	Steady      bool
	SteadyMax   time.Duration
	Write       bool // sweep: random writes instead of reads
	MaxDepth    int  // sweep: highest load (queue depth × jobs)
	Fio         string
	DD          bool // force the dd fallback
	Buffered    bool // direct=0 even where O_DIRECT works
	Datasheets  string
	// PreflightWindow is how long the preflight watches the target's
	// devices for other processes' I/O (0: not at all).
	PreflightWindow time.Duration
	ProbeTimeout    time.Duration
	// Progress receives progress lines; nil for none.
	Progress io.Writer
	// Verbose: the progress lines also name each fio command.
	Verbose bool
	// Width is the columns messages are laid out for (the refusal's
	// process table, the dry run's comments); 0 is report.DefaultWidth.
	Width int
	// PID names the test file (.diskdoctor-bench-PID.tmp); 0 is this
	// process. Recorded runs fix it, so that their argv match.
	PID int
}

// Profiles are the --profile values, a new list each time.
func Profiles() []string { return []string{"cdm", "sync", "sweep"} }

// Engines is the auto order, asynchronous engines first: a new list each
// time.
func Engines() []string { return []string{"io_uring", "libaio", "posixaio", "psync"} }

// Validate checks what the flags cannot.
func (o *Options) Validate() error {
	if !slices.Contains(Profiles(), o.Profile) {
		return fmt.Errorf("unknown --profile %q (cdm, sync, sweep)", o.Profile)
	}
	if o.Runtime < time.Second {
		return fmt.Errorf("--runtime %s: at least 1s", o.Runtime)
	}
	if o.MaxDepth < 1 || o.MaxDepth > 4096 {
		return fmt.Errorf("--max-depth %d: between 1 and 4096", o.MaxDepth)
	}
	if o.Steady && o.SteadyMax < 2*time.Second {
		return fmt.Errorf("--steady-max %s: at least 2s", o.SteadyMax)
	}
	if strings.ContainsAny(o.Engine, "= \t\n") || o.Engine == "" {
		return fmt.Errorf("--engine %q: not an engine name", o.Engine)
	}
	if o.Write && o.Profile != "sweep" {
		return errors.New("--write applies to --profile sweep")
	}
	if o.PreflightWindow < 0 {
		return fmt.Errorf("--preflight-window %s: not negative", o.PreflightWindow)
	}
	if o.Size < minSize {
		return fmt.Errorf("--size %s: at least %s", Size(o.Size), Size(minSize))
	}
	return nil
}

const (
	mib     = 1 << 20
	minSize = 4 * mib
)

// ParseSize reads a test file size as fio and speedtest-hd users type it:
// "4g", "512m", "1GiB", "64 MiB", "10GB", "4096", in any case. A single
// letter k/m/g/t/p and the IEC forms KiB…PiB are powers of 1024 (as fio
// reads them); KB/MB/GB/TB are powers of 1000. The result is rounded down
// to whole MiB, which every block size divides.
func ParseSize(s string) (uint64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	if strings.HasPrefix(t, "-") {
		return 0, fmt.Errorf("--size %q: want a size such as 4g, 1GiB or 512MiB", s)
	}
	// fio's suffixes: one letter, binary.
	if n := len(t); n > 0 && strings.ContainsRune("kmgtp", rune(t[n-1])) {
		t += "ib"
	}
	v, err := humanize.ParseBytes(t)
	if err != nil || v == 0 {
		return 0, fmt.Errorf("--size %q: want a size such as 4g, 1GiB or 512MiB", s)
	}
	v -= v % mib
	if v < minSize {
		return 0, fmt.Errorf("--size %q: at least %s", s, Size(minSize))
	}
	return v, nil
}

// Size prints a byte count in binary units, as people read it ("1.5 GiB").
func Size(n uint64) string { return humanize.IBytes(n) }

// SizeArg prints a byte count as a --size argument ("64GiB"): no space, so
// it stays one shell word, and ParseSize reads it back.
func SizeArg(n uint64) string { return strings.ReplaceAll(humanize.IBytes(n), " ", "") }

// ParseRuntime reads --runtime: a Go duration ("5s", "1m30s") or, as
// speedtest-hd and fio take it, bare seconds ("10").
func ParseRuntime(s string) (time.Duration, error) {
	t := strings.TrimSpace(s)
	if n, err := strconv.ParseFloat(t, 64); err == nil {
		if n <= 0 || n > 1e6 {
			return 0, fmt.Errorf("--runtime %q: want seconds such as 10, or a duration such as 5s", s)
		}
		return time.Duration(n * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(t)
	if err != nil {
		return 0, fmt.Errorf("--runtime %q: want seconds such as 10, or a duration such as 5s", s)
	}
	return d, nil
}
