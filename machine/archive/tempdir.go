package archive

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/diskdoctor/diskdoctor/internal/tempname"
)

// unpackPrefix names the directories Open unpacks into:
// $TMPDIR/diskdoctor-snapshot-PID-<16 hex> (internal/tempname), so that
// the next run can tell a dead run's directory from anything else.
const unpackPrefix = "diskdoctor-snapshot-"

// unpackDirPID is the process of an unpack directory's name.
func unpackDirPID(name string) (int, bool) { return tempname.PID(name, unpackPrefix, "") }

// makeUnpackDir removes what runs killed while they unpacked (SIGKILL
// leaves no chance to clean up) and makes this run's directory, mode 0700.
func makeUnpackDir() (string, error) {
	tmp := os.TempDir()
	removeDeadUnpackDirs(tmp)
	for range 10 {
		dir := filepath.Join(tmp, tempname.New(unpackPrefix, ""))
		err := os.Mkdir(dir, 0o700)
		if !errors.Is(err, fs.ErrExist) {
			return dir, err
		}
	}
	return "", errors.New("no free name for the unpack directory in " + tmp)
}

// removeDeadUnpackDirs removes the unpack directories in tmp of runs that
// are gone: a name of exactly the form makeUnpackDir makes, whose pid is
// dead, a directory (not a link: Lstat) owned by this user. Another user's
// directory is theirs to remove, even where its name is ours; what is
// inside one of ours was written by the doctor for this user, in a 0700
// directory no one else could enter.
func removeDeadUnpackDirs(tmp string) {
	ents, _ := os.ReadDir(tmp)
	for _, e := range ents {
		if !tempname.Stale(e.Name(), unpackPrefix, "") {
			continue
		}
		m := filepath.Join(tmp, e.Name())
		st, err := os.Lstat(m)
		if err != nil || !st.IsDir() {
			continue
		}
		if sys, ok := st.Sys().(*syscall.Stat_t); !ok || int(sys.Uid) != os.Geteuid() {
			continue
		}
		_ = os.RemoveAll(m)
	}
}
