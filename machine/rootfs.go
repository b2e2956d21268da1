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
	"sync"
	"sync/atomic"

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
	dir  string    // canonical absolute root; "/" when live
	fd   int       // O_PATH descriptor of dir; -1 when live
	walk bool      // no openat2: resolve in user space
	dirs *dirCache // resolved /sys/block/<name> directories, and those resolveDir kept
	// hostProc: a live host's root mounted at dir (HostRoot), where
	// /proc/self is the doctor's own process, not the host's (hostproc.go).
	hostProc bool
}

// dirCache keeps an O_PATH descriptor of each /sys/block/<name> directory
// (and of its device/) a run reads from, resolved once: the inventory and
// the checks read a few dozen attributes below each, and resolving from the
// cached directory spares the kernel the device link and the PCI path
// behind it on every open (docs/performance.md). It
// also keeps the directories resolveDir resolved, by machine path. The
// descriptors live as long as the rootFS.
type dirCache struct {
	// fds is read without a lock: every attribute read looks its
	// directory up, and the workers would contend for one mutex.
	fds sync.Map // prefix -> descriptor
	// absent are the prefixes a recorded root does not have (a dm or
	// loop device has no device/): a recording does not change during
	// the run, so a path beneath one fails as its prefix did, without a
	// lookup. A live machine's are not kept (a device may appear).
	absent sync.Map // prefix -> struct{}
	n      atomic.Int64
	max    int
}

func newDirCache() *dirCache {
	c := &dirCache{max: 4096}
	var lim unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &lim) == nil {
		c.max = int(min(uint64(c.max), lim.Cur/4))
	}
	go reserveDescriptors(c.max + descriptorHeadroom)
	return c
}

// descriptorHeadroom is room in the descriptor table beyond a full
// dirCache: the files the workers have open at one time, the runtime's own.
const descriptorHeadroom = 256

// reserveDescriptors grows the process's descriptor table to n entries in
// one step. The kernel grows it by doubling as descriptors are opened, and
// in a process of several threads each growth waits for an RCU grace period
// (expand_fdtable calls synchronize_rcu), stopping every thread that opens
// a descriptor meanwhile; the directories a machine of many disks caches
// grow it several times (docs/performance.md). Run
// in its own goroutine when the root is opened, the one wait left overlaps
// the run's first work. The table never shrinks; a later call costs nothing.
func reserveDescriptors(n int) {
	fd, err := unix.Open("/", unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	defer unix.Close(fd)
	// F_DUPFD takes the lowest free descriptor from n on (dup3 to n would
	// close one that is in use); past RLIMIT_NOFILE it fails, and the
	// table grows by doubling as it would without this call.
	if high, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, n); err == nil {
		unix.Close(high)
	}
}

func (c *dirCache) close() {
	c.fds.Range(func(k, fd any) bool {
		unix.Close(fd.(int))
		c.fds.Delete(k)
		return true
	})
}

// cachedDir splits a clean /sys/block/<name>/<rest> path into the
// descriptor of its device directory and rest, and a clean path in a
// device directory resolveDir kept into that directory's descriptor and
// the name; ok is false for any other path.
func (r *rootFS) cachedDir(p string) (fd int, rest string, ok, absent bool) {
	if r.dirs == nil || r.walk {
		return -1, "", false, false
	}
	name, ok := strings.CutPrefix(p, "/sys/block/")
	if !ok {
		fd, rest, ok = r.keptDir(p)
		return fd, rest, ok, false
	}
	name, rest, ok = strings.Cut(name, "/")
	if !ok || name == "" || rest == "" || path.Clean(p) != p {
		return -1, "", false, false
	}
	// p's own bytes, not a new string: p is /sys/block/<name>/<rest>.
	prefix := p[:len(p)-len(rest)-1]
	// The device's own attributes (model, vendor, rev, scsi_disk/...) sit
	// behind the "device" link, which climbs out of the block directory.
	if after, ok := strings.CutPrefix(rest, "device/"); ok && after != "" {
		prefix, rest = p[:len(prefix)+len("/device")], after
	}
	fd, ok, absent = r.dirFD(prefix)
	return fd, rest, ok, absent
}

