package machine

import (
	"fmt"
	"io"
	"os"
)

// readRegular reads the open file f (path, for errors) when it is a
// regular file of at most limit bytes.
func readRegular(f *os.File, path string, limit int64) ([]byte, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, limit)
	}
	return b, nil
}

// IsDir reports whether a path a person named on the command line (not
// one of the examined machine) is a directory, following links: diff's
// side is a recorded directory or a snapshot archive.
func IsDir(p string) (bool, error) {
	st, err := os.Stat(p)
	if err != nil {
		return false, err
	}
	return st.IsDir(), nil
}
