package zfs

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/diskdoctor/diskdoctor/internal/parse"
	"github.com/diskdoctor/diskdoctor/machine"
)

// IostatRow is one line of `zpool iostat -H -p -v -l`: a pool, a vdev or a
// class header, with exact values. Latencies are in nanoseconds; nil where
// the tool printed "-" (not applicable).
type IostatRow struct {
	Name                            string
	Pool                            string // filled by AssignPools
	Alloc, Free                     *float64
	ReadOps, WriteOps               *float64 // per second over the interval
	ReadBytes, WriteBytes           *float64 // bytes per second
	TotalWaitRead, TotalWaitWrite   *float64
	DiskWaitRead, DiskWaitWrite     *float64
	SyncqWaitRead, SyncqWaitWrite   *float64
	AsyncqWaitRead, AsyncqWaitWrite *float64
	Line                            string
}

// ParseIostat reads the scripted output of ZpoolIostatArgv: one row
// per pool and vdev, tab-separated, name then alloc, free, read/write ops,
// read/write bandwidth, then latency pairs (total_wait, disk_wait,
// syncq_wait, asyncq_wait, scrub, trim, [rebuild]). Rows with fewer than 7
// columns or non-numeric values where numbers belong are ErrParse.
func ParseIostat(b []byte) ([]*IostatRow, error) {
	var rows []*IostatRow
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimRight(sc.Text(), "\r\n")
		if strings.TrimSpace(line) == "" {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) == 1 {
			f = strings.Fields(line)
		}
		if len(f) < 7 {
			return nil, fmt.Errorf("%w: zpool iostat line %d: %d columns, want at least 7", machine.ErrParse, n, len(f))
		}
		r := &IostatRow{Name: strings.TrimSpace(f[0]), Line: line}
		if r.Name == "" {
			return nil, fmt.Errorf("%w: zpool iostat line %d: no name", machine.ErrParse, n)
		}
		vals := make([]*float64, len(f)-1)
		for i, s := range f[1:] {
			s = strings.TrimSpace(s)
			if s == "-" || s == "" {
				continue
			}
			v, err := parse.Finite(s)
			if err != nil || v < 0 {
				return nil, fmt.Errorf("%w: zpool iostat line %d column %d: %q is not a number (run with -p)", machine.ErrParse, n, i+2, s)
			}
			vals[i] = &v
		}
		get := func(i int) *float64 {
			if i < len(vals) {
				return vals[i]
			}
			return nil
		}
		r.Alloc, r.Free = get(0), get(1)
		r.ReadOps, r.WriteOps = get(2), get(3)
		r.ReadBytes, r.WriteBytes = get(4), get(5)
		r.TotalWaitRead, r.TotalWaitWrite = get(6), get(7)
		r.DiskWaitRead, r.DiskWaitWrite = get(8), get(9)
		r.SyncqWaitRead, r.SyncqWaitWrite = get(10), get(11)
		r.AsyncqWaitRead, r.AsyncqWaitWrite = get(12), get(13)
		rows = append(rows, r)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: %w", machine.ErrParse, err)
	}
	return rows, nil
}

// AssignPools sets each row's pool: scripted output has no indentation, so
// a row whose name is a pool starts that pool's block.
func AssignPools(rows []*IostatRow, pools []string) {
	known := map[string]bool{}
	for _, p := range pools {
		known[p] = true
	}
	cur := ""
	for _, r := range rows {
		if known[r.Name] {
			cur = r.Name
		}
		r.Pool = cur
	}
}

// ReadIostat runs ZpoolIostatArgv.
func ReadIostat(ctx context.Context, h *machine.Host) ([]*IostatRow, machine.CmdResult, error) {
	res, err := h.Run(ctx, iostatArgv...)
	if err != nil {
		return nil, res, err
	}
	if res.Exit != 0 {
		return nil, res, machine.ExitError(res)
	}
	rows, err := ParseIostat(res.Stdout)
	return rows, res, err
}
