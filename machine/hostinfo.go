package machine

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
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
			name := strings.TrimPrefix(h.fs.mapProc(path.Clean("/"+p)), "/")
			if name == "" {
				name = "."
			}
			st, err = r.Lstat(name)
			r.Close()
		}
	}
	if err != nil {
		return nil, FileErr(p, err)
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

// PCIID is vendor:device of the PCI function directory p
// (/sys/devices/pci*/.../0000:01:00.0, its vendor and device files; see the
// kernel's Documentation/ABI/testing/sysfs-bus-pci), read once per run: a
// controller is above every disk on it. "" when either file is unreadable.
func (h *Host) PCIID(ctx context.Context, p string) string {
	if id, ok := h.memo.pciIDs.Load(p); ok {
		h.trace(p + "/vendor")
		h.trace(p + "/device")
		return id.(string)
	}
	id := ""
	v, err1 := h.ReadString(ctx, p+"/vendor")
	dv, err2 := h.ReadString(ctx, p+"/device")
	if err1 == nil && err2 == nil {
		id = strings.TrimPrefix(v, "0x") + ":" + strings.TrimPrefix(dv, "0x")
	}
	if ctx.Err() == nil {
		h.memo.pciIDs.Store(p, id)
	}
	return id
}

// Within is the machine tree recorded at p inside h (a recorded window's
// second reading, samples/1/), resolved like any path inside h's root. It
// shares h's runner and tracer, not its memo: its links are its own.
func (h *Host) Within(p string) (*Host, error) {
	dir, err := h.Resolve(p)
	if err != nil {
		return nil, err
	}
	fs, err := newRootFS(filepath.Join(h.root, dir))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, ErrNotAvailable)
	}
	return &Host{root: fs.dir, fs: fs, memo: &hostMemo{}, runner: h.runner, tracer: h.tracer}, nil
}
