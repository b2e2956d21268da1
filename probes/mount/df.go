package mount

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

// dfArgv reads every mounted filesystem's space through statfs(2), in a
// program the probe timeout can kill: a statfs in the doctor's own process
// on a hung mount could not be abandoned. -P prints one line per
// filesystem whatever the source's length, -T the type, -k 1024-byte
// units (POSIX df -P -k: the columns are name, type, total, used,
// available, capacity, mount point), -l only local filesystems: GNU df
// skips a remote one (NFS, CIFS, a source with ':') before it calls
// statfs, so a dead server cannot hang it (coreutils df.c, me_remote).
// Without -a df leaves out dummy filesystems (proc, sysfs) and repeated
// mounts of one device (bind mounts, btrfs subvolumes).
var dfArgv = []string{"df", "-P", "-T", "-k", "-l"}

// DFArgv is the df the doctor runs (a copy).
func DFArgv() []string { return slices.Clone(dfArgv) }

// Space is one line of DFArgv's output.
type Space struct {
	Source, FSType, MountPoint string
	// SizeBytes is f_blocks, UsedBytes f_blocks - f_bfree, AvailBytes
	// f_bavail: what an unprivileged writer may still use (ext4's
	// reserved blocks are in neither used nor available).
	SizeBytes, UsedBytes, AvailBytes uint64
	Line                             string // the raw line, for evidence
}

// UsePercent is df's Use%: used as a share of what users can have,
// used + available (so that reserved blocks do not make a full filesystem
// look 95 % full), not rounded. ok is false for a filesystem with no
// blocks (df prints "-").
func (s Space) UsePercent() (float64, bool) {
	total := s.UsedBytes + s.AvailBytes
	if total == 0 || total < s.UsedBytes {
		return 0, false
	}
	return float64(s.UsedBytes) * 100 / float64(total), true
}

// ParseDF reads DFArgv's output, and `df -T`'s (same columns, header
// "1K-blocks" and "Use%"). Lines whose numbers do not parse (a source
// with spaces, a wrapped line of an old df) are skipped; an output with
// lines but no filesystem is ErrParse.
func ParseDF(b []byte) ([]Space, error) {
	rows, err := parseDFRows(b, "df")
	out := make([]Space, 0, len(rows))
	for _, r := range rows {
		out = append(out, Space{Source: r.source, FSType: r.fsType, MountPoint: r.mountPoint,
			SizeBytes: r.n[0] << 10, UsedBytes: r.n[1] << 10, AvailBytes: r.n[2] << 10, Line: r.line})
	}
	return out, err
}

// dfRow is one filesystem line of df -P -T, in blocks or in inodes: the
// source, the type, three counts, and the mount point.
type dfRow struct {
	source, fsType, mountPoint string
	n                          [3]uint64
	line                       string // the raw line, for evidence
}

// parseDFRows reads the filesystem lines of df -P -T's output (what names
// the output in an error). Lines whose numbers do not parse are skipped;
// an output with lines but no filesystem is ErrParse.
func parseDFRows(b []byte, what string) ([]dfRow, error) {
	var out []dfRow
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	lines := 0
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "Filesystem") {
			continue
		}
		lines++
		if r, ok := parseDFRow(line); ok {
			out = append(out, r)
		}
	}
	if lines > 0 && len(out) == 0 {
		return nil, fmt.Errorf("%w: no filesystem in %s output", machine.ErrParse, what)
	}
	return out, nil
}

// parseDFRow: six fields, then the mount point, which is the rest of the
// line (a mount point may hold spaces; df prints it last for that).
func parseDFRow(line string) (dfRow, bool) {
	rest := line
	var f [6]string
	for i := range f {
		rest = strings.TrimLeft(rest, " \t")
		j := strings.IndexAny(rest, " \t")
		if j < 0 {
			return dfRow{}, false
		}
		f[i], rest = rest[:j], rest[j:]
	}
	r := dfRow{source: f[0], fsType: f[1], mountPoint: strings.TrimLeft(rest, " \t"), line: line}
	if !strings.HasPrefix(r.mountPoint, "/") {
		return dfRow{}, false
	}
	for i := range r.n {
		n, err := strconv.ParseUint(f[2+i], 10, 64)
		if err != nil || n > 1<<53 {
			return dfRow{}, false
		}
		r.n[i] = n
	}
	if !strings.HasSuffix(f[5], "%") && f[5] != "-" {
		return dfRow{}, false
	}
	return r, true
}

// ReadDF runs DFArgv. df exits 1 when it could not stat one of the
// filesystems (coreutils df.c) and still prints the others: those are
// kept.
func ReadDF(ctx context.Context, h *machine.Host) ([]Space, error) {
	res, err := h.Run(ctx, dfArgv...)
	if err != nil {
		return nil, err
	}
	out, perr := ParseDF(res.Stdout)
	if res.Exit != 0 && len(out) == 0 {
		return nil, machine.ExitError(res)
	}
	return out, perr
}
