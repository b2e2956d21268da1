package machine_test

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/diskdoctor/diskdoctor/internal/testutil"
	"github.com/diskdoctor/diskdoctor/machine"
)

// TestLinksInIsGlobAndReadlink: LinksIn gives what Glob(dir+"/*") and a
// Readlink of each accepted match give (files, directories and refused
// names left out), and a listed directory that links out of the root is
// listed inside it, as every other read.
func TestLinksInIsGlobAndReadlink(t *testing.T) {
	root, outside := hostileRoot(t)
	ctx := context.Background()
	dir := filepath.Join(root, "dev/disk/by-id")
	testutil.Must(t, os.MkdirAll(filepath.Join(dir, "a-directory"), 0o755))
	testutil.Must(t, os.WriteFile(filepath.Join(dir, "a-file"), []byte("x"), 0o644))
	plantLink(t, "../../sda", filepath.Join(dir, "ata-ONE_S1"))
	plantLink(t, "../../sda1", filepath.Join(dir, "ata-ONE_S1-part1"))
	plantLink(t, "/dev/sdb", filepath.Join(dir, "wwn-0x5000"))
	plantLink(t, "../../nowhere", filepath.Join(dir, "dangling"))
	plantLink(t, "../../sdc", filepath.Join(dir, "refused name"))
	plantLink(t, filepath.Join(outside, "dir"), filepath.Join(root, "dev/disk/by-evil"))
	plantLink(t, "../../sdz", filepath.Join(outside, "dir", "outside-link"))
	want := func(name string) bool { return !strings.Contains(name, " ") }
	for name, h := range hostVariants(t, root) {
		t.Run(name, func(t *testing.T) {
			got, err := h.LinksIn(ctx, "/dev/disk/by-id", want)
			if err != nil {
				t.Fatal(err)
			}
			var slow []machine.DirLink
			for _, p := range h.Glob("/dev/disk/by-id/*") {
				if !want(path.Base(p)) {
					continue
				}
				if tgt, err := h.Readlink(p); err == nil {
					slow = append(slow, machine.DirLink{Name: path.Base(p), Target: tgt})
				}
			}
			if !slices.Equal(got, slow) || len(got) != 4 {
				t.Errorf("LinksIn = %v, Glob and Readlink = %v (want the 4 links)", got, slow)
			}
			evil, _ := h.LinksIn(ctx, "/dev/disk/by-evil", want)
			for _, l := range evil {
				if l.Name == "outside-link" {
					t.Errorf("LinksIn read %v in a directory outside the root", l)
				}
			}
		})
	}
}
