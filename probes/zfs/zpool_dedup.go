package zfs

import (
	"bufio"
	"bytes"
	"context"
	"math"
	"slices"
	"strings"

	"github.com/diskdoctor/diskdoctor/machine"
)

// dedupArgv prints every pool's status with its dedup table summary
// (zpool-status(8) -D: "Display a histogram of deduplication statistics,
// showing the allocated and referenced blocks and the number of entries
// in the DDT"). The summary comes from the pool's in-core statistics
// (ZPOOL_CONFIG_DDT_OBJ_STATS of the pool's config), so the command
// reads no table from disk.
var dedupArgv = []string{"zpool", "status", "-D"}

// DedupArgv is `zpool status -D` as the doctor runs it (a copy).
func DedupArgv() []string { return slices.Clone(dedupArgv) }

// DDT is one pool's dedup table summary: the line after "dedup:".
type DDT struct {
	Pool    string
	Entries float64
	// InCore is the whole table's in-core size in bytes: entries times
	// the per-entry figure where the line gives one per entry.
	InCore float64
	// OnDisk likewise, in bytes.
	OnDisk float64
	// PerEntry: the line's sizes were per entry (OpenZFS' own releases:
	// ddt_get_dedup_object_stats, module/zfs/ddt_stats.c, divides the
	// summed sizes by the entry count); false where the line printed
	// totals (the builds that add ", N cached (P%)").
	PerEntry bool
	Line     string // the raw line, for evidence
}

// ParseDedup reads DedupArgv's output: each pool's "dedup:" line, under
// the "pool:" line that names it. "no DDT entries" is a table with none.
// A pool whose line is absent or not of either form is left out: its
// table is unknown, not empty. The histogram that follows is not read.
func ParseDedup(b []byte) map[string]*DDT {
	out := map[string]*DDT{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	pool := ""
	for sc.Scan() {
		line := strings.TrimSpace(strings.TrimRight(sc.Text(), "\r"))
		if name, ok := strings.CutPrefix(line, "pool:"); ok {
			pool = strings.TrimSpace(name)
			if !poolName(pool) {
				pool = ""
			}
			continue
		}
		rest, ok := strings.CutPrefix(line, "dedup:")
		if !ok || pool == "" {
			continue
		}
		if d := parseDDTLine(strings.TrimSpace(rest)); d != nil {
			d.Pool, d.Line = pool, line
			out[pool] = d
		}
		pool = ""
	}
	return out
}

// parseDDTLine reads "no DDT entries" or "DDT entries N, size X on disk,
// Y in core" with an optional ", Z cached (P%)" (cmd/zpool/zpool_main.c,
// print_dedup_stats; the sizes are plain numbers in 0.6, zfs_nicenum in
// 0.7 and zfs_nicebytes since 0.8). nil for anything else.
func parseDDTLine(s string) *DDT {
	if s == "no DDT entries" {
		return &DDT{PerEntry: true}
	}
	rest, ok := strings.CutPrefix(s, "DDT entries ")
	if !ok {
		return nil
	}
	parts := strings.Split(rest, ",")
	if len(parts) < 3 || len(parts) > 4 {
		return nil
	}
	n, ok := parseCount(strings.TrimSpace(parts[0]))
	if !ok {
		return nil
	}
	disk, ok1 := sizeBefore(parts[1], "size ", " on disk")
	core, ok2 := sizeBefore(parts[2], "", " in core")
	if !ok1 || !ok2 {
		return nil
	}
	d := &DDT{Entries: float64(n), PerEntry: len(parts) == 3}
	if d.PerEntry {
		disk, core = disk*d.Entries, core*d.Entries
	}
	if math.IsInf(disk, 0) || math.IsInf(core, 0) {
		return nil
	}
	d.OnDisk, d.InCore = disk, core
	return d
}

// sizeBefore reads the size in " <prefix>SIZE<suffix>".
func sizeBefore(part, prefix, suffix string) (float64, bool) {
	s, ok := strings.CutPrefix(strings.TrimSpace(part), prefix)
	if !ok {
		return 0, false
	}
	s, ok = strings.CutSuffix(s, suffix)
	if !ok {
		return 0, false
	}
	return ParseSize(s)
}

// ReadDedup runs DedupArgv.
func ReadDedup(ctx context.Context, h *machine.Host) (map[string]*DDT, machine.CmdResult, error) {
	res, err := h.Run(ctx, dedupArgv...)
	if err != nil {
		return nil, res, err
	}
	if res.Exit != 0 {
		return nil, res, machine.ExitError(res)
	}
	// A pool without a line (a faulted pool's config has no dedup
	// statistics, print_dedup_stats) is absent from the map: the caller
	// judges it unknown.
	return ParseDedup(res.Stdout), res, nil
}
