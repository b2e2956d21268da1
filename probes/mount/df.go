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
	var out []Space
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	lines := 0
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "Filesystem") {
			continue
		}
		lines++
		if s, ok := parseDFLine(line); ok {
			out = append(out, s)
		}
	}
	if lines > 0 && len(out) == 0 {
		return nil, fmt.Errorf("%w: no filesystem in df output", machine.ErrParse)
	}
	return out, nil
}

// parseDFLine: six fields, then the mount point, which is the rest of the
// line (a mount point may hold spaces; df prints it last for that).
func parseDFLine(line string) (Space, bool) {
	rest := line
	var f [6]string
	for i := range f {
		rest = strings.TrimLeft(rest, " \t")
		j := strings.IndexAny(rest, " \t")
		if j < 0 {
			return Space{}, false
		}
		f[i], rest = rest[:j], rest[j:]
	}
	mp := strings.TrimLeft(rest, " \t")
	if !strings.HasPrefix(mp, "/") {
		return Space{}, false
	}
	var kib [3]uint64
	for i := range kib {
		n, err := strconv.ParseUint(f[2+i], 10, 64)
		if err != nil || n > 1<<53 {
			return Space{}, false
		}
		kib[i] = n
	}
	if !strings.HasSuffix(f[5], "%") && f[5] != "-" {
		return Space{}, false
	}
	return Space{Source: f[0], FSType: f[1], MountPoint: mp,
		SizeBytes: kib[0] << 10, UsedBytes: kib[1] << 10, AvailBytes: kib[2] << 10, Line: line}, true
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
