package mount

import (
	"context"
	"fmt"
	"slices"

	"github.com/diskdoctor/diskdoctor/machine"
)

// dfInodesArgv is DFArgv with -i instead of -k: the same statfs(2) in a
// program the probe timeout can kill, the same -l (no remote filesystem,
// so no hang on a dead server), the columns of POSIX -P with inodes:
// name, type, Inodes (f_files), IUsed (f_files - f_ffree), IFree
// (f_ffree), IUse%, mount point (coreutils df.c, get_dev with
// INODE_FIELDS).
var dfInodesArgv = []string{"df", "-P", "-T", "-i", "-l"}

// DFInodesArgv is the inode df the doctor runs (a copy).
func DFInodesArgv() []string { return slices.Clone(dfInodesArgv) }

// Inodes is one line of DFInodesArgv's output.
type Inodes struct {
	Source, FSType, MountPoint string
	Total, Used, Free          uint64
	Line                       string // the raw line, for evidence
}

// UsePercent is df's IUse%, IUsed / Inodes, not rounded. ok is false for
// a filesystem that reports no inode count (btrfs, vfat and other
// filesystems that allocate inodes as needed, or have none: statfs's
// f_files is 0 and df prints "-").
func (n Inodes) UsePercent() (float64, bool) {
	if n.Total == 0 || n.Used > n.Total {
		return 0, false
	}
	return float64(n.Used) * 100 / float64(n.Total), true
}

// ParseDFInodes reads DFInodesArgv's output (header "Inodes IUsed IFree
// IUse%"). Lines whose numbers do not parse, or that use more inodes than
// they have, are skipped; an output with lines but no filesystem is
// ErrParse.
func ParseDFInodes(b []byte) ([]Inodes, error) {
	rows, err := parseDFRows(b, "df -i")
	if err != nil {
		return nil, err
	}
	var out []Inodes
	for _, r := range rows {
		if r.n[1] <= r.n[0] {
			out = append(out, Inodes{Source: r.source, FSType: r.fsType, MountPoint: r.mountPoint,
				Total: r.n[0], Used: r.n[1], Free: r.n[2], Line: r.line})
		}
	}
	if len(rows) > 0 && len(out) == 0 {
		return nil, fmt.Errorf("%w: no filesystem in df -i output", machine.ErrParse)
	}
	return out, nil
}

// ReadDFInodes runs DFInodesArgv. As with ReadDF, df exits 1 when one
// filesystem could not be read and still prints the others.
func ReadDFInodes(ctx context.Context, h *machine.Host) ([]Inodes, error) {
	res, err := h.Run(ctx, dfInodesArgv...)
	if err != nil {
		return nil, err
	}
	out, perr := ParseDFInodes(res.Stdout)
	if res.Exit != 0 && len(out) == 0 {
		return nil, machine.ExitError(res)
	}
	return out, perr
}
