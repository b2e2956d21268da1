package inroot

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"
	"testing"
)

// tree is an FS of literal paths: a value ending in "/" is a directory,
// "@target" a link, anything else a file.
type tree map[string]string

func (t tree) Lstat(p string) (fs.FileMode, error) {
	v, ok := t[p]
	switch {
	case !ok:
		return 0, fs.ErrNotExist
	case v == "/":
		return fs.ModeDir, nil
	case len(v) > 0 && v[0] == '@':
		return fs.ModeSymlink, nil
	}
	return 0, nil
}

func (t tree) Readlink(p string) (string, error) {
	if v := t[p]; len(v) > 0 && v[0] == '@' {
		return v[1:], nil
	}
	return "", syscall.EINVAL
}

var sys = tree{
	"/sys":                                    "/",
	"/sys/block":                              "/",
	"/sys/block/sda":                          "@../devices/pci0/ata1/block/sda",
	"/sys/devices":                            "/",
	"/sys/devices/pci0":                       "/",
	"/sys/devices/pci0/ata1":                  "/",
	"/sys/devices/pci0/ata1/block":            "/",
	"/sys/devices/pci0/ata1/block/sda":        "/",
	"/sys/devices/pci0/ata1/block/sda/size":   "1",
	"/sys/devices/pci0/ata1/block/sda/device": "@../..",
	"/etc":      "/",
	"/etc/abs":  "@/sys/block",
	"/etc/up":   "@../../../sys",
	"/etc/loop": "@loop",
}

func TestWalk(t *testing.T) {
	for _, c := range []struct {
		dir, rest string
		beneath   bool
		want      Result
		err       error
	}{
		{"/", "sys/block/sda/size", false, Result{"/sys/devices/pci0/ata1/block/sda/size", 1, false}, nil},
		{"/sys/block", "sda/device", false, Result{"/sys/devices/pci0/ata1", 2, true}, nil},
		{"/", "sys/block/sda/./device/..", false, Result{"/sys/devices/pci0", 2, true}, nil},
		// An absolute link starts again at the root; ".." stops at it.
		{"/etc", "abs/sda", false, Result{"/sys/devices/pci0/ata1/block/sda", 2, true}, nil},
		{"/etc", "up/block", false, Result{"/sys/block", 1, true}, nil},
		{"/", "../../etc", false, Result{"/etc", 0, true}, nil},
		// An absolute rest starts at the root too.
		{"/etc", "/sys", false, Result{"/sys", 0, true}, nil},
		// Failures: where, and why.
		{"/", "sys/nope/x", false, Result{Path: "/sys/nope"}, fs.ErrNotExist},
		{"/", "sys/block/sda/size/x", false, Result{Path: "/sys/devices/pci0/ata1/block/sda/size", Hops: 1}, syscall.ENOTDIR},
		{"/etc", "loop", false, Result{Path: "/etc/loop", Hops: MaxHops + 1}, syscall.ELOOP},
		// Beneath: refused instead of resolved at the root.
		{"/etc", "up", true, Result{"/", 1, true}, ErrAbove},
		{"/etc", "abs", true, Result{Path: "/etc/abs", Hops: 1}, ErrAbsoluteLink},
		{"/", "sys/block/sda/size", true, Result{"/sys/devices/pci0/ata1/block/sda/size", 1, false}, nil},
	} {
		got, err := Walk(sys, c.dir, c.rest, 0, c.beneath)
		if got != c.want || !errors.Is(err, c.err) {
			t.Errorf("Walk(%q, %q, beneath %v) = %+v, %v; want %+v, %v", c.dir, c.rest, c.beneath, got, err, c.want, c.err)
		}
	}
	// The links followed before the walk count.
	if got, _ := Walk(sys, "/sys/block", "sda", 5, false); got.Hops != 6 {
		t.Errorf("hops %d, want 6", got.Hops)
	}
}

// TestWalkHopLimit: MaxHops links in a row resolve, one more is ELOOP, as
// the kernel's MAXSYMLINKS.
func TestWalkHopLimit(t *testing.T) {
	chain := func(n int) tree {
		tr := tree{"/end": "/"}
		for i := range n {
			tr[fmt.Sprintf("/l%d", i)] = fmt.Sprintf("@l%d", i+1)
		}
		tr[fmt.Sprintf("/l%d", n-1)] = "@end"
		return tr
	}
	if got, err := Walk(chain(MaxHops), "/", "l0", 0, false); err != nil || got.Path != "/end" || got.Hops != MaxHops {
		t.Errorf("%d links: %+v, %v", MaxHops, got, err)
	}
	if _, err := Walk(chain(MaxHops+1), "/", "l0", 0, false); !errors.Is(err, syscall.ELOOP) {
		t.Errorf("%d links: %v, want ELOOP", MaxHops+1, err)
	}
}
