package machine

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// ErrRefused: the path exists but the doctor will not read it: a FIFO,
// socket or device where a file is expected, a file larger than any real
// instance of it, or a link that leaves a recorded root.
var ErrRefused = errors.New("refused")

// rootFS opens machine paths. On the live machine "/" is "/". In a recorded
// machine every path and every link in it is resolved inside the root, the
// way chroot would (an absolute link starts again at the root, ".." stops
// at it): with openat2(RESOLVE_IN_ROOT), one system call per open, or, on
// kernels before 5.6, with the same walk done in user space.
type rootFS struct {
	dir  string // canonical absolute root; "/" when live
	fd   int    // O_PATH descriptor of dir; -1 when live
	walk bool   // no openat2: resolve in user space
	// hostProc: a live host's root mounted at dir (HostRoot), where
	// /proc/self is the doctor's own process, not the host's (hostproc.go).
	hostProc bool
}

// maxLinks is the kernel's MAXSYMLINKS (include/linux/namei.h).
const maxLinks = 40

func newRootFS(dir string) (*rootFS, error) {
	if dir == "/" {
		return &rootFS{dir: "/", fd: -1}, nil
	}
	canon, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, err
	}
	fd, err := unix.Open(canon, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: canon, Err: err}
	}
	r := &rootFS{dir: canon, fd: fd}
	if probe, err := r.openat2(".", unix.O_PATH, 0); err == nil {
		unix.Close(probe)
	} else {
		r.walk = true
	}
	// Copies of a Host share r; the descriptor is closed when the last
	// one is gone.
	runtime.AddCleanup(r, func(fd int) { unix.Close(fd) }, fd)
	return r, nil
}

// rootRel turns a machine path into one relative to the root.
func rootRel(p string) string {
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	// Clean returns a clean path itself, without a copy.
	p = strings.TrimLeft(path.Clean(p), "/")
	if p == "" {
		return "."
	}
	return p
}

func (r *rootFS) openat2(p string, flags int, resolve uint64) (int, error) {
	how := &unix.OpenHow{Flags: uint64(flags | unix.O_CLOEXEC), Resolve: resolve | unix.RESOLVE_IN_ROOT | unix.RESOLVE_NO_MAGICLINKS}
	return openat2Retry(r.fd, rootRel(p), how)
}

// openat2Retry is unix.Openat2, again when a signal interrupted it or a
// concurrent rename made ".." resolution unsafe (EAGAIN, openat2(2)).
func openat2Retry(dirfd int, p string, how *unix.OpenHow) (int, error) {
	for i := 0; ; i++ {
		fd, err := unix.Openat2(dirfd, p, how)
		if errors.Is(err, unix.EINTR) || errors.Is(err, unix.EAGAIN) && i < 8 {
			continue
		}
		return fd, err
	}
}

// open opens a machine path with flags (O_CLOEXEC is added). nofollow
// leaves a final symlink unresolved (with O_PATH: to read or stat the link).
func (r *rootFS) open(p string, flags int, nofollow bool) (int, error) {
	p = r.mapProc(p)
	flags |= unix.O_CLOEXEC
	if nofollow {
		flags |= unix.O_NOFOLLOW
	}
	switch {
	case r.fd < 0:
		for {
			fd, err := unix.Open(p, flags, 0)
			if !errors.Is(err, unix.EINTR) {
				return fd, err
			}
		}
	case !r.walk:
		return r.openat2(p, flags, 0)
	}
	resolved, err := r.resolveWalk(p, !nofollow)
	if err != nil {
		return -1, err
	}
	return unix.Openat(r.fd, rootRel(resolved), flags|unix.O_NOFOLLOW, 0)
}

// openFile is open as an *os.File named by its host path.
func (r *rootFS) openFile(p string, flags int) (*os.File, error) {
	fd, err := r.open(p, flags, false)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), filepath.Join(r.dir, p)), nil
}

// resolveWalk resolves p inside the root in user space: each component is
// looked up with lstat, a link's target is spliced into what is left (an
// absolute target restarts at the root) and ".." never climbs above the
// root. It returns the machine path with no links in it (the last component
// may be a link when followLast is false).
func (r *rootFS) resolveWalk(p string, followLast bool) (string, error) {
	return r.walkPath(p, followLast, false)
}

