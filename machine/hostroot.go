package machine

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// A host root is the live machine seen from inside a container that has the
// host's root filesystem mounted at a directory (docker run -v /:/host:ro,
// a Kubernetes hostPath volume), as node_exporter's --path.rootfs reads it:
// the doctor's own /sys, /proc and /dev are the container's, the host's are
// under that directory. Files are read inside it exactly as a recorded
// root's are (rootFS: every link resolved inside the root, none leads out),
// but it is live: windows are sampled, commands run, devices answer.
//
// Commands run with the host's own programs: each is found in the host's
// system directories (SystemPath under the root, the same trust rule as on
// the live machine) and started with chroot(2) into the root, so that its
// libraries, its configuration (/etc/smartmontools, a RAID CLI's files) and
// the device paths in its argv (/dev/sda) are the host's. The chroot is
// the child's own system call between fork and exec (SysProcAttr.Chroot),
// not chroot(8): a distroless or scratch image has no /usr/sbin/chroot,
// and chroot(8) would look the program up again by the PATH inside the
// root instead of running the file the trust rule passed. The child also
// changes its working directory to the new root, since chroot(2) leaves it
// where it was, outside the new root (chroot(2), NOTES).

// HostRoot returns the live machine whose root filesystem is mounted at
// dir. "/" is the plain live machine. dir must be a directory with proc/
// and sys/ in it.
func HostRoot(dir string) (*Host, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if abs == "/" {
		return Live(), nil
	}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("--host-root %s: %w", dir, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("--host-root %s: not a directory", dir)
	}
	fs, err := newRootFS(abs)
	if err != nil {
		return nil, fmt.Errorf("--host-root %s: %w", dir, err)
	}
	if fs.dir == "/" {
		return Live(), nil
	}
	for _, d := range []string{"/proc", "/sys"} {
		if st, err := fs.stat(d, false); err != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
			return nil, fmt.Errorf("--host-root %s: no %s/ directory: not a machine's root (mount the host's / there, with its /proc and /sys)", dir, strings.TrimPrefix(d, "/"))
		}
	}
	fs.hostProc = true
	return &Host{root: fs.dir, fs: fs, memo: &hostMemo{}, live: true, runner: execRunner{root: fs, running: &sync.WaitGroup{}}}, nil
}

// HostMounted reports whether h is a live host read from a directory
// (HostRoot), not the machine the doctor's own / is.
func (h *Host) HostMounted() bool { return h.live && h.fs.fd >= 0 }

// hostInit is the process whose view of the host the doctor takes where
// its own process is not the host's: init, pid 1 of the host's pid
// namespace, whose procfs the host mounted at /proc.
const hostInit = 1

// mapProc maps the paths of procfs that name the reading process to the
// host's init in a host root. /proc/self and /proc/thread-self are links
// the kernel resolves to the reader's own pid (proc(5), "/proc/self"), and
// /proc/mounts and /proc/net are links into /proc/self (proc(5)): read from
// inside a container they are the container's process, whose mount
// namespace holds the container's mounts, not the host's. The host's own
// mount table is that of its init: /proc/1/mountinfo (proc(5),
// "/proc/pid/mountinfo": the mount points in the process's mount
// namespace). A host's procfs mounted into the container shows the host's
// pid 1, and the host's processes, whatever the container's pid namespace.
func (r *rootFS) mapProc(p string) string {
	if !r.hostProc || !strings.HasPrefix(p, "/proc/") {
		return p
	}
	p = path.Clean(p)
	first, rest, _ := strings.Cut(strings.TrimPrefix(p, "/proc/"), "/")
	init := "/proc/" + strconv.Itoa(hostInit)
	var to string
	switch first {
	case "self":
		to = init
	case "thread-self":
		to = init + "/task/" + strconv.Itoa(hostInit)
	case "mounts", "net":
		to = init + "/" + first
	default:
		return p
	}
	if rest != "" {
		to += "/" + rest
	}
	return to
}

// ProcSelf is the pid whose procfs directory stands for /proc/self, for a
// library given Root() that would read <proc>/self itself: 0 (self itself)
// on the machine the doctor runs on or a recorded one, the host's init in
// a host root (mapProc).
func (h *Host) ProcSelf() int {
	if h.fs.hostProc {
		return hostInit
	}
	return 0
}

// hostPath is the path to open for machine path p on the live machine:
// p itself, or in a host root the path inside the root that p resolves to
// (every link resolved inside the root, so that a library or a system
// call given the result opens the host's file, not one a link aimed
// outside).
func (h *Host) hostPath(p string) (string, error) {
	if !h.HostMounted() {
		return p, nil
	}
	r, err := h.fs.resolve(p)
	if err != nil {
		return "", FileErr(p, err)
	}
	return filepath.Join(h.root, r), nil
}

// DevicePath is the path to open for a device node of the examined live
// machine (/dev/sda) with a library that opens it itself (smart.go): p on
// the machine the doctor runs on, the host's node in a host root.
func (h *Host) DevicePath(p string) (string, error) {
	if err := h.liveOnly(p); err != nil {
		return "", err
	}
	if !h.HostMounted() {
		return p, nil
	}
	// What a host mount holds at p is the host's to say: only a device
	// node is handed on (a library's ioctl on anything else means nothing).
	st, err := h.fs.stat(p, false)
	if err != nil {
		return "", FileErr(p, err)
	}
	if k := st.Mode & unix.S_IFMT; k != unix.S_IFBLK && k != unix.S_IFCHR {
		return "", fmt.Errorf("%s: %w: not a device node on the host (mount the host's /dev)", p, ErrNotAvailable)
	}
	return h.hostPath(p)
}

// findInRoot is FindProgram for a host root: name in the root's system
// and vendor directories, each looked up inside the root, under the same
// trust rule. It returns the machine path (what the chrooted child execs).
func findInRoot(fs *rootFS, name string) (string, error) {
	stat := func(p string) (unix.Stat_t, error) { return fs.stat(p, false) }
	if strings.ContainsRune(name, '/') {
		// A program the doctor's own code names by path is one of the
		// doctor's machine (--fio PATH), never the host's: not run there.
		return "", &ToolError{Tool: name, Host: true}
	}
	dirs := append(append([]string{}, systemDirs...), trustedDirsBy(vendorDirs, stat)...)
	p, err := findIn(name, dirs, stat)
	var te *ToolError
	if errors.As(err, &te) {
		te.Host = true
	}
	return p, err
}
