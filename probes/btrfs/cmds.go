package btrfs

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/diskdoctor/diskdoctor/machine"
)

// The commands, exactly as a recording holds them: show once for the
// machine, the others once per filesystem at its first mount point.

// ShowArgv lists every btrfs filesystem the kernel knows with its devices.
func ShowArgv() []string { return []string{"btrfs", "filesystem", "show"} }

// UsageArgv prints the filesystem's allocation in bytes (-b: raw numbers,
// btrfs-filesystem(8)).
func UsageArgv(mnt string) []string { return []string{"btrfs", "filesystem", "usage", "-b", mnt} }

// StatsArgv prints each device's persistent error counters.
func StatsArgv(mnt string) []string { return []string{"btrfs", "device", "stats", mnt} }

// ScrubArgv prints the state of the last or running scrub.
func ScrubArgv(mnt string) []string { return []string{"btrfs", "scrub", "status", mnt} }

// BalanceArgv prints whether a balance is running or paused.
func BalanceArgv(mnt string) []string { return []string{"btrfs", "balance", "status", mnt} }

// Bounds on what is parsed: a recording is not trusted; a real output is a
// few kB (a line or two per device).
const (
	MaxOutputBytes = 4 << 20
	MaxDevices     = 4096
	maxName        = 4096
)

// Run runs one of the commands and hands back its output. A non-zero exit
// is not an error by itself: btrfs balance status exits 1 while a balance
// runs (btrfs-balance(8), EXIT STATUS); the parser decides what the
// output says. No output at all with a non-zero exit is the command's
// failure.
func Run(ctx context.Context, h *machine.Host, argv []string) ([]byte, machine.CmdResult, error) {
	res, err := h.Run(ctx, argv...)
	if err != nil {
		return nil, res, err
	}
	if len(res.Stdout) > MaxOutputBytes {
		return nil, res, fmt.Errorf("%w: %s printed %d bytes (at most %d read)", machine.ErrParse, strings.Join(argv, " "), len(res.Stdout), MaxOutputBytes)
	}
	if res.Exit != 0 && len(bytes.TrimSpace(res.Stdout)) == 0 {
		return nil, res, machine.ExitError(res)
	}
	return res.Stdout, res, nil
}

// lines splits output into trimmed lines, each at most a bounded length.
func lines(b []byte) []string {
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), 64<<10)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}

// units are the suffixes btrfs-progs prints without -b (pretty_size:
// binary prefixes), for a capture made without it.
var units = map[string]float64{
	"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40, "PiB": 1 << 50, "EiB": 1 << 60,
}

// Size reads a size as btrfs-progs prints it: raw bytes with -b
// ("1048576"), or a number with a binary unit ("1.00MiB", "0.00B"). ok is
// false for anything else.
func Size(s string) (uint64, bool) {
	s = strings.TrimSpace(s)
	if n, err := strconv.ParseUint(s, 10, 64); err == nil {
		return n, true
	}
	i := strings.IndexFunc(s, func(r rune) bool { return !(r >= '0' && r <= '9' || r == '.') })
	if i <= 0 {
		return 0, false
	}
	mul, ok := units[s[i:]]
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseFloat(s[:i], 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) || v < 0 || v*mul >= math.MaxUint64 {
		return 0, false
	}
	return uint64(math.Round(v * mul)), true
}

// printable: a path or word from the output without control characters,
// of a bounded length.
func printable(s string) bool {
	if s == "" || len(s) > maxName {
		return false
	}
	for _, r := range s {
		if r < ' ' || r == 0x7f {
			return false
		}
	}
	return true
}
