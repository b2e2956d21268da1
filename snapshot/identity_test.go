package snapshot

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/diskdoctor/diskdoctor/machine"
)

// sourceIdentity collects, from a recorded machine's own files and by its
// own reading (not the redactor's), every spelling of what identifies the
// machine and its devices: serial numbers, WWNs (hex in both cases, 0x,
// wwn-0x, the decimal fields of smartctl's JSON, the split form smartctl
// prints), host names and MAC addresses.
func sourceIdentity(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{} // spelling -> what it is
	add := func(kind, v string) {
		v = strings.TrimSpace(v)
		if len(v) >= 4 {
			out[v] = kind
		}
	}
	addWWN := func(v string) {
		v = strings.TrimSpace(v)
		for _, p := range []string{"naa.", "eui.", "nvme.", "wwn-", "t10."} {
			v = strings.TrimPrefix(v, p)
		}
		for _, part := range strings.Split(v, "0x") {
			if part = strings.TrimSpace(part); len(part) >= 4 {
				for _, s := range []string{part, strings.ToLower(part), strings.ToUpper(part), "0x" + part, "wwn-0x" + part} {
					add("wwn", s)
				}
			}
		}
	}
	distro := map[string]bool{}
	var hosts []string
	mac := regexp.MustCompile(`(?i)\b[0-9a-f]{2}([:-])[0-9a-f]{2}(?:[:-][0-9a-f]{2}){4}\b`)
	serialLine := regexp.MustCompile(`(?i)serial ?number:\s*(\S+)`)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.Type()&fs.ModeSymlink != 0 {
			if m := regexp.MustCompile(`^wwn-0x([0-9a-fA-F]+)`).FindStringSubmatch(d.Name()); m != nil && strings.HasPrefix(rel, "dev/disk/by-id/") {
				addWWN(m[1])
			}
			return nil
		}
		if !d.Type().IsRegular() || strings.HasSuffix(rel, ".md") || strings.HasPrefix(rel, "expected") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		s := string(b)
		for _, m := range mac.FindAllString(s, -1) {
			if m != "00:00:00:00:00:00" && m != "ff:ff:ff:ff:ff:ff" {
				plain := strings.NewReplacer(":", "", "-", "").Replace(m)
				for _, v := range []string{m, strings.ToLower(m), strings.ToUpper(m), plain, strings.ToLower(plain)} {
					add("mac", v)
				}
			}
		}
		for _, m := range serialLine.FindAllStringSubmatch(s, -1) {
			add("serial", strings.Trim(m[1], `",`))
		}
		switch base := filepath.Base(rel); {
		case rel == "proc/sys/kernel/hostname" || rel == "etc/hostname":
			hosts = append(hosts, strings.TrimSpace(s), strings.SplitN(strings.TrimSpace(s), ".", 2)[0])
		case rel == "etc/os-release" || rel == "usr/lib/os-release" || rel == "proc/sys/kernel/osrelease":
			for _, w := range regexp.MustCompile(`[a-z0-9-]+`).FindAllString(strings.ToLower(s), -1) {
				distro[w] = true
			}
		case strings.HasPrefix(rel, "run/udev/data/"):
			for _, l := range strings.Split(s, "\n") {
				k, v, ok := strings.Cut(strings.TrimPrefix(l, "E:"), "=")
				switch {
				case !ok || !strings.HasPrefix(l, "E:"):
				case strings.Contains(k, "WWN") || strings.HasPrefix(k, "SCSI_IDENT_LUN_") || strings.HasPrefix(k, "SCSI_IDENT_PORT_"):
					addWWN(v)
				case strings.Contains(k, "SERIAL") && k != "ID_SERIAL" && k != "ID_USB_SERIAL":
					add("serial", v)
				}
			}
		case strings.HasPrefix(rel, "sys/") && (base == "serial" || base == "product_serial" || base == "board_serial" || base == "chassis_serial" || base == "product_uuid"):
			add("serial", s)
		case strings.HasPrefix(rel, "sys/") && (base == "wwid" || base == "eui" || base == "nguid" || base == "wwn"):
			if f := strings.Fields(s); strings.HasPrefix(s, "t10.") && len(f) > 1 {
				add("serial", f[len(f)-1])
			} else {
				addWWN(s)
			}
		case strings.HasPrefix(rel, "commands/") && json.Valid(b):
			var j struct {
				Serial string `json:"serial_number"`
				LUID   string `json:"logical_unit_id"`
				WWN    *struct {
					NAA, OUI, ID uint64
				} `json:"wwn"`
				Namespaces []struct {
					EUI64 *struct {
						OUI   uint64 `json:"oui"`
						ExtID uint64 `json:"ext_id"`
					} `json:"eui64"`
				} `json:"nvme_namespaces"`
			}
			if json.Unmarshal(b, &j) == nil {
				add("serial", j.Serial)
				if j.LUID != "" {
					addWWN(j.LUID)
				}
				if w := j.WWN; w != nil {
					addWWN(fmt.Sprintf("%x%06x%09x", w.NAA, w.OUI, w.ID))
					add("wwn", fmt.Sprintf("%x %06x %09x", w.NAA, w.OUI, w.ID))
					add("wwn (decimal id)", fmt.Sprint(w.ID))
				}
				for _, ns := range j.Namespaces {
					if e := ns.EUI64; e != nil {
						addWWN(fmt.Sprintf("%06x%010x", e.OUI, e.ExtID))
						add("eui64 (decimal ext_id)", fmt.Sprint(e.ExtID))
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hosts {
		if !distro[strings.ToLower(h)] && h != "localhost" {
			add("host name", h)
		}
	}
	return out
}

// tarStream is the decompressed archive: every member name, link target,
// PAX record and content byte.
func tarStream(t *testing.T, file string) []byte {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(gz)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// leavesNoIdentity: a fixture's redacted snapshot holds none of its serial
// numbers, WWNs (in any encoding), host names or MAC addresses anywhere in
// the archive (TestSnapshotRedactsFixtures runs it on every fixture's
// snapshot).
func leavesNoIdentity(t *testing.T, dir, file string) {
	t.Helper()
	secrets := sourceIdentity(t, dir)
	if len(secrets) == 0 {
		t.Log("no identity in this fixture")
	}
	stream := tarStream(t, file)
	for v, kind := range secrets {
		if i := bytes.Index(stream, []byte(v)); i >= 0 {
			from := max(0, i-60)
			t.Errorf("%s %q left in the archive: …%q…", kind, v, stream[from:min(len(stream), i+len(v)+20)])
		}
	}
}

// The machine of record_test.go with what the fixtures lack: MAC
// addresses in the kernel log, a udev property and a link name, the host
// name in syslog lines, and smartctl's decimal WWN.
func TestRedactsMACsAndHostNames(t *testing.T) {
	const (
		mac   = "00:1b:21:3a:4b:5c"
		macID = "001b213a4b5c"
	)
	files := map[string]string{
		"sys/block/sda/dev":             "8:0\n",
		"proc/sys/kernel/hostname":      "bigbox\n",
		"etc/hostname":                  "bigbox.example.org\n",
		"proc/sys/kernel/osrelease":     "6.1.0-26-amd64\n",
		"run/udev/data/n2":              "E:ID_NET_NAME_MAC=enx" + macID + "\nE:INTERFACE=eth0\n",
		"etc/udev/rules.d/70-net.rules": "SUBSYSTEM==\"net\", ATTR{address}==\"" + strings.ToUpper(mac) + "\", NAME=\"lan0\"\n",
		"sys/class/net/enx" + macID:     "->../../devices/virtual/net/lan0",
		"commands/manifest.yaml":        "- argv: [dmesg]\n  stdout: dmesg.txt\n- argv: [smartctl, -x, --json, /dev/sda]\n  stdout: smart.json\n",
		"commands/dmesg.txt": "Nov 20 11:44:21 bigbox kernel: e1000e 0000:00:19.0 eth0: (PCI Express:2.5GT/s:Width x1) " + mac + "\n" +
			"Nov 20 11:44:22 bigbox.example.org kernel: br0: port 1(" + strings.ReplaceAll(mac, ":", "-") + ") entered forwarding state\n",
		"commands/smart.json": `{"serial_number": "ZA1B2C3D", "wwn": {"naa": 5, "oui": 3152, "id": 2863315899}, "model_name": "ST4000"}` + "\n",
	}
	got, all := redactedTree(t, files, func(ctx context.Context, th *machine.Host) {
		for _, p := range []string{"/proc/sys/kernel/hostname", "/etc/hostname", "/proc/sys/kernel/osrelease", "/run/udev/data/n2", "/etc/udev/rules.d/70-net.rules"} {
			if _, err := th.ReadFile(ctx, p); err != nil {
				t.Fatal(err)
			}
		}
		_ = th.Glob("/sys/class/net/*")
		_, _ = th.Run(ctx, "dmesg")
		_, _ = th.Run(ctx, "smartctl", "-x", "--json", "/dev/sda")
	})
	for _, s := range []string{mac, strings.ToUpper(mac), strings.ReplaceAll(mac, ":", "-"), macID, "bigbox", "example.org", "ZA1B2C3D",
		"5000c500aaaabbbb", "2863315899", "aaaabbbb"} {
		if strings.Contains(all, s) {
			t.Errorf("%q left in the snapshot", s)
		}
	}
	for _, s := range []string{"redacted-host kernel: e1000e", "MAC0001", `"id": 1}`, "enxMAC0001"} {
		if !strings.Contains(all, s) {
			t.Errorf("%q missing from the redacted snapshot", s)
		}
	}
	if !json.Valid([]byte(extract(all, "smartctl_-x_--json_-dev-sda.out"))) {
		t.Errorf("smartctl JSON no longer parses: %s", extract(all, "smartctl_-x_--json_-dev-sda.out"))
	}
	if got.RedactedValues["mac"] != 1 || got.RedactedValues["host"] != 1 {
		t.Errorf("redacted values %v", got.RedactedValues)
	}
}

// dump is every path, link target and content under dir, one block each.
func dump(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "== %s\n", p)
		if l, err := os.Readlink(p); err == nil {
			fmt.Fprintf(&b, "-> %s\n", l)
		} else if d.Type().IsRegular() {
			c, _ := os.ReadFile(p)
			b.Write(c)
		}
		return nil
	})
	return b.String()
}

// extract is the content of the first dumped file whose path ends in name.
func extract(all, suffix string) string {
	for _, blk := range strings.Split(all, "== ")[1:] {
		head, body, _ := strings.Cut(blk, "\n")
		if strings.HasSuffix(head, suffix) {
			return body
		}
	}
	return ""
}
