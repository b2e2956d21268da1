package machine

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The questions only the running machine can answer: what a path is now
// (bench's target), which device a process's open file is on, and a
// command sent to a drive. A recording holds no live tree, no processes
// and no devices, so on a recorded Host each answers ErrNotAvailable.
// These are not traced: a snapshot cannot replay them. In a host root
// (HostRoot) each path is the host's, resolved inside the root.

// liveOnly is the error of a live-only question asked of a recorded Host.
func (h *Host) liveOnly(p string) error {
	if h.live {
		return nil
	}
	return fmt.Errorf("%s: %w (recorded machine)", p, ErrNotAvailable)
}

// Stat is what stat(2) says of a path (links followed).
type Stat struct {
	Mode uint32 // st_mode: the S_IFMT bits tell the kind
	Dev  uint64 // st_dev: the filesystem holding the path
	Rdev uint64 // st_rdev: the device a device node names
}

// LiveStat is stat(2) of a path of the live machine, every link followed
// (a /proc/PID/fd/N link leads to the open file itself, proc(5)).
func (h *Host) LiveStat(p string) (Stat, error) {
	if err := h.liveOnly(p); err != nil {
		return Stat{}, err
	}
	at := p
	if h.HostMounted() {
		// Not resolved inside the root: the links LiveStat follows are
		// procfs's magic ones (/proc/PID/fd/N), which lead to the open
		// file wherever it is, and which a resolution inside the root
		// refuses (RESOLVE_NO_MAGICLINKS, openat2(2)). Only the file's
		// stat is taken, never its content.
		at = filepath.Join(h.root, h.fs.mapProc(path.Clean(p)))
	}
	var st unix.Stat_t
	if err := unix.Stat(at, &st); err != nil {
		return Stat{}, FileErr(p, err)
	}
	return Stat{Mode: st.Mode, Dev: st.Dev, Rdev: st.Rdev}, nil
}

// LiveRealPath is p of the live machine with every symbolic link
// resolved (filepath.EvalSymlinks).
func (h *Host) LiveRealPath(p string) (string, error) {
	if err := h.liveOnly(p); err != nil {
		return "", err
	}
	if h.HostMounted() {
		r, err := h.fs.resolve(p)
		if err != nil {
			return "", FileErr(p, err)
		}
		return r, nil
	}
	return filepath.EvalSymlinks(p)
}

// AbsPath makes a path the person gave absolute: against the doctor's
// working directory on the live machine. On a recorded machine there is no
// working directory to resolve against, so a relative path is refused.
func (h *Host) AbsPath(p string) (string, error) {
	if filepath.IsAbs(p) {
		return p, nil
	}
	if !h.live {
		return "", fmt.Errorf("%s: on a recorded machine (--root) give an absolute path", p)
	}
	if h.HostMounted() {
		// The doctor's working directory is not on the host.
		return "", fmt.Errorf("%s: with --host-root give an absolute path on the host", p)
	}
	return filepath.Abs(p)
}

// LiveStatFS is statfs(2) of a path of the live machine: free is
// f_bavail × f_bsize (what an unprivileged writer may use), size
// f_blocks × f_bsize.
func (h *Host) LiveStatFS(p string) (free, size uint64, err error) {
	if err := h.liveOnly(p); err != nil {
		return 0, 0, err
	}
	at, err := h.hostPath(p)
	if err != nil {
		return 0, 0, err
	}
	var sfs unix.Statfs_t
	if err := unix.Statfs(at, &sfs); err != nil {
		return 0, 0, FileErr(p, err)
	}
	return sfs.Bavail * uint64(sfs.Bsize), sfs.Blocks * uint64(sfs.Bsize), nil
}

// SGResult is what the kernel returned of an SG_IO command: the sense data
// the device wrote and the status bytes of struct sg_io_hdr.
type SGResult struct {
	Sense                    []byte
	Status                   uint8
	HostStatus, DriverStatus uint16
}

// sgIOHdr is struct sg_io_hdr (include/scsi/sg.h), interface 'S'.
type sgIOHdr struct {
	interfaceID    int32
	dxferDirection int32
	cmdLen         uint8
	mxSbLen        uint8
	iovecCount     uint16
	dxferLen       uint32
	dxferp         uintptr
	cmdp           uintptr
	sbp            uintptr
	timeout        uint32
	flags          uint32
	packID         int32
	usrPtr         uintptr
	status         uint8
	maskedStatus   uint8
	msgStatus      uint8
	sbLenWr        uint8
	hostStatus     uint16
	driverStatus   uint16
	resid          int32
	duration       uint32
	info           uint32
}

const (
	sgIO        = 0x2285 // SG_IO, include/scsi/sg.h
	sgDxferNone = -1     // SG_DXFER_NONE: no data phase
	sgTimeoutMs = 10000
)

// LiveSGNoData sends a SCSI command without a data phase (the caller's
// CDB, at most 16 bytes) to a device node of the live machine through the
// SG_IO ioctl (sg(4), include/scsi/sg.h), opened read-only and
// non-blocking. The command is the caller's to choose: the probes send
// only ones that read state (ATA CHECK POWER MODE).
func (h *Host) LiveSGNoData(dev string, cdb []byte) (SGResult, error) {
	if err := h.liveOnly(dev); err != nil {
		return SGResult{}, err
	}
	if len(cdb) == 0 || len(cdb) > 16 {
		return SGResult{}, errors.New("SG_IO: a CDB of 1 to 16 bytes")
	}
	var fd int
	var err error
	if h.HostMounted() {
		// The host's node, opened inside the root.
		fd, err = h.fs.open(dev, unix.O_RDONLY|unix.O_NONBLOCK, false)
	} else {
		fd, err = unix.Open(dev, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	}
	if err != nil {
		return SGResult{}, err
	}
	defer unix.Close(fd)
	var cmd [16]byte
	copy(cmd[:], cdb)
	var sense [32]byte
	hdr := sgIOHdr{interfaceID: 'S', dxferDirection: sgDxferNone, cmdLen: uint8(len(cdb)), mxSbLen: uint8(len(sense)),
		cmdp: uintptr(unsafe.Pointer(&cmd[0])), sbp: uintptr(unsafe.Pointer(&sense[0])), timeout: sgTimeoutMs}
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), sgIO, uintptr(unsafe.Pointer(&hdr))); e != 0 {
		return SGResult{}, e
	}
	n := min(int(hdr.sbLenWr), len(sense))
	return SGResult{Sense: append([]byte(nil), sense[:n]...), Status: hdr.status, HostStatus: hdr.hostStatus, DriverStatus: hdr.driverStatus}, nil
}
