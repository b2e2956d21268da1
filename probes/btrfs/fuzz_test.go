package btrfs

import "testing"

// The parsers take a recording's bytes: none may panic, and what they
// keep stays within the bounds.
func FuzzParsers(f *testing.F) {
	for _, s := range []string{
		"Label: none  uuid: 25426f60-0a0e-43b7-86f1-0c16cf1e362d\n\tTotal devices 2 FS bytes used 112.00KiB\n\tdevid    1 size 1.00GiB used 213.00MiB path /dev/loop0\n\t*** Some devices missing\n",
		"Overall:\n    Device unallocated:\t\t1048576\nMetadata,DUP: Size:6431713526, Used:5894842614 (91.64%)\n   /dev/sdb1\t12852689633\n\nUnallocated:\n   /dev/sdb1\t1048576\n",
		"[/dev/sdb1].write_io_errs    7489899\n",
		"Status:           running\nBytes scrubbed:   26.86GiB  (4.86%)\n",
		"Balance on '/mnt' is running\n3 out of about 10 chunks balanced (4 considered),  70% left\n",
		"write_errs 0\nread_errs 1\nflush_errs 0\ncorruption_errs 0\ngeneration_errs 0\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if fss, err := ParseShow(b); err == nil {
			for _, fs := range fss {
				_ = fs.Missing()
				if len(fs.Devices) > MaxDevices {
					t.Fatal("too many devices")
				}
			}
		}
		if u, err := ParseUsage(b); err == nil {
			u.MaxUnallocated()
			u.MetadataUsed()
		}
		_, _ = ParseStats(b)
		_, _ = ParseScrub(b)
		_, _ = ParseBalance(b)
		_ = ParseErrorStats(b)
	})
}
