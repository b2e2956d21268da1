package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/internal/fixturetest"
)

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
		// No default window: the replay has none to compare with.
		live, lerr, lcode := runBinary(t, "--format", "json", "--sample", "0")
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
			// Space in use moves between the live run and the
			// snapshot's df (the build cache, the test's own files).
			for _, d := range m["devices"].([]any) {
				for _, k := range []string{"fs_space", "fs_use_percent_max", "fs_ssd_used_bytes", "fs_ssd_used_percent"} {
					delete(d.(map[string]any), k)
				}
			}
			// A file the machine lacks is "not exposed by the kernel"
			// live and "not held by the recording" on replay: the
			// recording cannot tell the two apart. The reasons match.
			skipped, _ := m["skipped"].([]any)
			for _, e := range skipped {
				if e := e.(map[string]any); strings.HasSuffix(fmt.Sprint(e["reason"]), ": not available") {
					delete(e, "hint")
				}
			}
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
				t.Errorf("keep serials %v: %s differ between live and replay\n%s", keep, k, fixturetest.FirstDiff(ja, jb))
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

// A fifo given as --snapshot or as a diff side is refused (exit 3) at once
// instead of waiting forever for a writer (#16 item 5).
func TestSnapshotFifoExits3(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "snap.tar.gz")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, args := range [][]string{{"--snapshot", fifo}, {"diff", fifo, "fixtures/upgrade-before"}, {"diff", "fixtures/upgrade-before", fifo}} {
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
		cmd := exec.CommandContext(ctx, binary, args...)
		cmd.Dir = filepath.Join("..", "..")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		timedOut := ctx.Err() != nil
		cancel()
		var exit *exec.ExitError
		switch {
		case timedOut:
			t.Errorf("%v: still waiting after 20 s", args)
		case !errors.As(err, &exit) || exit.ExitCode() != 3 || !strings.Contains(stderr.String(), "not a regular file"):
			t.Errorf("%v: %v, stderr %q; want exit 3 naming the fifo", args, err, stderr.String())
		}
	}
}
