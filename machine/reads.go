package machine

import (
	"errors"
	"fmt"
	"strings"

	"golang.org/x/sys/unix"
)

// readFile reads a regular file of at most limit bytes. The open never
// blocks (O_NONBLOCK: a FIFO would wait for a writer) and anything but a
// regular file is refused, so a FIFO, socket or device planted where a file
// belongs cannot hang or flood the doctor. sysfs and procfs attributes are
// regular files (of size 4096 or 0), so live reads are unaffected.
func (r *rootFS) readFile(p string, limit int64) ([]byte, error) {
	return r.readFileInto(p, limit, nil)
}

// readFileInto is readFile into buf's space when it is large enough (a
// caller that copies out what it keeps reuses one buffer for many reads).
func (r *rootFS) readFileInto(p string, limit int64, buf []byte) ([]byte, error) {
	fd, err := r.open(p, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOCTTY, false)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	if want := int(min(4<<10+1, limit+1)); cap(buf) < want {
		buf = make([]byte, 0, want)
	} else {
		buf = buf[:0]
	}
	if r.fd >= 0 {
		// A recorded file is read before it is asked about: a first read
		// shorter than asked is its end (read(2): fewer bytes than
		// requested at end of file), which is all of a sysfs attribute or
		// a udev record. Only a read that finds nothing (a FIFO nobody
		// writes to reads as empty under O_NONBLOCK, as does an empty
		// device) or fills the buffer asks below what the file is and how
		// large: a device that never ends is refused there, and a FIFO
		// with a writer gives at most a buffer of what was written, as a
		// file with the same text would (mknod needs root, and a snapshot
		// unpacks only files, directories and links).
		n, err := readRetry(fd, buf[:cap(buf)])
		if err != nil {
			return nil, err
		}
		if buf = buf[:n]; n > 0 && n < cap(buf) {
			return buf, nil
		}
	}
	var st unix.Stat_t
	if r.fd < 0 && strings.HasPrefix(p, "/proc/") {
		// The live procfs has neither FIFOs nor devices (proc(5)); the
		// open did not block and the limit bounds the read, so a window,
		// which reads several files of every process, needs no fstat.
	} else if err := unix.Fstat(fd, &st); err != nil {
		return nil, err
	} else if err := regular(st); err != nil {
		return nil, err
	}
	if st.Size > limit {
		return nil, fmt.Errorf("%w: %d bytes, more than the %d a real one has", ErrRefused, st.Size, limit)
	}
	// procfs reports size 0; sysfs 4096 whatever the content. A recorded
	// file's size is exact and within the limit: its buffer is made that
	// size at once rather than grown by doubling (a kernel log of some
	// hundred kilobytes would be copied and left behind ten times).
	size := st.Size
	if size <= 0 || size > 64<<10 && r.fd < 0 {
		size = 4 << 10
	}
	if want := int(min(size+1, limit+1)); cap(buf) < want {
		buf = append(make([]byte, 0, want), buf...)
	}
	procOfPid := r.fd < 0 && isProcPidFile(p)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := readRetry(fd, buf[len(buf):min(cap(buf), int(limit+1))])
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return buf, nil
		}
		buf = buf[:len(buf)+n]
		// A recorded file's size is exact (sysfs and procfs sizes are not,
		// so the live machine reads on to end of file).
		if r.fd >= 0 && st.Size > 0 && int64(len(buf)) == st.Size {
			return buf, nil
		}
		// A process's files (io, comm, cgroup) are single-record seq_files:
		// a read that did not fill the buffer returned all there is.
		if procOfPid && len(buf) < cap(buf) {
			return buf, nil
		}
		if int64(len(buf)) > limit {
			return nil, fmt.Errorf("%w: more than %d bytes, more than a real one has", ErrRefused, limit)
		}
	}
}

// readRetry is one read(2) into b, again when a signal interrupted it.
func readRetry(fd int, b []byte) (int, error) {
	for {
		n, err := unix.Read(fd, b)
		if !errors.Is(err, unix.EINTR) {
			return n, err
		}
	}
}

// isProcPidFile reports a /proc/<pid>/<file> path.
func isProcPidFile(p string) bool {
	rest, ok := strings.CutPrefix(p, "/proc/")
	if !ok {
		return false
	}
	pid, file, ok := strings.Cut(rest, "/")
	if !ok || pid == "" || file == "" || strings.Contains(file, "/") {
		return false
	}
	for _, c := range pid {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// regular refuses what is not a regular file.
func regular(st unix.Stat_t) error {
	kind := ""
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		return nil
	case unix.S_IFIFO:
		kind = "a FIFO"
	case unix.S_IFSOCK:
		kind = "a socket"
	case unix.S_IFCHR:
		kind = "a character device"
	case unix.S_IFBLK:
		kind = "a block device"
	case unix.S_IFDIR:
		return unix.EISDIR
	default:
		kind = "not a regular file"
	}
	return fmt.Errorf("%w: %s where a file belongs", ErrRefused, kind)
}
