package checks_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/rules"
)

// A real thrashing host's /proc/pressure/memory (Johannes Weiner's PSI
// series, LKML 2018-08-01; testdata/psi-lkml-2018-thrashing/README.md):
// memory full avg10=57.59, avg60=58.06. Replayed through the pressure
// check on an otherwise empty recorded machine, memory-pressure-high is a
// warning (at or over 10 % now) and not critical (58.06 % over 60 s stays
// under the 60 % of systemd-oomd's default limit, oomd.conf(5)); the evidence
// is the file's line.
func TestMemoryPressureRealCapture(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"sys/block", "proc/pressure"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"memory", "cpu"} {
		b, err := os.ReadFile(filepath.Join("testdata/psi-lkml-2018-thrashing/proc/pressure", f))
		if err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(root, "proc/pressure", f), string(b))
	}
	res := runRecorded(t, root)
	var host *checks.Observation
	for _, o := range res.Observations {
		if o.Check == "pressure" {
			host = o
		}
	}
	if host == nil {
		t.Fatal("no pressure observation")
	}
	if v := host.Get("memory_full_avg60"); v != 58.06 {
		t.Fatalf("memory_full_avg60 = %v, want 58.06", v)
	}
	if ev := host.EvidenceOf("memory_full_avg60"); len(ev) == 0 || ev[0].Source != "/proc/pressure/memory" ||
		ev[0].Value != "full avg10=57.59 avg60=58.06 avg300=60.38 total=3300487258" {
		t.Errorf("evidence = %+v", ev)
	}
	fs, err := engineWith(t, "memory-pressure-high", "cpu-pressure-high").Judge(res)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, x := range fs {
		got = append(got, x.Rule+" "+x.Severity)
	}
	if len(got) != 1 || got[0] != "memory-pressure-high "+rules.Warning {
		t.Errorf("findings = %v, want memory-pressure-high warning only (cpu some avg60 0.75 is calm)", got)
	}
}