// dirFD is the cached descriptor of a /sys/block/<name> directory or of its
// device/, opened on first use; ok is false when the cache is full or the
// directory cannot be opened, and absent says that a recorded root has no
// such directory (dirCache.absent).
func (r *rootFS) dirFD(prefix string) (fd int, ok, absent bool) {
	c := r.dirs
	if v, ok := c.fds.Load(prefix); ok {
		return v.(int), true, false
	}
	if _, gone := c.absent.Load(prefix); gone {
		return -1, false, true
	}
	// Workers racing for one directory may pass this together: the cache
	// holds at most max plus that many.
	if c.n.Load() >= int64(c.max) {
		return -1, false, false
	}
	var err error
	if r.fd < 0 {
		fd, err = unix.Open(prefix, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	} else {
		fd, err = r.openat2(prefix, unix.O_PATH|unix.O_DIRECTORY, 0)
	}
	if err != nil {
		if r.fd >= 0 && errors.Is(err, unix.ENOENT) {
			c.absent.Store(prefix, struct{}{})
			return -1, false, true
		}
		return -1, false, false
	}
	if old, loaded := c.fds.LoadOrStore(prefix, fd); loaded {
		unix.Close(fd)
		return old.(int), true, false
	}
	c.n.Add(1)
	return fd, true, false
}

// keptDir is the kept descriptor of p's directory when p is a clean path
// below /sys/devices/ (where resolveDir keeps them).
func (r *rootFS) keptDir(p string) (int, string, bool) {
	if !strings.HasPrefix(p, "/sys/devices/") {
		return -1, "", false
	}
	dir, name := path.Split(p)
	dir = strings.TrimSuffix(dir, "/")
	if name == "" || name == "." || name == ".." || path.Clean(p) != p {
		return -1, "", false
	}
	v, ok := r.dirs.fds.Load(dir)
	if !ok {
		return -1, "", false
	}
	return v.(int), name, true
}

// keep caches fd as the descriptor of the machine directory dir; false
// when the cache is full or dir is there already (the caller closes fd).
func (c *dirCache) keep(dir string, fd int) bool {
	if c.n.Load() >= int64(c.max) {
		return false
	}
	if _, loaded := c.fds.LoadOrStore(dir, fd); loaded {
		return false
	}
	c.n.Add(1)
	return true
}

// cachedDirFD is the cached descriptor of p when p is a clean
// /sys/block/<name> path.
func (r *rootFS) cachedDirFD(p string) (int, bool) {
	name, ok := strings.CutPrefix(p, "/sys/block/")
	if !ok || r.dirs == nil || r.walk || name == "" || strings.Contains(name, "/") || path.Clean(p) != p {
		return -1, false
	}
	fd, ok, _ := r.dirFD(p)
	return fd, ok
}

const maxLinks = 40

// the kernel's MAXSYMLINKS

func newRootFS(dir string) (*rootFS, error) {
	if dir == "/" {
		r := &rootFS{dir: "/", fd: -1, dirs: newDirCache()}
		runtime.AddCleanup(r, func(c *dirCache) { c.close() }, r.dirs)
		return r, nil
	}
	canon, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, err
	}
	fd, err := unix.Open(canon, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: canon, Err: err}
	}
	r := &rootFS{dir: canon, fd: fd, dirs: newDirCache()}
	if probe, err := r.openat2(".", unix.O_PATH, 0); err == nil {
		unix.Close(probe)
	} else {
		r.walk = true
	}
	// Copies of a Host share r; the descriptor is closed when the last
	// one is gone.
	dirs := r.dirs
	runtime.AddCleanup(r, func(fd int) { dirs.close(); unix.Close(fd) }, fd)
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
	for i := 0; ; i++ {
		fd, err := openat2(r.fd, rootRel(p), how)
		// EAGAIN: a concurrent rename made ".." resolution unsafe; retry.
		if errors.Is(err, unix.EAGAIN) && i < 8 {
			continue
		}
		if errors.Is(err, unix.EINTR) {
			continue
		}
		return fd, err
	}
}

// open opens a machine path with flags (O_CLOEXEC is added). nofollow
// leaves a final symlink unresolved (with O_PATH: to read or stat the link).
func (r *rootFS) open(p string, flags int, nofollow bool) (int, error) {
	p = r.mapProc(p)
	if nofollow {
		flags |= unix.O_NOFOLLOW
	}
	dfd, rest, ok, absent := r.cachedDir(p)
	if absent {
		return -1, unix.ENOENT
	}
	if !ok && flags&unix.O_DIRECTORY != 0 {
		// The device directory itself (listing its partitions): from
		// its descriptor, not through the link and its 14 components.
		dfd, ok = r.cachedDirFD(p)
		rest = "."
	}
	if ok {
		var fd int
		var err error
		for {
			if r.fd < 0 {
				// Live: relative to the resolved directory is what the
				// kernel does with the full path.
				fd, err = openat(dfd, rest, flags|unix.O_CLOEXEC, 0)
			} else {
				// Recorded: beneath the device directory (itself inside the
				// root); a link that climbs above it (device -> ../../..)
				// or is absolute is resolved again from the root below.
				fd, err = openat2(dfd, rest, &unix.OpenHow{Flags: uint64(flags | unix.O_CLOEXEC), Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS})
			}
			if !errors.Is(err, unix.EINTR) && !errors.Is(err, unix.EAGAIN) {
				break
			}
		}
		if r.fd < 0 || !errors.Is(err, unix.EXDEV) {
			return fd, err
		}
	}
	if r.fd < 0 {
		for {
			fd, err := unix.Open(p, flags|unix.O_CLOEXEC, 0)
			if errors.Is(err, unix.EINTR) {
				continue
			}
			return fd, err
		}
	}
	if !r.walk {
		return r.openat2(p, flags, 0)
	}
	resolved, err := r.resolveWalk(p, !nofollow)
	if err != nil {
		return -1, err
	}
	return unix.Openat(r.fd, rootRel(resolved), flags|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
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
	var fd int
	if dfd, ok := r.cachedDirFD(p); ok {
		// The directory the inventory reads below anyway: its descriptor
		// says where it is (one open per disk instead of two).
		fd = dfd
	} else {
		var err error
		if fd, err = r.open(p, unix.O_PATH, false); err != nil {
			return "", err
		}
		defer unix.Close(fd)
	}
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

// resolveDir is resolve for a directory whose attributes are read next
// (an NVMe controller's PCI function): a directory below /sys/devices/
// keeps its descriptor, and each of those reads resolves one name from it
// instead of the whole path again.
func (r *rootFS) resolveDir(p string) (string, error) {
	if r.dirs == nil || r.fd >= 0 && r.walk {
		return r.resolve(p)
	}
	fd, err := r.open(p, unix.O_PATH|unix.O_DIRECTORY, false)
	if err != nil {
		return "", err
	}
	dir, err := r.machinePath(fd, p)
	if err != nil || !strings.HasPrefix(dir, "/sys/devices/") || !r.dirs.keep(dir, fd) {
		unix.Close(fd)
	}
	return dir, err
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
		for {
			fd, err = openat2(r.fd, rootRel(p), how)
			if !errors.Is(err, unix.EINTR) && !errors.Is(err, unix.EAGAIN) {
				break
			}
		}
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
