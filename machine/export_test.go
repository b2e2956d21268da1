package machine

// WalkVariants are h and, where h resolves with openat2, a copy of it that
// resolves in user space (the walk of kernels before 5.6), with a memo of
// its own: what one variant resolved must not answer the other's lookups.
func WalkVariants(h *Host) map[string]*Host {
	out := map[string]*Host{"openat2": h}
	if h.fs.walk {
		return map[string]*Host{"walk": h}
	}
	w := *h
	fs := *h.fs
	fs.walk = true
	w.fs = &fs
	w.memo = &hostMemo{}
	out["walk"] = &w
	return out
}

// LiveAt is the live machine with its files under dir: ReadTrusted's
// checks run on dir's real files, which a test may plant.
func LiveAt(dir string) *Host {
	fs, _ := newRootFS(dir)
	h := Live()
	h.root, h.fs = dir, fs
	return h
}

// TrustedDirs is trustedDirs, for the test of the vendor directories.
var TrustedDirs = trustedDirs
