package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// writeSiteFile writes a site file owned by the invoker with mode 0644 (a
// trusted --config) and returns its path.
func writeSiteFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// The HPE MicroServer's CRITICAL comes from three rules; the site accepts
// them (the write cache by the drives' names as udev and smartctl give
// them): Nagios goes one state down, to the warnings left, and lists
// what it waived with the reason. An expired waiver is named and waives
// nothing.
func TestWaiverLowersTheNagiosState(t *testing.T) {
	dir, err := filepath.Abs(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cfg := writeSiteFile(t, dir, "site.yaml", `waive:
  - rule: write-cache-disabled
    devices: [sda, ata-WDC_WDS200T1R0A-68A4W0_21343D800461, 21343D800497, wwn-0x5001b448b7c2d9e5]
    reason: "accepted: cache stays off until the SSDs are replaced"
    until: 2099-03-01
  - rule: zfs-device-slow
    reason: "accepted: the slow writes are the cache's"
  - rule: io-pressure-high
    reason: "accepted: the same cause"
  - rule: cpu-governor-powersave
    reason: "was accepted"
    until: 2020-01-01
`)
	out, _, code := runBinary(t, "--root", "fixtures/hpe-microserver-writethrough", "--format", "nagios")
	if code != 2 || !strings.HasPrefix(string(out), "DISKDOCTOR CRITICAL - write-cache-disabled on sda,sdb,sdc,sdd") {
		t.Fatalf("without a waiver: exit %d\n%s", code, out)
	}
	out, errb, code := runBinary(t, "--root", "fixtures/hpe-microserver-writethrough", "--format", "nagios", "--config", cfg)
	status := strings.SplitN(string(out), "\n", 2)[0]
	if code != 1 || !strings.HasPrefix(status, "DISKDOCTOR WARNING - trim-not-scheduled") || !strings.Contains(status, "critical=0 warning=2 info=1") {
		t.Fatalf("waived: exit %d, status %q\n%s%s", code, status, out, errb)
	}
	for _, want := range []string{
		"WAIVED write-cache-disabled on sda,sdb,sdc,sdd: accepted: cache stays off until the SSDs are replaced",
		"WAIVED zfs-device-slow on sda,sdb,sdc: accepted",
		"EXPIRED waiver of cpu-governor-powersave (" + cfg + ":10): ended 2020-01-01",
		"INFO cpu-governor-powersave on host",
	} {
		if !strings.Contains(string(out), want+"") {
			t.Errorf("nagios output lacks %q:\n%s", want, out)
		}
	}
	text, _, _ := runBinary(t, "--root", "fixtures/hpe-microserver-writethrough", "--config", cfg, "--width", "80")
	for _, want := range []string{"Waived (not counted in the verdict; " + cfg + ")", "write-cache-disabled on sda–sdd: accepted: cache stays off", "(until 2099-03-01)", "expired 2020-01-01: cpu-governor-powersave counts again", "WARNING:"} {
		if !strings.Contains(string(text), want) {
			t.Errorf("text report lacks %q:\n%s", want, text)
		}
	}
	js, _, _ := runBinary(t, "--root", "fixtures/hpe-microserver-writethrough", "--config", cfg, "--format", "json")
	for _, want := range []string{`"waived": true`, `"state": "expired"`, `"verdict": "warning"`, `"config": "` + cfg + `"`} {
		if !bytes.Contains(js, []byte(want)) {
			t.Errorf("JSON lacks %s", want)
		}
	}
	validateAgainstSchema(t, js)
}

// A recorded machine's own site file is read when it is replayed; a bad
// one ends the run with exit 3 naming the file, line and column.
func TestRecordedSiteFile(t *testing.T) {
	root := filepath.Join(t.TempDir(), "hpe")
	if out, err := exec.Command("cp", "-a", filepath.Join("..", "..", "fixtures", "hpe-microserver-writethrough"), root).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	writeSiteFile(t, root, "etc/diskdoctor/diskdoctor.yaml", "severity:\n  write-cache-disabled: info\n  zfs-device-slow: info\n  io-pressure-high: warning\n")
	out, _, code := runBinary(t, "--root", root, "--format", "nagios")
	if code != 1 || !strings.Contains(strings.SplitN(string(out), "\n", 2)[0], "critical=0") {
		t.Errorf("the recording's severities: exit %d\n%s", code, out)
	}
	writeSiteFile(t, root, "etc/diskdoctor/diskdoctor.yaml", "waive:\n  - rule: write-cache-disabled\n    devices: [sda]\n    reson: typo\n")
	out, errb, code := runBinary(t, "--root", root, "--format", "nagios")
	if code != 3 || !strings.Contains(string(out), "/etc/diskdoctor/diskdoctor.yaml:4:5: a waiver: unknown key \"reson\"") {
		t.Errorf("a bad site file: exit %d\n%s%s", code, out, errb)
	}
	_, errb, code = runBinary(t, "--root", "fixtures/hpe-microserver-writethrough", "--config", filepath.Join(root, "missing.yaml"))
	if code != 3 || !strings.Contains(string(errb), "missing.yaml") {
		t.Errorf("a missing --config: exit %d, %s", code, errb)
	}
}

// A site's own rule (the shipped example) fires on a recorded machine
// that has it, is listed by 'rules' under its file, and explained; one
// reading a fact no check gives ends the run with its line.
func TestSiteRuleFiresAndShowsItsOrigin(t *testing.T) {
	root := filepath.Join(t.TempDir(), "hpe")
	if out, err := exec.Command("cp", "-a", filepath.Join("..", "..", "fixtures", "hpe-microserver-writethrough"), root).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	example, err := os.ReadFile(filepath.Join("..", "..", "docs", "examples", "rules.d", "site-usb-disk-mounted.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	writeSiteFile(t, root, "etc/diskdoctor/rules.d/site-usb-disk-mounted.yaml", string(example))
	out, _, _ := runBinary(t, "--root", root, "--format", "nagios")
	if !strings.Contains(string(out), "WARNING site-usb-disk-mounted on sdf: A USB disk holds a mounted filesystem on this server") {
		t.Errorf("the site rule did not fire on sdf:\n%s", out)
	}
	list, _, code := runBinary(t, "rules", "--root", root)
	if code != 0 || !strings.Contains(string(list), "site rule from /etc/diskdoctor/rules.d/site-usb-disk-mounted.yaml:\nsite-usb-disk-mounted ") {
		t.Errorf("rules --root: exit %d\n%s", code, list)
	}
	if ex, _, code := runBinary(t, "explain", "site-usb-disk-mounted", "--root", root); code != 0 || !strings.Contains(string(ex), "A USB disk holds") {
		t.Errorf("explain: exit %d\n%s", code, ex)
	}
	writeSiteFile(t, root, "etc/diskdoctor/rules.d/site-usb-disk-mounted.yaml", strings.Replace(string(example), "len(mountpoints ??", "len(mountpoint ??", 1))
	_, errb, code := runBinary(t, "--root", root)
	if code != 3 || !strings.Contains(string(errb), `site-usb-disk-mounted.yaml:11:7: rule site-usb-disk-mounted: when reads "mountpoint", which no check gives`) || !strings.Contains(string(errb), `did you mean "mountpoints"?`) {
		t.Errorf("a rule reading an unknown fact: exit %d, %s", code, errb)
	}
}

// validateAgainstSchema checks a JSON report against docs/schema.
func validateAgainstSchema(t *testing.T, js []byte) {
	t.Helper()
	sch, err := jsonschema.NewCompiler().Compile("../../docs/schema/diskdoctor-v1.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(js))
	if err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Errorf("not diskdoctor/v1: %v", err)
	}
}
