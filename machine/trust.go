package machine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/diskdoctor/diskdoctor/internal/shellquote"
)

// Files the doctor takes its judgement from (datasheets, the site's own
// tables) are trusted only as far as the people who can change them. A
// file that another user can write, or that lies in a directory another
// user can write, would let that user change the verdict a root timer
// reports; cron refuses such crontabs ("BAD FILE MODE", cron(8)), sudo
// such sudoers files (sudoers(5), "sudoers file ownership"), logrotate
// such configuration files, and OpenSSH's StrictModes such key files
// (sshd_config(5)). The same rule here: the file and every directory
// above it are owned by root, or for a file the person named on the
// command line by that person, and writable by neither group nor others.
// A directory with the sticky bit (/tmp) may be writable by others: there
// only an entry's owner may rename or remove it (inode(7), S_ISVTX).

// ErrUntrusted is a file the doctor does not use because someone other
// than its trusted owners could have written it.
var ErrUntrusted = errors.New("not trusted")

// UntrustedError says which file or directory failed the check, why, and
// the commands that would make it pass.
type UntrustedError struct {
	File string // the file that was not used
	Path string // the file, or the directory above it, that failed
	Why  string // "owned by uid 65534, not root; writable by others (mode 0666)"
	Fix  string // "chown root:root FILE; chmod go-w FILE", shell-quoted
}

func (e *UntrustedError) Error() string {
	if e.Path != e.File {
		return fmt.Sprintf("%s: its directory %s is %s", e.File, e.Path, e.Why)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Why)
}

// Is makes errors.Is(err, ErrUntrusted) hold.
func (e *UntrustedError) Is(target error) bool { return target == ErrUntrusted }

// RootOnly trusts files owned by root: the machine's own configuration.
var rootOnly = []int{0}

// InvokerOwners are the owners trusted for a file the person named on the
// command line: root and the user who ran the doctor. Under sudo that user
// is SUDO_UID (sudo(8), "ENVIRONMENT"): only a process already running as
// root can set it for a root process, so it widens nothing.
func InvokerOwners() []int {
	uid := os.Getuid()
	owners := []int{0}
	if uid != 0 {
		return append(owners, uid)
	}
	if s, err := strconv.Atoi(os.Getenv("SUDO_UID")); err == nil && s > 0 {
		owners = append(owners, s)
	}
	return owners
}

// ReadTrusted reads a configuration file of the examined machine (one of
// /etc/diskdoctor) of at most limit bytes. On the live machine the file
// and every directory above it must pass the ownership and mode check
// (errors.Is(err, ErrUntrusted) otherwise). A recorded machine's files are
// data of the recording, not configuration: their owner is whoever
// unpacked or checked them out, so they are read as every recorded file
// is, contained and bounded.
func (h *Host) ReadTrusted(ctx context.Context, p string, limit int64) ([]byte, error) {
	if !h.live {
		return h.ReadFileLimit(ctx, p, limit)
	}
	if err := ctx.Err(); err != nil {
		return nil, CtxErr(err)
	}
	h.trace(p)
	// In a host root, the file's links are resolved inside the root first
	// (a host's absolute link is the host's path, not the container's);
	// ReadTrustedFile then opens the result, which has none, component by
	// component.
	at := h.Path(p)
	if h.HostMounted() {
		var err error
		if at, err = h.hostPath(p); err != nil {
			return nil, err
		}
	}
	b, err := ReadTrustedFile(at, limit, rootOnly)
	if err != nil {
		return nil, err
	}
	if h.content != nil {
		h.content.File(p, b)
	}
	return b, nil
}

// ReadTrustedFile reads a regular file of at most limit bytes when it and
// every directory above it are owned by one of owners and writable by
// neither group nor others (sticky directories excepted). Links are
// resolved first (filepath.EvalSymlinks, as OpenSSH resolves a key file's
// path before checking it); the resolved path is then opened one component
// at a time, each relative to the directory checked before it and with
// O_NOFOLLOW, and each is checked with fstat on the descriptor that is
// then used: what is read is what was checked, whatever is renamed
// meanwhile (no check-then-open race). A FIFO or a device is refused
// without blocking.
func ReadTrustedFile(path string, limit int64, owners []int) ([]byte, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, err
	}
	dir, err := unix.Open("/", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	if err := checkTrusted(dir, path, "/", owners); err != nil {
		unix.Close(dir)
		return nil, err
	}
	parts := strings.Split(strings.TrimPrefix(real, "/"), "/")
	at := ""
	for _, name := range parts[:len(parts)-1] {
		at += "/" + name
		next, err := unix.Openat(dir, name, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		unix.Close(dir)
		if err != nil {
			return nil, &os.PathError{Op: "open", Path: at, Err: err}
		}
		dir = next
		if err := checkTrusted(dir, path, at, owners); err != nil {
			unix.Close(dir)
			return nil, err
		}
	}
	// O_NONBLOCK: opening a FIFO for reading would wait for a writer.
	fd, err := unix.Openat(dir, parts[len(parts)-1], unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	unix.Close(dir)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: real, Err: err}
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	if err := checkTrusted(fd, path, path, owners); err != nil {
		return nil, err
	}
	return readRegular(f, path, limit)
}

// checkTrusted checks the file or directory open as fd (p, for the
// message) of the file file.
func checkTrusted(fd int, file, p string, owners []int) error {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return &os.PathError{Op: "fstat", Path: p, Err: err}
	}
	var why, fix []string
	owned := false
	for _, o := range owners {
		owned = owned || int(st.Uid) == o
	}
	if !owned {
		why = append(why, fmt.Sprintf("owned by uid %d, not %s", st.Uid, ownerNames(owners)))
		fix = append(fix, "chown root:root "+shellquote.Quote(p))
	}
	isDir := st.Mode&unix.S_IFMT == unix.S_IFDIR
	if w := st.Mode & 0o022; w != 0 && !(isDir && st.Mode&unix.S_ISVTX != 0) {
		who := map[uint32]string{0o020: "group", 0o002: "others", 0o022: "group and others"}[w]
		why = append(why, fmt.Sprintf("writable by %s (mode %04o)", who, st.Mode&0o7777))
		fix = append(fix, "chmod go-w "+shellquote.Quote(p))
	}
	if why == nil {
		return nil
	}
	return &UntrustedError{File: file, Path: p, Why: strings.Join(why, ", "), Fix: strings.Join(fix, "; ")}
}

func ownerNames(owners []int) string {
	if len(owners) == 1 {
		return "root"
	}
	return "root or uid " + strconv.Itoa(owners[len(owners)-1])
}
