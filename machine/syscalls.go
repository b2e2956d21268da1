package machine

import (
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// openat2 is unix.Openat2 without its allocation: the path is made a C
// string in a buffer on the stack when it fits, where unix.BytePtrFromString
// copies every name to the heap, and a run opens tens of files per disk.
// A path holding a NUL is EINVAL, as there.
func openat2(dirfd int, p string, how *unix.OpenHow) (int, error) {
	var buf [256]byte
	cp, err := cPath(buf[:0], p)
	if err != nil {
		return -1, err
	}
	fd, _, errno := unix.Syscall6(unix.SYS_OPENAT2, uintptr(dirfd), uintptr(unsafe.Pointer(&cp[0])), uintptr(unsafe.Pointer(how)), unsafe.Sizeof(*how), 0, 0)
	if errno != 0 {
		return -1, errnoErr(errno)
	}
	return int(fd), nil
}

// openat is unix.Openat with openat2's buffer.
func openat(dirfd int, p string, flags int, mode uint32) (int, error) {
	var buf [256]byte
	cp, err := cPath(buf[:0], p)
	if err != nil {
		return -1, err
	}
	fd, _, errno := unix.Syscall6(unix.SYS_OPENAT, uintptr(dirfd), uintptr(unsafe.Pointer(&cp[0])), uintptr(flags), uintptr(mode), 0, 0)
	if errno != 0 {
		return -1, errnoErr(errno)
	}
	return int(fd), nil
}

func cPath(buf []byte, p string) ([]byte, error) {
	if strings.IndexByte(p, 0) >= 0 {
		return nil, unix.EINVAL
	}
	return append(append(buf, p...), 0), nil
}

// errnoErr is the errno as unix returns it: the common ones as shared
// values, as x/sys/unix's errnoErr (syscall_unix.go) does, so that a
// missing file costs no allocation.
func errnoErr(e unix.Errno) error {
	switch e {
	case unix.ENOENT:
		return unix.ENOENT
	case unix.EAGAIN:
		return unix.EAGAIN
	case unix.EINVAL:
		return unix.EINVAL
	}
	return e
}
