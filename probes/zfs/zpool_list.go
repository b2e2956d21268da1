package zfs

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/diskdoctor/diskdoctor/machine"
)

// listArgv reads each pool's space in exact values: -H tab-separated
// without a header, -p bytes and plain percentages (zpool-list(8)). The
// columns are zpoolprops(7)'s size, allocated, free, fragmentation (of the
// free space, "-" where the spacemap_histogram feature is not active),
// capacity (percent of size allocated) and health.
var listArgv = []string{"zpool", "list", "-Hp", "-o", "name,size,allocated,free,fragmentation,capacity,health"}

// ListArgv is the `zpool list` the doctor runs (a copy).
func ListArgv() []string { return slices.Clone(listArgv) }

// ListRow is one pool of ListArgv's output. A column that was "-" or not a
// number is absent: its Has flag is false (unknown, not zero).
type ListRow struct {
	Name                 string
	Size, Alloc, Free    float64 // bytes
	HasSize              bool
	Frag, Capacity       float64 // percent
	HasFrag, HasCapacity bool
	Health               string
	Line                 string // the raw line, for evidence
}

// ParseList reads ListArgv's output. Lines that do not have the seven
// tab-separated columns are skipped; an output with lines but no pool is
// ErrParse, an empty one is zero pools (zpool list prints nothing then).
func ParseList(b []byte) ([]*ListRow, error) {
	var out []*ListRow
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	lines := 0
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		lines++
		f := strings.Split(line, "\t")
		if len(f) != 7 || !poolName(f[0]) {
			continue
		}
		r := &ListRow{Name: f[0], Health: strings.TrimSpace(f[6]), Line: line}
		size, ok1 := exactBytes(f[1])
		alloc, ok2 := exactBytes(f[2])
		free, ok3 := exactBytes(f[3])
		if ok1 && ok2 && ok3 {
			r.Size, r.Alloc, r.Free, r.HasSize = size, alloc, free, true
		}
		r.Frag, r.HasFrag = percent(f[4])
		r.Capacity, r.HasCapacity = percent(f[5])
		out = append(out, r)
	}
	if lines > 0 && len(out) == 0 {
		return nil, fmt.Errorf("%w: no pool in zpool list output", machine.ErrParse)
	}
	return out, nil
}

// poolName: a name zpool accepts, a letter then letters, digits and
// "_-.: " (module/zcommon/zfs_namecheck.c, valid_char and pool_namecheck).
func poolName(s string) bool {
	for i, c := range s {
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if i == 0 && !letter {
			return false
		}
		if !letter && !(c >= '0' && c <= '9') && !strings.ContainsRune("_-.: ", c) {
			return false
		}
	}
	return s != ""
}

// exactBytes reads a -p byte count: digits only.
func exactBytes(s string) (float64, bool) {
	n, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return 0, false
	}
	return float64(n), true
}

// percent reads a -p percentage ("92"); older releases print "8%" even
// with -p (the FreeNAS capture of telegraf's plugins/inputs/zfs
// testcases), so a trailing % is accepted. "-" (not available, as
// zpoolprops(7) says of fragmentation) and anything outside 0-100 is
// unknown.
func percent(s string) (float64, bool) {
	s = strings.TrimSuffix(strings.TrimSpace(s), "%")
	n, err := strconv.ParseUint(s, 10, 8)
	if err != nil || n > 100 {
		return 0, false
	}
	return float64(n), true
}

// ReadList runs ListArgv.
func ReadList(ctx context.Context, h *machine.Host) ([]*ListRow, machine.CmdResult, error) {
	res, err := h.Run(ctx, listArgv...)
	if err != nil {
		return nil, res, err
	}
	if res.Exit != 0 {
		return nil, res, machine.ExitError(res)
	}
	rows, err := ParseList(res.Stdout)
	return rows, res, err
}
