package machine_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/probes/mount"
)

// hostTree is a small host root: proc/ with the host's init (pid 1) and the
// container's own process (pid 4242, what /proc/self names from inside the
// container), sys/, etc/ and a program directory.
func hostTree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"proc/1/mountinfo":    "25 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw,discard\n",
		"proc/1/mounts":       "/dev/sda1 / ext4 rw,discard 0 0\n",
		"proc/4242/mountinfo": "1 0 0:50 / / rw,relatime - overlay overlay rw,lowerdir=/l,upperdir=/u,workdir=/w\n",
		"proc/4242/mounts":    "overlay / overlay rw 0 0\n",
		"sys/block/sda/dev":   "8:0\n",
		"etc/host-only":       "the host's\n",
	}
	for p, s := range files {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"proc/self":   "4242",
		"proc/mounts": "self/mounts",
	} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestHostRootSlashIsTheLiveMachine(t *testing.T) {
	h, err := machine.HostRoot("/")
	if err != nil || !h.IsLive() || h.HostMounted() || h.Root() != "/" {
		t.Fatalf("HostRoot(/) = root %q, live %v, mounted %v, %v", h.Root(), h.IsLive(), h.HostMounted(), err)
	}
}

func TestHostRootMustLookLikeARoot(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "proc"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := machine.HostRoot(dir); err == nil || !strings.Contains(err.Error(), "no sys/") {
		t.Errorf("a directory without sys/: %v", err)
	}
	if _, err := machine.HostRoot(filepath.Join(dir, "absent")); err == nil {
		t.Error("a directory that is not there was taken")
	}
}

// /proc/self, /proc/mounts and the library's mount table are the host's
// init's, not the container process's that the kernel names /proc/self.
func TestHostRootProcSelfIsTheHostsInit(t *testing.T) {
	h, err := machine.HostRoot(hostTree(t))
	if err != nil {
		t.Fatal(err)
	}
	if !h.IsLive() || !h.HostMounted() {
		t.Fatalf("live %v, mounted %v", h.IsLive(), h.HostMounted())
	}
	for _, p := range []string{"/proc/self/mounts", "/proc/mounts"} {
		b, err := h.ReadFile(t.Context(), p)
		if err != nil || !strings.HasPrefix(string(b), "/dev/sda1 ") {
			t.Errorf("%s = %q, %v; want the host's table", p, b, err)
		}
	}
	ms, err := mount.Read(t.Context(), h)
	if err != nil || len(ms) != 1 || ms[0].FSType != "ext4" {
		t.Errorf("mount.Read = %+v, %v; want the host's ext4 root", ms, err)
	}
	if _, ok := ms[0].Options["discard"]; !ok {
		t.Errorf("options %v", ms[0].Options)
	}
}

// A link in the host root that aims outside it resolves inside it, as the
// host itself would resolve it: an absolute target starts again at the
// root, ".." stops there. The doctor's own /etc is never read.
func TestHostRootLinksStayInside(t *testing.T) {
	dir := hostTree(t)
	for name, target := range map[string]string{
		"evil":  "/etc",
		"evil2": "../../../../../../../../etc",
	} {
		if err := os.Symlink(target, filepath.Join(dir, "sys/block", name)); err != nil {
			t.Fatal(err)
		}
	}
	h, err := machine.HostRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"evil", "evil2"} {
		if b, err := h.ReadFile(t.Context(), "/sys/block/"+name+"/host-only"); err != nil || string(b) != "the host's\n" {
			t.Errorf("%s/host-only = %q, %v; want the host root's file", name, b, err)
		}
		if _, err := h.ReadFile(t.Context(), "/sys/block/"+name+"/passwd"); !errors.Is(err, machine.ErrNotAvailable) {
			t.Errorf("%s/passwd: %v; the doctor's own /etc/passwd must not be read", name, err)
		}
		if r, err := h.Resolve("/sys/block/" + name); err != nil || r != "/etc" {
			t.Errorf("Resolve(%s) = %q, %v", name, r, err)
		}
		// A library opens paths the ordinary way: Uses refuses a link
		// that would lead it out.
		if err := h.Uses("/sys/block/" + name + "/host-only"); !errors.Is(err, machine.ErrRefused) {
			t.Errorf("Uses through %s: %v, want refused", name, err)
		}
	}
	// A configuration file linked absolutely is the host's file.
	if err := os.MkdirAll(filepath.Join(dir, "etc/diskdoctor"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/host-only", filepath.Join(dir, "etc/diskdoctor/datasheets.yaml")); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		b, err := h.ReadTrusted(t.Context(), "/etc/diskdoctor/datasheets.yaml", 1<<20)
		if err != nil || string(b) != "the host's\n" {
			t.Errorf("ReadTrusted through an absolute link = %q, %v", b, err)
		}
	}
}

// Programs come from the host root's system directories under the trust
// rule; one the host lacks is said to be missing there, not here; a node
// that is not a device is not handed to a library.
func TestHostRootPrograms(t *testing.T) {
	dir := hostTree(t)
	bin := filepath.Join(dir, "usr/bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "dmesg"), []byte("#!/bin/sh\n"), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(bin, "dmesg"), 0o777); err != nil {
		t.Fatal(err)
	}
	h, err := machine.HostRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.Run(t.Context(), "smartctl", "-x", "/dev/sda")
	var te *machine.ToolError
	if !errors.As(err, &te) || !te.Host || !errors.Is(err, machine.ErrToolMissing) || err.Error() != "smartctl: not installed on the host" {
		t.Errorf("a program the host lacks: %v", err)
	}
	if _, err := h.Run(t.Context(), "dmesg"); !errors.Is(err, machine.ErrUntrusted) {
		t.Errorf("a world-writable program of the host: %v, want not trusted", err)
	}
	if _, err := h.Run(t.Context(), "/usr/bin/dmesg"); !errors.Is(err, machine.ErrToolMissing) {
		t.Errorf("a program named by path: %v, want not run", err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "dev"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "dev/sda"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := h.DevicePath("/dev/sda"); !errors.Is(err, machine.ErrNotAvailable) {
		t.Errorf("DevicePath of a regular file: %v", err)
	}
	if _, err := h.AbsPath("relative"); err == nil {
		t.Error("a relative path was made absolute against the container's directory")
	}
}
