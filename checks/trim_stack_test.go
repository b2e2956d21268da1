package checks_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// trimStack edits a copy of dmcrypt-on-lvm-no-discard (sda1 → dm-0
// LV → dm-1 crypt "home" without allow_discards) and returns sda's
// trim_blocked_by and trim_blocked_crypt.
func trimStack(t *testing.T, edit func(root, virt string)) (blocked, crypt []string) {
	t.Helper()
	root := copyFixture(t, "dmcrypt-on-lvm-no-discard")
	edit(root, filepath.Join(root, "sys/devices/virtual/block"))
	f := trimFacts(t, root, "sda")
	blocked, _ = f["trim_blocked_by"].([]string)
	crypt, _ = f["trim_blocked_crypt"].([]string)
	return blocked, crypt
}

func link(t *testing.T, target, p string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
}

// The crypt layer two levels above the disk stops discards: it is named,
// with its dm name; the LV beneath it, which passes them, is not.
func TestTrimBlockedTwoLayersUp(t *testing.T) {
	blocked, crypt := trimStack(t, func(string, string) {})
	if !slices.Equal(blocked, []string{"dm-1"}) || !slices.Equal(crypt, []string{"home"}) {
		t.Errorf("trim_blocked_by %q, trim_blocked_crypt %q; want [dm-1], [home]", blocked, crypt)
	}
}

// LUKS on LVM on md on the SSD: an md array inserted between sda1 and the
// LV. With the array passing discards the crypt layer, three up, is the
// one named; with the array at 0 (a raid5 without
// devices_handle_discard_safely) the array is, and nothing above it.
func TestTrimBlockedLUKSOnLVMOnMD(t *testing.T) {
	insertMD := func(mdMax string) func(root, virt string) {
		return func(root, virt string) {
			sda1 := filepath.Join(root, "sys/devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0/block/sda/sda1")
			if err := os.Remove(filepath.Join(sda1, "holders/dm-0")); err != nil {
				t.Fatal(err)
			}
			link(t, "../../../../../../../../../../virtual/block/md0", filepath.Join(sda1, "holders/md0"))
			md := filepath.Join(virt, "md0")
			writeFile(t, filepath.Join(md, "dev"), "9:0\n")
			writeFile(t, filepath.Join(md, "queue/discard_max_bytes"), mdMax+"\n")
			link(t, "../../dm-0", filepath.Join(md, "holders/dm-0"))
			link(t, "../devices/virtual/block/md0", filepath.Join(root, "sys/block/md0"))
		}
	}
	blocked, crypt := trimStack(t, insertMD("2147450880"))
	if !slices.Equal(blocked, []string{"dm-1"}) || !slices.Equal(crypt, []string{"home"}) {
		t.Errorf("md passing: trim_blocked_by %q, trim_blocked_crypt %q; want [dm-1], [home]", blocked, crypt)
	}
	blocked, crypt = trimStack(t, insertMD("0"))
	if !slices.Equal(blocked, []string{"md0"}) || len(crypt) != 0 {
		t.Errorf("md at 0: trim_blocked_by %q, trim_blocked_crypt %q; want [md0], []", blocked, crypt)
	}
}

// A disk that takes no discard itself is trim_supported false; the layers
// above it are at 0 because of it and are not named as blockers. A holder
// loop (dm-1 holding dm-0 again) ends the walk, and an unreadable layer
// is not a blocker.
func TestTrimBlockedBounds(t *testing.T) {
	blocked, _ := trimStack(t, func(root, virt string) {
		writeFile(t, filepath.Join(root, "sys/devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0/block/sda/queue/discard_max_bytes"), "0\n")
		writeFile(t, filepath.Join(virt, "dm-0/queue/discard_max_bytes"), "0\n")
	})
	if len(blocked) != 0 {
		t.Errorf("disk at 0: trim_blocked_by %q, want none", blocked)
	}
	blocked, _ = trimStack(t, func(root, virt string) {
		link(t, "../../dm-0", filepath.Join(virt, "dm-1/holders/dm-0"))
	})
	if !slices.Equal(blocked, []string{"dm-1"}) {
		t.Errorf("holder loop: trim_blocked_by %q, want [dm-1]", blocked)
	}
	blocked, _ = trimStack(t, func(root, virt string) {
		if err := os.Remove(filepath.Join(virt, "dm-1/queue/discard_max_bytes")); err != nil {
			t.Fatal(err)
		}
	})
	if len(blocked) != 0 {
		t.Errorf("unreadable layer: trim_blocked_by %q, want none", blocked)
	}
}
