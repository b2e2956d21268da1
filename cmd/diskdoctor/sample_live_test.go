package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// blockDeviceOf names the whole disk that holds path (vda for /tmp on vda1).
func blockDeviceOf(t *testing.T, path string) string {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		t.Fatal(err)
	}
	major, minor := (st.Dev>>8)&0xfff|(st.Dev>>32)&^0xfff, st.Dev&0xff|(st.Dev>>12)&^0xff
	real, err := filepath.EvalSymlinks(fmt.Sprintf("/sys/dev/block/%d:%d", major, minor))
	if err != nil {
		t.Skipf("%s is not on a block device (%v); skipping the live sampling test", path, err)
	}
	if _, err := os.Stat(filepath.Join(real, "partition")); err == nil {
		real = filepath.Dir(real)
	}
	return filepath.Base(real)
}

// TestLiveSampleAgainstIostat writes with fio while the doctor samples 3 s
// and sysstat's iostat watches the same window: the doctor's w/s and wMB/s
// for the device agree with iostat's within 10 %, and fio is a top writer.
func TestLiveSampleAgainstIostat(t *testing.T) {
	for _, tool := range []string{"fio", "iostat"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed (make test installs fio and sysstat); skipping", tool)
		}
	}
	dir, err := os.MkdirTemp(".", ".fio-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	dev := blockDeviceOf(t, dir)

	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	fio := exec.CommandContext(ctx, "fio", "--name=diskdoctor-sample-test", "--filename="+filepath.Join(dir, "f"),
		"--size=256M", "--rw=write", "--bs=1M", "--direct=1", "--ioengine=psync", "--time_based", "--runtime=8", "--output=/dev/null")
	if err := fio.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = fio.Process.Kill(); _ = fio.Wait() })
	time.Sleep(1500 * time.Millisecond) // past fio's file layout, into steady writes

	var iostatOut bytes.Buffer
	iostat := exec.CommandContext(ctx, "iostat", "-d", "-x", "-y", "-o", "JSON", "3", "1", dev)
	iostat.Stdout = &iostatOut
	if err := iostat.Start(); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runBinary(t, "--device", dev, "--sample", "3s", "--format", "json")
	if err := iostat.Wait(); err != nil {
		t.Fatalf("iostat: %v", err)
	}
	if code == 3 {
		t.Fatalf("doctor exit 3: %s", stderr)
	}
	var rep struct {
		Sample struct {
			Seconds float64 `json:"seconds"`
			Devices []struct {
				Name string  `json:"name"`
				WS   float64 `json:"w_s"`
				WMBs float64 `json:"w_mbs"`
			} `json:"devices"`
			Processes []struct {
				Comm string  `json:"comm"`
				WBs  float64 `json:"write_bytes_s"`
			} `json:"processes"`
		} `json:"sample"`
	}
	if err := json.Unmarshal(stdout, &rep); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	var ws, wmbs float64
	found := false
	for _, d := range rep.Sample.Devices {
		if d.Name == dev {
			ws, wmbs, found = d.WS, d.WMBs, true
		}
	}
	if !found {
		t.Fatalf("%s not in the sample: %s", dev, stdout)
	}
	is, err := parseIostatJSON(iostatOut.Bytes(), dev)
	if err != nil {
		t.Fatalf("%v\n%s", err, iostatOut.String())
	}
	// iostat's kB are 1024 bytes; the doctor's MB are 10^6 bytes.
	isMBs := is.WkBs * 1024 / 1e6
	t.Logf("%s over %.1f s: doctor w/s %.1f wMB/s %.1f; iostat w/s %.1f wMB/s %.1f (wkB/s %.0f)", dev, rep.Sample.Seconds, ws, wmbs, is.WS, isMBs, is.WkBs)
	if rel(ws, is.WS) > 0.10 || rel(wmbs, isMBs) > 0.10 {
		t.Errorf("doctor and iostat disagree by more than 10 %%: w/s %.1f vs %.1f, wMB/s %.2f vs %.2f", ws, is.WS, wmbs, isMBs)
	}
	top := []string{}
	for i, p := range rep.Sample.Processes {
		if i < 3 {
			top = append(top, p.Comm)
		}
	}
	if !strings.Contains(strings.Join(top, " "), "fio") {
		t.Errorf("fio not among the top writers: %v", top)
	}
}

type iostatDevice struct {
	WS   float64 `json:"w/s"`
	WkBs float64 `json:"wkB/s"`
	Disk string  `json:"disk_device"`
}

func parseIostatJSON(b []byte, dev string) (iostatDevice, error) {
	var doc struct {
		Sysstat struct {
			Hosts []struct {
				Statistics []struct {
					Disk []iostatDevice `json:"disk"`
				} `json:"statistics"`
			} `json:"hosts"`
		} `json:"sysstat"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return iostatDevice{}, err
	}
	for _, h := range doc.Sysstat.Hosts {
		for _, s := range h.Statistics {
			for _, d := range s.Disk {
				if d.Disk == dev {
					return d, nil
				}
			}
		}
	}
	return iostatDevice{}, fmt.Errorf("iostat reported no %s", dev)
}

func rel(a, b float64) float64 {
	if b == 0 {
		return math.Abs(a)
	}
	return math.Abs(a-b) / b
}
