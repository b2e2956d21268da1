package probes

import (
	"io/fs"
	"os"
	"path"
	"strings"
)

// Lstat describes a machine path without following a link at its end: the
// snapshot recorder walks paths component by component as the kernel does
// and must see each link as a link. On a recorded machine the path is
// resolved inside Root (os.Root): a link on the way that leads out of the
// recording is refused, never followed. Errors wrap ErrNotAvailable or
// ErrPermission as ReadFile's do.
func (h *Host) Lstat(p string) (fs.FileInfo, error) {
	var (
		st  fs.FileInfo
		err error
	)
	if h.root == "/" {
		st, err = os.Lstat(p)
	} else {
		var r *os.Root
		if r, err = os.OpenRoot(h.root); err == nil {
			name := strings.TrimPrefix(path.Clean("/"+p), "/")
			if name == "" {
				name = "."
			}
			st, err = r.Lstat(name)
			r.Close()
		}
	}
	if err != nil {
		return nil, fileErr(p, err)
	}
	return st, nil
}

// WrapRunner returns a copy of h whose commands run through wrap(h's
// runner): the snapshot recorder counts commands in flight with it, so that
// one still being killed when its probe gave up is recorded as timed out.
func (h *Host) WrapRunner(wrap func(Runner) Runner) *Host {
	c := *h
	c.runner = wrap(h.runner)
	return &c
}
