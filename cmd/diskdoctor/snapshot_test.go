package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/probes"
	"github.com/diskdoctor/diskdoctor/rules"
)

// reportJSON examines a recorded machine or a snapshot in-process, strictly,
// and returns its JSON with host.root normalized.
func reportJSON(t *testing.T, o options) []byte {
	t.Helper()
	o.format, o.context, o.strict = "json", "auto", true
	if o.probeTimeout == 0 {
		o.probeTimeout = time.Second
	}
	rep, err := examine(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	rep.Host.Root = "ROOT"
	return mustJSON(t, rep)
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// snapshotOf records a host (fixture or live) into an archive file.
func snapshotOf(t *testing.T, root string, keep bool) (string, *probes.Recording) {
	t.Helper()
	src := probes.Live()
	if root != "" {
		h, err := probes.Recorded(root)
		if err != nil {
			t.Fatal(err)
		}
		src = h
	}
	rec, err := record(t.Context(), src, snapshotOptions{keepSerials: keep, probeTimeout: time.Second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "snap.tar.gz")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := probes.WriteArchive(f, rec, rec.Meta(version, "test", time.Now()).Marshal(), time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return file, rec
}

// TestSnapshotRoundTripFixtures replays every fixture with a recorder,
// snapshots what the probes read, replays the snapshot, and wants identical
// JSON: the trace captured everything the probes (and ghw, procfs) read.
func TestSnapshotRoundTripFixtures(t *testing.T) {
	for _, name := range fixtures(t) {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(fixturesDir, name)
			want := reportJSON(t, options{root: dir})
			file, _ := snapshotOf(t, dir, true)
			got := reportJSON(t, options{snapshot: file})
			if !bytes.Equal(want, got) {
				t.Errorf("replayed snapshot differs from the fixture\n%s", firstDiff(want, got))
			}
			// The snapshot of the snapshot is the same recording: nothing
			// is lost or added by a second round.
			dir2, cleanup, err := probes.OpenSnapshot(file)
			if err != nil {
				t.Fatal(err)
			}
			defer cleanup()
			if got2 := reportJSON(t, options{root: dir2}); !bytes.Equal(want, got2) {
				t.Errorf("unpacked snapshot differs\n%s", firstDiff(want, got2))
			}
		})
	}
}

// TestSnapshotRedactsFixtures: with redaction (the default) no serial
// number or WWN of the fixture is left anywhere in the archive, links still
// resolve, and the findings are the same.
func TestSnapshotRedactsFixtures(t *testing.T) {
	for _, name := range fixtures(t) {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(fixturesDir, name)
			rep, err := examine(t.Context(), options{root: dir, format: "json", probeTimeout: time.Second, context: "auto"})
			if err != nil {
				t.Fatal(err)
			}
			file, _ := snapshotOf(t, dir, false)
			red, err := examine(t.Context(), options{snapshot: file, format: "json", probeTimeout: time.Second, context: "auto"})
			if err != nil {
				t.Fatal(err)
			}
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
					case "serial", "wwn", "udev_serial":
						continue
					}
					a, b := string(mustJSON(t, v)), string(mustJSON(t, red.Devices[i][k]))
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

func findingKeys(r *rules.Report) []string {
	var out []string
	for _, f := range r.Findings {
		out = append(out, f.Rule+" "+string(f.Severity)+" "+strings.Join(f.Subjects, ","))
	}
	sort.Strings(out)
	return out
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func forEachMember(t *testing.T, file string, f func(name string, h *tar.Header, data []byte)) {
	t.Helper()
	fh, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	gz, err := gzip.NewReader(fh)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(tr)
		f(h.Name, h, data)
	}
}

// dropVolatile removes evidence that legitimately changes between two runs
// a moment apart on a live machine (and between the probes' read and the
// snapshot's): current CPU clocks and pressure averages.
// dropVolatile removes what legitimately moves between two reads of a live
// machine: findings judged on running averages (I/O pressure, CPU clocks),
// which can cross their threshold between the runs, and the evidence that
// quotes such averages.
func dropVolatile(findings any) []any {
	fs, _ := findings.([]any)
	var out []any
	for _, f := range fs {
		m := f.(map[string]any)
		rule, _ := m["rule"].(string)
		if strings.HasPrefix(rule, "io-pressure") || strings.HasPrefix(rule, "cpu-governor") {
			continue
		}
		ev, _ := m["evidence"].([]any)
		var keep []any
		for _, e := range ev {
			src, _ := e.(map[string]any)["source"].(string)
			if src == "/proc/cpuinfo" || strings.HasPrefix(src, "/proc/pressure/") || strings.Contains(src, "scaling_cur_freq") || strings.HasPrefix(src, "measured (io-pressure") {
				continue
			}
			keep = append(keep, e)
		}
		m["evidence"] = keep
		if notes, ok := m["notes"].([]any); ok {
			var kn []any
			for _, n := range notes {
				if s, _ := n.(string); !strings.Contains(s, "io-pressure") && !strings.Contains(s, "cpu-governor") {
					kn = append(kn, n)
				}
			}
			m["notes"] = kn
		}
		out = append(out, f)
	}
	return out
}

// verdictOf is the verdict of a list of findings.
func verdictOf(findings []any) string {
	v := "ok"
	for _, f := range findings {
		switch f.(map[string]any)["severity"] {
		case "critical":
			return "critical"
		case "warning":
			v = "warning"
		}
	}
	return v
}

// TestSnapshotRoundTripLive snapshots this machine with the built binary,
// replays the snapshot, and compares with a live run: same findings, same
// device facts (host.root normalized; with --keep-serials the identity
// facts too, with redaction all but serial, WWN, by-id and host name).
func TestSnapshotRoundTripLive(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Log("not root: files only root may read are left out of both runs alike")
	}
	for _, keep := range []bool{true, false} {
		dir := t.TempDir()
		file := filepath.Join(dir, "live.tar.gz")
		args := []string{"snapshot", "-o", file}
		if keep {
			args = append(args, "--keep-serials")
		}
		start := time.Now()
		_, stderr, code := runBinary(t, args...)
		took := time.Since(start)
		if code != 0 {
			t.Fatalf("snapshot: exit %d: %s", code, stderr)
		}
		st, _ := os.Stat(file)
		t.Logf("live snapshot (keep serials %v): %d bytes in %s: %s", keep, st.Size(), took.Round(time.Millisecond), bytes.TrimSpace(stderr))
		if st.Mode().Perm() != 0o600 {
			t.Errorf("snapshot mode %v, want 0600", st.Mode().Perm())
		}
		live, lerr, lcode := runBinary(t, "--format", "json")
		tmp := t.TempDir()
		t.Setenv("TMPDIR", tmp) // the replay's private directory goes here, and must be gone after
		replay, rerr, rcode := runBinary(t, "--snapshot", file, "--format", "json")
		if left, _ := os.ReadDir(tmp); len(left) > 0 {
			t.Errorf("the replay left %v in TMPDIR", left)
		}
		if lcode == 3 || rcode == 3 {
			t.Fatalf("exit live %d, replay %d: %s %s", lcode, rcode, lerr, rerr)
		}
		var a, b map[string]any
		if err := json.Unmarshal(live, &a); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(replay, &b); err != nil {
			t.Fatal(err)
		}
		for _, m := range []map[string]any{a, b} {
			h := m["host"].(map[string]any)
			h["root"] = "ROOT"
			m["findings"] = dropVolatile(m["findings"])
			m["verdict"] = verdictOf(m["findings"].([]any))
			if !keep {
				delete(h, "hostname")
				for _, d := range m["devices"].([]any) {
					for _, k := range []string{"serial", "wwn", "udev_serial", "by_id", "dev_path"} {
						delete(d.(map[string]any), k)
					}
				}
			}
		}
		for _, k := range []string{"host", "verdict", "findings", "devices", "skipped"} {
			ja, jb := mustJSON(t, a[k]), mustJSON(t, b[k])
			if !bytes.Equal(ja, jb) {
				t.Errorf("keep serials %v: %s differ between live and replay\n%s", keep, k, firstDiff(ja, jb))
			}
		}
	}
}

func TestSnapshotBadInvocationsExit3(t *testing.T) {
	for _, args := range [][]string{
		{"--snapshot", "fixtures/does-not-exist.tar.gz"},
		{"--snapshot", "README.md"},
		{"--snapshot", "fixtures/healthy-workstation"},
		{"--snapshot", "x.tar.gz", "--root", "fixtures/healthy-workstation"},
		{"snapshot"},
		{"snapshot", "-o", "/nonexistent-dir/x.tar.gz", "--root", "fixtures/healthy-workstation"},
	} {
		if _, stderr, code := runBinary(t, args...); code != 3 || len(stderr) == 0 {
			t.Errorf("%v: exit %d, stderr %q; want 3 with a message", args, code, stderr)
		}
	}
	// An archive written to standard output replays like a file.
	out, stderr, code := runBinary(t, "snapshot", "--root", "fixtures/nvme-link-degraded", "-o", "-")
	if code != 0 {
		t.Fatalf("snapshot -o -: exit %d: %s", code, stderr)
	}
	file := filepath.Join(t.TempDir(), "s.tar.gz")
	if err := os.WriteFile(file, out, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := runBinary(t, "--snapshot", file); code != 1 {
		t.Errorf("replay of the stdout archive: exit %d, want 1: %s", code, stderr)
	}
}
