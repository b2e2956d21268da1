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
// IUse%"). Lines whose numbers do not parse are skipped; an output with
// lines but no filesystem is ErrParse.
func ParseDFInodes(b []byte) ([]Inodes, error) {
	var out []Inodes
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	lines := 0
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "Filesystem") {
			continue
		}
		lines++
		f, mp, ok := dfFields(line)
		if !ok {
			continue
		}
		var n [3]uint64
		good := true
		for i := range n {
			v, err := strconv.ParseUint(f[2+i], 10, 64)
			if err != nil || v > 1<<53 {
				good = false
				break
			}
			n[i] = v
		}
		if !good || n[1] > n[0] || (!strings.HasSuffix(f[5], "%") && f[5] != "-") {
			continue
		}
		out = append(out, Inodes{Source: f[0], FSType: f[1], MountPoint: mp, Total: n[0], Used: n[1], Free: n[2], Line: line})
	}
	if lines > 0 && len(out) == 0 {
		return nil, fmt.Errorf("%w: no filesystem in df -i output", machine.ErrParse)
	}
	return out, nil
}

// dfFields: six fields, then the mount point, the rest of the line (df
// prints it last because it may hold spaces).
func dfFields(line string) ([6]string, string, bool) {
	rest := line
	var f [6]string
	for i := range f {
		rest = strings.TrimLeft(rest, " \t")
		j := strings.IndexAny(rest, " \t")
		if j < 0 {
			return f, "", false
		}
		f[i], rest = rest[:j], rest[j:]
	}
	mp := strings.TrimLeft(rest, " \t")
	if !strings.HasPrefix(mp, "/") {
		return f, "", false
	}
	return f, mp, true
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
