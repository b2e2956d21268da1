package machine

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// readFile reads a regular file of at most limit bytes. The open never
// blocks (O_NONBLOCK: a FIFO would wait for a writer) and anything but a
// regular file is refused, so a FIFO, socket or device planted where a file
// belongs cannot hang or flood the doctor. sysfs and procfs attributes are
// regular files (of size 4096 or 0, whatever they hold: fs/sysfs/file.c,
// fs/proc), so their reads go on to end of file, never past limit.
func (r *rootFS) readFile(p string, limit int64) ([]byte, error) {
	fd, err := r.open(p, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOCTTY, false)
	if err != nil {
		return nil, err
	}
	var st unix.Stat_t
	err = unix.Fstat(fd, &st)
	if err == nil {
		err = regular(st)
	}
	if err == nil && st.Size > limit {
		err = fmt.Errorf("%w: %d bytes, more than the %d a real one has", ErrRefused, st.Size, limit)
	}
	if err != nil {
		unix.Close(fd)
		return nil, err
	}
	f := os.NewFile(uintptr(fd), filepath.Join(r.dir, p))
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, unwrapPath(err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%w: more than %d bytes, more than a real one has", ErrRefused, limit)
	}
	return b, nil
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
