package snapshot

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/machine/archive"
	"github.com/diskdoctor/diskdoctor/probes/udev"
)

// writeTree builds a small recorded machine: files, and links given as
// "->target".
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, c := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		var err error
		switch {
		case strings.HasPrefix(c, "->"):
			err = os.Symlink(strings.TrimPrefix(c, "->"), full)
		case c == "/":
			err = os.MkdirAll(full, 0o755)
		default:
			err = os.WriteFile(full, []byte(c), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return root
}

const (
	testSerial = "S4CSNF0N712345L"
	testWWN    = "5002538e40a1b2c3"
)

func testMachine(t *testing.T) *machine.Host {
	dev := "sys/devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0/block/sda"
	root := writeTree(t, map[string]string{
		dev + "/dev":               "8:0\n",
		dev + "/queue/write_cache": "write back\n",
		dev + "/device":            "->../../../0:0:0:0",
		"sys/devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0/wwid": "t10.ATA     Samsung SSD 860 EVO 1TB                 " + testSerial + "\n",
		"sys/block/sda":      "->../devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0/block/sda",
		"run/udev/data/b8:0": "S:disk/by-id/ata-Samsung_SSD_860_EVO_1TB_" + testSerial + "\nS:disk/by-id/wwn-0x" + testWWN + "\nE:ID_SERIAL=Samsung_SSD_860_EVO_1TB_" + testSerial + "\nE:ID_SERIAL_SHORT=" + testSerial + "\nE:ID_WWN=0x" + testWWN + "\nE:ID_BUS=ata\n",
		"dev/sda":            "",
		"dev/disk/by-id/ata-Samsung_SSD_860_EVO_1TB_" + testSerial: "->../../sda",
		"dev/disk/by-id/wwn-0x" + testWWN:                          "->../../sda",
		"proc/sys/kernel/hostname":                                 "bigbox\n",
		"proc/sys/kernel/osrelease":                                "6.1.0-26-amd64\n",
		"etc/systemd/system/timers.target.wants/fstrim.timer":      "->/lib/systemd/system/fstrim.timer",
		"lib/systemd/system/fstrim.timer":                          "[Timer]\n",
		"etc/deep-link":                                            "->../../../lib/systemd/system/fstrim.timer",
		"commands/manifest.yaml":                                   "- argv: [dmesg]\n  stdout: dmesg.txt\n- argv: [hdparm, -W, /dev/sda]\n  timeout: true\n",
		"commands/dmesg.txt":                                       "[    1.0] usb 1-1: SerialNumber: " + testSerial + "\n[    1.1] usb 1-2: SerialNumber: ABCD1234XYZ\n",
	})
	h, err := machine.Recorded(root)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func collectAll(t *testing.T, h *machine.Host, redact bool) *Recording {
	t.Helper()
	rec := NewRecorder()
	th := h.WithTracer(rec)
	ctx := context.Background()
	_, _ = th.ReadFile(ctx, "/sys/block/sda/queue/write_cache")
	_, _ = th.ReadFile(ctx, "/sys/block/sda/device/wwid")
	_, _ = th.ReadFile(ctx, "/run/udev/data/b8:0")
	_, _ = th.ReadFile(ctx, "/proc/sys/kernel/hostname")
	_, _ = th.ReadFile(ctx, "/proc/sys/kernel/osrelease")
	_ = th.Glob("/dev/disk/by-id/*")
	_ = th.Glob("/etc/systemd/system/*.wants/fstrim.timer")
	_ = th.Exists("/etc/deep-link")
	_, _ = th.ReadFile(ctx, "/does/not/exist")
	_, _ = th.Run(ctx, "dmesg")
	tctx, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
	_, _ = th.Run(tctx, "hdparm", "-W", "/dev/sda")
	cancel()
	_, _ = th.Run(ctx, "zpool", "list")
	got, err := rec.Collect(ctx, h, CollectOptions{Redact: redact})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestCollectKeepsLinksAndCommands(t *testing.T) {
	h := testMachine(t)
	rec := collectAll(t, h, false)
	dir := filepath.Join(t.TempDir(), "snap")
	if err := rec.WriteDir(dir, nil); err != nil {
		t.Fatal(err)
	}
	r, err := machine.Recorded(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, p := range []string{"/sys/block/sda/queue/write_cache", "/sys/block/sda/device/wwid", "/run/udev/data/b8:0"} {
		want, _ := h.ReadFile(ctx, p)
		if got, err := r.ReadFile(ctx, p); err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: %q %v, want %q", p, got, err, want)
		}
	}
	if l, err := os.Readlink(filepath.Join(dir, "sys/block/sda")); err != nil || !strings.HasPrefix(l, "../devices/") {
		t.Errorf("sys/block/sda kept as a relative link: %q %v", l, err)
	}
	// An absolute link target is rewritten relative, so it resolves inside.
	if l, _ := os.Readlink(filepath.Join(dir, "etc/systemd/system/timers.target.wants/fstrim.timer")); l != "../../../../lib/systemd/system/fstrim.timer" {
		t.Errorf("absolute target rewritten as %q", l)
	}
	// So is a relative one with more ".." than it is deep (the kernel stops at /).
	if l, _ := os.Readlink(filepath.Join(dir, "etc/deep-link")); l != "../lib/systemd/system/fstrim.timer" {
		t.Errorf("over-deep target rewritten as %q", l)
	}
	// The archive of the recording passes the hostile-input checks.
	var buf bytes.Buffer
	if _, err := WriteArchive(&buf, rec, []byte("format: x\n"), time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := archive.Read(t.Context(), &buf, t.TempDir(), archive.Limits{}); err != nil {
		t.Errorf("own archive refused: %v", err)
	}
	if !r.Exists("/etc/systemd/system/timers.target.wants/fstrim.timer") {
		t.Error("fstrim.timer link does not resolve")
	}
	if got := r.Glob("/dev/disk/by-id/*"); len(got) != 2 {
		t.Errorf("by-id links: %v", got)
	}
	tctx, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
	defer cancel()
	if _, err := r.Run(tctx, "hdparm", "-W", "/dev/sda"); !errors.Is(err, machine.ErrTimeout) {
		t.Errorf("the timed-out command replays as %v", err)
	}
	if _, err := r.Run(ctx, "zpool", "list"); !errors.Is(err, machine.ErrToolMissing) {
		t.Errorf("the missing command replays as %v", err)
	}
	if res, err := r.Run(ctx, "dmesg"); err != nil || !bytes.Contains(res.Stdout, []byte(testSerial)) {
		t.Errorf("dmesg: %v", err)
	}
}

func TestCollectRedactsConsistently(t *testing.T) {
	h := testMachine(t)
	rec := collectAll(t, h, true)
	dir := filepath.Join(t.TempDir(), "snap")
	if err := rec.WriteDir(dir, nil); err != nil {
		t.Fatal(err)
	}
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		var content []byte
		if info.Mode().IsRegular() {
			content, _ = os.ReadFile(p)
		}
		link, _ := os.Readlink(p)
		for _, s := range []string{testSerial, testWWN, "ABCD1234XYZ", "bigbox"} {
			if strings.Contains(p, s) || strings.Contains(link, s) || bytes.Contains(content, []byte(s)) {
				t.Errorf("%s still holds %s", p, s)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	r, err := machine.Recorded(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	u, err := udev.Read(ctx, r, "8:0")
	if err != nil {
		t.Fatal(err)
	}
	short := u.Prop("ID_SERIAL_SHORT")
	if !strings.HasPrefix(short, "SERIAL") || u.Prop("ID_SERIAL") != "Samsung_SSD_860_EVO_1TB_"+short {
		t.Errorf("udev serials: %q %q", short, u.Prop("ID_SERIAL"))
	}
	// The same serial gets the same token in the by-id link name, and the
	// link still resolves.
	for _, l := range u.Links {
		if !r.Exists("/dev/" + l) {
			t.Errorf("udev link %s does not exist in the snapshot", l)
		}
	}
	if wwid, _ := r.ReadString(ctx, "/sys/block/sda/device/wwid"); !strings.HasSuffix(wwid, short) {
		t.Errorf("wwid %q does not end in the serial's token %s", wwid, short)
	}
	if hn, _ := r.ReadString(ctx, "/proc/sys/kernel/hostname"); hn != "redacted-host" {
		t.Errorf("hostname %q", hn)
	}
	if rec.RedactedValues["serial"] != 2 || rec.RedactedValues["wwn"] != 1 {
		t.Errorf("redacted values %v", rec.RedactedValues)
	}
}

func TestRelTarget(t *testing.T) {
	for _, c := range []struct{ dir, target, want string }{
		{"/etc/systemd/system/timers.target.wants", "/lib/systemd/system/fstrim.timer", "../../../../lib/systemd/system/fstrim.timer"},
		{"/proc/1", "/", "../.."},
		{"/", "/usr/lib", "usr/lib"},
	} {
		if got := relTarget(c.dir, c.target); got != c.want {
			t.Errorf("relTarget(%s, %s) = %s, want %s", c.dir, c.target, got, c.want)
		}
	}
}

func TestReplaceSecret(t *testing.T) {
	for _, c := range []struct{ s, v, want string }{
		{"[ 2.101234] x 1234 y", "1234", "[ 2.101234] x TOK y"}, // short values only stand-alone
		{"wwn-0x5002", "5002", "wwn-0xTOK"},
		{"nqn.2014.08.org.nvmexpress:144d144dS4EWNX0R123456K", "S4EWNX0R123456K", "nqn.2014.08.org.nvmexpress:144d144dTOK"},
	} {
		if got := replaceSecret(c.s, c.v, "TOK"); got != c.want {
			t.Errorf("replaceSecret(%q, %q) = %q, want %q", c.s, c.v, got, c.want)
		}
	}
}

// A recorded root's file over the cap (a sparse gigabyte as a sysfs
// attribute) is left out from its size, before it is read, and listed as
// unreadable; a fifo the probes listed is an empty placeholder, never
// opened.
func TestCollectRefusesHugeFilesAndFifos(t *testing.T) {
	root := writeTree(t, map[string]string{"sys/block/sda/queue/write_cache": "write back\n", "sys/block/sda/dev": "8:0\n"})
	huge := filepath.Join(root, "sys/block/sda/queue/write_cache")
	if err := os.Truncate(huge, 1<<30); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "sys/block/sda/fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	h, err := machine.Recorded(root)
	if err != nil {
		t.Fatal(err)
	}
	rec := NewRecorder()
	rec.Path("/sys/block/sda/queue/write_cache")
	rec.Path("/sys/block/sda/fifo")
	rec.Path("/sys/block/sda/dev")
	done := make(chan *Recording, 1)
	go func() {
		got, err := rec.Collect(t.Context(), h, CollectOptions{MaxFile: 1 << 20})
		if err != nil {
			t.Error(err)
		}
		done <- got
	}()
	var got *Recording
	select {
	case got = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Collect blocks on a fifo")
	}
	if got == nil {
		return
	}
	if len(got.Unreadable) != 1 || !strings.Contains(got.Unreadable[0], "write_cache") || !strings.Contains(got.Unreadable[0], "more than") {
		t.Errorf("unreadable: %q", got.Unreadable)
	}
	for _, e := range got.Entries {
		switch e.Path {
		case "sys/block/sda/queue/write_cache":
			t.Errorf("the huge file was recorded (%d bytes)", len(e.Data))
		case "sys/block/sda/fifo":
			if e.Type != EntryFile || len(e.Data) != 0 {
				t.Errorf("fifo recorded as %v with %d bytes", e.Type, len(e.Data))
			}
		}
	}
}

// Firmware placeholders where a serial was never set are not secrets: the
// same words elsewhere (a product version) stay as they are.
func TestRedactKeepsPlaceholders(t *testing.T) {
	dmi := "sys/devices/virtual/dmi/id/"
	rec := &Recording{}
	for p, v := range map[string]string{
		dmi + "product_serial": "To Be Filled By O.E.M.\n", dmi + "board_serial": "Default string\n",
		dmi + "product_uuid": "00000000-0000-0000-0000-000000000000\n", dmi + "chassis_serial": "CZ12345678\n",
		dmi + "product_version": "Default string\n", dmi + "board_name": "To Be Filled By O.E.M.\n",
	} {
		rec.Entries = append(rec.Entries, &Entry{Path: p, Type: EntryFile, Data: []byte(v), read: true})
	}
	rec.redact()
	for _, e := range rec.Entries {
		switch path.Base(e.Path) {
		case "product_version", "board_name":
			if strings.Contains(string(e.Data), "SERIAL") {
				t.Errorf("%s rewritten to %q", e.Path, e.Data)
			}
		case "chassis_serial":
			if string(e.Data) != "SERIAL0001\n" {
				t.Errorf("chassis_serial %q", e.Data)
			}
		}
	}
	if rec.RedactedValues["serial"] != 1 {
		t.Errorf("redacted values %v", rec.RedactedValues)
	}
}

// A recorded root whose files are links out of it (#16 item 4: hostname
// linked to a secret outside) gives the snapshot nothing from outside: the
// collector resolves every path inside the root, an absolute target and a
// run of ".." alike, as the kernel would with the root as "/".
func TestCollectStaysInsideRoot(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(outside, []byte("TOP-SECRET-OUTSIDE\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	root := writeTree(t, map[string]string{
		"sys/block/sda/dev":         "8:0\n",
		"proc/sys/kernel/hostname":  "->" + outside,
		"proc/sys/kernel/osrelease": "->../../../../../../../../../../.." + outside,
		"etc/hostname":              "->../../../../../../../../../../.." + filepath.Dir(outside),
	})
	h, err := machine.Recorded(root)
	if err != nil {
		t.Fatal(err)
	}
	rec := NewRecorder()
	for _, p := range []string{"/proc/sys/kernel/hostname", "/proc/sys/kernel/osrelease", "/etc/hostname", "/etc/hostname/secret", "/sys/block/sda/dev"} {
		rec.Path(p)
	}
	got, err := rec.Collect(t.Context(), h, CollectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range got.Entries {
		if strings.Contains(string(e.Data), "TOP-SECRET") {
			t.Errorf("%s holds the file from outside the root", e.Path)
		}
	}
	var buf bytes.Buffer
	if _, err := WriteArchive(&buf, got, nil, time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := archive.Read(t.Context(), &buf, t.TempDir(), archive.Limits{}); err != nil {
		t.Errorf("the recording's own archive is refused: %v", err)
	}
}
