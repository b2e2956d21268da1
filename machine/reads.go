package machine

import (
	"errors"
	"fmt"
	"io"

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
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, err
	}
	if err := regular(st); err != nil {
		return nil, err
	}
	if st.Size > limit {
		return nil, fmt.Errorf("%w: %d bytes, more than the %d a real one has", ErrRefused, st.Size, limit)
	}
	b, err := io.ReadAll(io.LimitReader(fdReader(fd), limit+1))
	if err != nil {
		return nil, err
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

// fdReader reads an open descriptor: read(2), again when a signal
// interrupted it, and io.EOF at the end. (An os.File would also ask
// whether the descriptor is non-blocking and try to add it to the
// runtime's poller: two system calls more for every file read.)
type fdReader int

func (fd fdReader) Read(b []byte) (int, error) {
	for {
		n, err := unix.Read(int(fd), b)
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case err != nil:
			return 0, err
		case n == 0 && len(b) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}
