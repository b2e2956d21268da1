package doctor

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/rules"
)

// A Smart Array volume whose controller CLI was not installed: the
// controller check that judges its cache could not run, so the report
// says so (incomplete), keeps the verdict ok (the exit status is the
// findings'), and does not call its write cache or controller checked and
// fine.
func TestIncompleteControllerIsNotCheckedAndFine(t *testing.T) {
	rep, err := Examine(t.Context(), Options{Root: "../fixtures/controller-cli-missing"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verdict != rules.VerdictOK || rep.ExitCode() != rules.ExitOK {
		t.Errorf("verdict %s, exit %d: want ok, 0", rep.Verdict, rep.ExitCode())
	}
	i := slices.IndexFunc(rep.Incomplete, func(c rules.Incomplete) bool { return c.Check == "controller" })
	if i < 0 || !slices.Equal(rep.Incomplete[i].Subjects, []string{"sda"}) || !strings.Contains(rep.Incomplete[i].Reason, "ssacli") {
		t.Fatalf("incomplete %+v: want the controller check on sda, ssacli missing", rep.Incomplete)
	}
	for _, p := range rep.Passed {
		if (p.Area == "write cache" || p.Area == "controller") && slices.Contains(p.Subjects, "sda") {
			t.Errorf("%s (%s) passed on sda, whose controller could not be read", p.Rule, p.Area)
		}
	}
	if rep.Ready != nil {
		t.Errorf("ready %v outside --context benchmark, want null", *rep.Ready)
	}
}

// Not what the machine does not have: a virtio disk has no SMART, and a
// VM whose every check ran is plainly examined.
func TestNotApplicableIsNotIncomplete(t *testing.T) {
	rep, err := Examine(t.Context(), Options{Root: "../fixtures/bench-vm-loop"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Incomplete) != 0 {
		t.Errorf("incomplete %+v, want none (vda's SMART does not exist)", rep.Incomplete)
	}
}

// A busy NVMe before a benchmark: not ready, a warning (exit 1), the
// reason naming the figures that crossed the noise floor; ready on the
// same machine without a window, and null in a plain run, whose load is
// still known for the text's pointer to --context benchmark.
func TestNotReadyNamesWhatWasMeasured(t *testing.T) {
	rep, err := Examine(t.Context(), Options{Root: "../fixtures/nvme-busy-healthy", Context: "benchmark", Sample: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Ready == nil || *rep.Ready || rep.Verdict != rules.VerdictWarning || rep.ExitCode() != rules.ExitWarning {
		t.Fatalf("ready %v, verdict %s: want false, warning", rep.Ready, rep.Verdict)
	}
	if len(rep.NotReady) == 0 || !strings.HasPrefix(rep.NotReady[0].Measured, "nvme0n1 100 % busy") || !strings.Contains(rep.NotReady[0].Measured, "25000 reads/s") {
		t.Errorf("not ready %+v: want nvme0n1's %%util and reads/s", rep.NotReady)
	}
	rep, err = Examine(t.Context(), Options{Root: "../fixtures/nvme-busy-healthy", Context: "benchmark"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Ready == nil || !*rep.Ready || rep.Verdict != rules.VerdictOK {
		t.Errorf("without a window: ready %v, verdict %s, not ready %+v: want true, ok", rep.Ready, rep.Verdict, rep.NotReady)
	}
	rep, err = Examine(t.Context(), Options{Root: "../fixtures/nvme-busy-healthy", Sample: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Ready != nil || rep.Verdict != rules.VerdictOK || len(rep.Load) == 0 {
		t.Errorf("plain run: ready %v, verdict %s, load %+v: want null, ok, nvme0n1", rep.Ready, rep.Verdict, rep.Load)
	}
}

// The VM at 82 % CPU pressure: a plain run has no finding, but its load
// is the CPU pressure a benchmark would judge; before a benchmark it is
// not ready, for the rule that holds.
func TestCPUPressureIsLoad(t *testing.T) {
	rep, err := Examine(t.Context(), Options{Root: "../fixtures/bench-vm-loop"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(rep.Load, func(l rules.NotReady) bool { return l.Rule == "cpu-pressure-high" }) {
		t.Errorf("load %+v: want cpu-pressure-high", rep.Load)
	}
	rep, err = Examine(t.Context(), Options{Root: "../fixtures/bench-vm-loop", Context: "benchmark"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Ready == nil || *rep.Ready || !strings.Contains(rep.NotReady[0].Measured, "avg60=82.25") {
		t.Errorf("ready %v, not ready %+v: want false, cpu some avg60=82.25", rep.Ready, rep.NotReady)
	}
}

// Steal over the window is load: before a benchmark the guest is not
// ready while the hypervisor takes half of its CPU time.
func TestStealIsLoad(t *testing.T) {
	rep, err := Examine(t.Context(), Options{Root: "../fixtures/ec2-xen-steal-54", Context: "benchmark", Sample: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Ready == nil || *rep.Ready || !slices.ContainsFunc(rep.NotReady, func(l rules.NotReady) bool {
		return l.Rule == "cpu-steal-high" && strings.Contains(l.Measured, "steal 54 %")
	}) {
		t.Errorf("ready %v, not ready %+v: want false, steal 54 %%", rep.Ready, rep.NotReady)
	}
}
