//go:build linux && (amd64 || arm64)

package main

import (
	"testing"

	"golang.org/x/sys/unix"
)

// TestHideMemLimit runs the entry point's scan on an environment laid out
// as the kernel lays it out (C strings, a null-terminated pointer list):
// only GOMEMLIMIT= is renamed, every time it appears.
func TestHideMemLimit(t *testing.T) {
	defer func(v uint8) { entryShim = v }(entryShim)
	for _, c := range []struct {
		env  []string
		want []string
		hid  bool
	}{
		{[]string{"PATH=/bin", "GOMEMLIMIT=64MB", "HOME=/root"}, []string{"PATH=/bin", "gOMEMLIMIT=64MB", "HOME=/root"}, true},
		{[]string{"GOMEMLIMIT=", "GOMEMLIMIT=1GiB"}, []string{"gOMEMLIMIT=", "gOMEMLIMIT=1GiB"}, true},
		{[]string{"GOMEMLIMITS=1", "XGOMEMLIMIT=1", "GOMEMLIMIT", "GOMEM", "", "gOMEMLIMIT=5", "GOGC=50"}, []string{"GOMEMLIMITS=1", "XGOMEMLIMIT=1", "GOMEMLIMIT", "GOMEM", "", "gOMEMLIMIT=5", "GOGC=50"}, false},
		{nil, nil, false},
	} {
		entryShim = 0
		bufs := make([][]byte, len(c.env))
		ptrs := make([]*byte, len(c.env)+1)
		for i, e := range c.env {
			bufs[i] = append([]byte(e), 0)
			ptrs[i] = &bufs[i][0]
		}
		hideMemLimit(&ptrs[0])
		for i, b := range bufs {
			if got := string(b[:len(b)-1]); got != c.want[i] {
				t.Errorf("%q: entry %d is %q, want %q", c.env, i, got, c.want[i])
			}
		}
		if (entryShim == 1) != c.hid {
			t.Errorf("%q: entryShim %d, want hidden %v", c.env, entryShim, c.hid)
		}
	}
}

// TestHideMemLimitReadsNoFurtherThanTheNUL: strings that begin like
// GOMEMLIMIT= end just before a page the process may not read; a scan that
// read past a string's NUL would be killed by SIGSEGV.
func TestHideMemLimitReadsNoFurtherThanTheNUL(t *testing.T) {
	defer func(v uint8) { entryShim = v }(entryShim)
	page := unix.Getpagesize()
	mem, err := unix.Mmap(-1, 0, 2*page, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(mem)
	if err := unix.Mprotect(mem[page:], unix.PROT_NONE); err != nil {
		t.Fatal(err)
	}
	full := "GOMEMLIMIT="
	for n := 0; n < len(full); n++ {
		s := mem[page-n-1 : page]
		copy(s, full[:n])
		s[n] = 0
		ptrs := []*byte{&s[0], nil}
		entryShim = 0
		hideMemLimit(&ptrs[0])
		if entryShim != 0 || string(s[:n]) != full[:n] {
			t.Errorf("%q: renamed to %q", full[:n], s[:n])
		}
	}
}