// walkPath is resolveWalk; strict refuses (EXDEV) an absolute link or a
// ".." at the root instead of resolving them at the root, as
// RESOLVE_BENEATH does.
func (r *rootFS) walkPath(p string, followLast, strict bool) (string, error) {
	todo := strings.Split(rootRel(r.mapProc(p)), "/")
	var done []string
	links := 0
	for len(todo) > 0 {
		c := todo[0]
		todo = todo[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			if len(done) > 0 {
				done = done[:len(done)-1]
			} else if strict {
				return "", unix.EXDEV
			}
			continue
		}
		cur := append(append([]string{}, done...), c)
		var st unix.Stat_t
		if err := unix.Fstatat(r.fd, strings.Join(cur, "/"), &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			return "", err
		}
		if st.Mode&unix.S_IFMT != unix.S_IFLNK || (len(todo) == 0 && !followLast) {
			done = cur
			continue
		}
		if links++; links > maxLinks {
			return "", unix.ELOOP
		}
		buf := make([]byte, unix.PathMax)
		n, err := unix.Readlinkat(r.fd, strings.Join(cur, "/"), buf)
		if err != nil {
			return "", err
		}
		t := string(buf[:n])
		if strings.HasPrefix(t, "/") {
			if strict {
				return "", unix.EXDEV
			}
			done = nil
		}
		todo = append(strings.Split(strings.TrimLeft(t, "/"), "/"), todo...)
	}
	return "/" + strings.Join(done, "/"), nil
}

// resolve returns the machine path p ends at, every link followed.
func (r *rootFS) resolve(p string) (string, error) {
	if r.fd >= 0 && r.walk {
		return r.resolveWalk(p, true)
	}
	fd, err := r.open(p, unix.O_PATH, false)
	if err != nil {
		return "", err
	}
	defer unix.Close(fd)
	return r.machinePath(fd, p)
}

// machinePath is the machine path of fd, opened for p.
func (r *rootFS) machinePath(fd int, p string) (string, error) {
	host, err := fdPath(fd)
	if err != nil {
		if r.fd >= 0 {
			return r.resolveWalk(p, true)
		}
		return filepath.EvalSymlinks(p)
	}
	if r.fd < 0 {
		return host, nil
	}
	if host == r.dir {
		return "/", nil
	}
	if !strings.HasPrefix(host, r.dir+"/") {
		// The kernel guarantees containment; a root moved while open
		// is reported rather than trusted.
		return "", fmt.Errorf("resolved outside the recorded root: %w", ErrRefused)
	}
	return strings.TrimPrefix(host, r.dir), nil
}

// fdPath is the path the kernel reports for an open descriptor.
func fdPath(fd int) (string, error) {
	buf := make([]byte, unix.PathMax)
	n, err := unix.Readlink("/proc/self/fd/"+strconv.Itoa(fd), buf)
	if err != nil {
		return "", err
	}
	s := string(buf[:n])
	if !strings.HasPrefix(s, "/") || strings.HasSuffix(s, " (deleted)") {
		return "", unix.ENOENT
	}
	return s, nil
}

// beneath checks that a library opening p the ordinary way (root joined
// with p) stays inside the root, and finds a directory or a regular file of
// at most limit bytes there.
func (r *rootFS) beneath(p string, limit int64) error {
	if r.fd < 0 {
		return nil
	}
	p = r.mapProc(p)
	var fd int
	var err error
	if r.walk {
		var resolved string
		if resolved, err = r.walkPath(p, true, true); err == nil {
			fd, err = unix.Openat(r.fd, rootRel(resolved), unix.O_PATH|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
		}
	} else {
		how := &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS}
		fd, err = openat2Retry(r.fd, rootRel(p), how)
	}
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	if st.Mode&unix.S_IFMT == unix.S_IFDIR {
		return nil
	}
	if err := regular(st); err != nil {
		return err
	}
	if st.Size > limit {
		return fmt.Errorf("%w: %d bytes, more than the %d a real one has", ErrRefused, st.Size, limit)
	}
	return nil
}

// readlink returns a link's target as written.
func (r *rootFS) readlink(p string) (string, error) {
	buf := make([]byte, unix.PathMax)
	if r.fd < 0 {
		n, err := unix.Readlink(p, buf)
		if err != nil {
			return "", err
		}
		return string(buf[:n]), nil
	}
	fd, err := r.open(p, unix.O_PATH, true)
	if err != nil {
		return "", err
	}
	defer unix.Close(fd)
	n, err := unix.Readlinkat(fd, "", buf)
	if err != nil {
		return "", err
	}
	return string(buf[:n]), nil
}

// stat stats p (following links unless nofollow) without reading it.
func (r *rootFS) stat(p string, nofollow bool) (unix.Stat_t, error) {
	var st unix.Stat_t
	fd, err := r.open(p, unix.O_PATH, nofollow)
	if err != nil {
		return st, err
	}
	defer unix.Close(fd)
	err = unix.Fstat(fd, &st)
	return st, err
}
