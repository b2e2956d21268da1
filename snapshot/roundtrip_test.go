package snapshot

import (
	"archive/tar"
	"bytes"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/diskdoctor/diskdoctor/internal/fixturetest"
)

// TestSnapshotRoundTripFixtures replays every fixture with a recorder,
// snapshots what the probes read, replays the snapshot, and wants identical
// JSON: the trace captured everything the probes (and ghw, procfs) read.
func TestSnapshotRoundTripFixtures(t *testing.T) {
	for _, name := range fixtures(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			want := reportJSON(t, fixtureReport(t, name))
			file, _ := snapshotOf(t, filepath.Join(fixturesDir, name), true)
			got := reportJSON(t, examineArchive(t, file, true))
			if !bytes.Equal(want, got) {
				t.Errorf("replayed snapshot differs from the fixture\n%s", fixturetest.FirstDiff(want, got))
			}
		})
	}
}

// TestSnapshotRedactsFixtures: with redaction (the default) no serial
// number, WWN, host name or MAC address of the fixture is left anywhere in
// the archive (leavesNoIdentity), links still resolve, and the findings are
// the same.
func TestSnapshotRedactsFixtures(t *testing.T) {
	for _, name := range fixtures(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(fixturesDir, name)
			rep := fixtureReport(t, name)
			file, _ := snapshotOf(t, dir, false)
			leavesNoIdentity(t, dir, file)
			red := examineArchive(t, file, false)
			if a, b := findingKeys(rep), findingKeys(red); !equalStrings(a, b) {
				t.Errorf("findings differ after redaction:\n  fixture:  %v\n  redacted: %v", a, b)
			}
			if len(rep.Devices) != len(red.Devices) {
				t.Fatalf("%d devices, %d after redaction", len(rep.Devices), len(red.Devices))
			}
			var secrets []string
			for i, d := range rep.Devices {
				for _, k := range []string{"serial", "wwn"} {
					if v, _ := d[k].(string); len(v) >= 6 {
						secrets = append(secrets, strings.TrimPrefix(strings.TrimPrefix(v, "0x"), "eui."))
					}
				}
				// Identity facts are redacted; every other fact is kept, and
				// a fact that holds a serial (a by-id path) holds its token.
				for k, v := range d {
					switch k {
					case "serial", "wwn", "udev_serial", "cloud_volume_id": // an EBS volume ID is its NVMe serial
						continue
					}
					a, b := string(mustJSON(t, v)), string(mustJSON(t, red.Devices[i][k]))
					// The host name is redacted where it is part of a fact
					// too (an md array's homehost: md-name-optiplex:0).
					if h := rep.Host.Hostname; h != "" {
						a = strings.ReplaceAll(a, h, redactedHost)
					}
					if unredact(a, rep.Devices) != unredact(b, rep.Devices) {
						t.Errorf("%s: fact %s changed by redaction: %s -> %s", d["name"], k, a, b)
					}
				}
				if by, _ := red.Devices[i]["by_id"].([]string); len(by) != len(asStrings(d["by_id"])) {
					t.Errorf("%s: by-id links %v, after redaction %v", d["name"], d["by_id"], red.Devices[i]["by_id"])
				}
			}
			if rep.Host.Hostname != "" && red.Host.Hostname != "redacted-host" {
				t.Errorf("host name %q not redacted", red.Host.Hostname)
			}
			if rep.Host.Hostname != "" {
				secrets = append(secrets, rep.Host.Hostname)
			}
			forEachMember(t, file, func(name string, h *tar.Header, data []byte) {
				for _, s := range secrets {
					if strings.Contains(name, s) || strings.Contains(h.Linkname, s) ||
						(s != rep.Host.Hostname && bytes.Contains(data, []byte(s))) {
						t.Errorf("member %s still holds %q", name, s)
					}
				}
			})
			for _, p := range []string{"proc/sys/kernel/hostname", "etc/hostname"} {
				forEachMember(t, file, func(name string, _ *tar.Header, data []byte) {
					if name == p && rep.Host.Hostname != "" && bytes.Contains(data, []byte(rep.Host.Hostname)) {
						t.Errorf("%s still holds the host name", p)
					}
				})
			}
		})
	}
}

var redactionToken = regexp.MustCompile(`(SERIAL|WWN)[0-9]{4}`)

// unredact maps every serial and WWN of devs, and every redaction token, to
// one placeholder, so that a redacted fact compares equal to the original.
func unredact(s string, devs []map[string]any) string {
	for _, d := range devs {
		for _, k := range []string{"serial", "wwn"} {
			if v, _ := d[k].(string); len(v) >= 4 {
				for _, p := range []string{"0x", "eui.", "naa."} {
					v = strings.TrimPrefix(v, p)
				}
				s = strings.ReplaceAll(s, v, "@")
			}
		}
	}
	return redactionToken.ReplaceAllString(s, "@")
}

func asStrings(v any) []string {
	switch x := v.(type) {
	case []string:
		return x
	case []any:
		var out []string
		for _, e := range x {
			s, _ := e.(string)
			out = append(out, s)
		}
		return out
	}
	return nil
}
