package ext4

import (
	"errors"
	"testing"

	"github.com/diskdoctor/diskdoctor/machine"
)

// fixtures/ext4-errors-recorded holds sda1's record as fs/ext4/sysfs.c
// prints it (derived from MichaIng/DietPi issue 765's daily summary).
func TestReadErrors(t *testing.T) {
	h, err := machine.Recorded("../../fixtures/ext4-errors-recorded")
	if err != nil {
		t.Fatal(err)
	}
	e, err := ReadErrors(t.Context(), h, "sda1")
	if err != nil || e.Count != 8 || e.FirstTime != 1487728499 || e.LastFunc != "ext4_iget" || e.LastLine != 4223 {
		t.Fatalf("%v %+v", err, e)
	}
	if d := Describe(e.FirstTime, e.FirstFunc, e.FirstLine); d != "2017-02-22 01:54:59 UTC in ext4_iget:4223" {
		t.Errorf("%q", d)
	}
	if Describe(0, "", 0) != "" {
		t.Error("no error described")
	}
	e, err = ReadErrors(t.Context(), h, "nvme0n1p2")
	if err != nil || e.Count != 0 || e.FirstFunc != "" {
		t.Errorf("clean: %v %+v", err, e)
	}
	if _, err := ReadErrors(t.Context(), h, "sdz9"); !errors.Is(err, machine.ErrNotAvailable) {
		t.Errorf("absent: %v", err)
	}
	if _, err := ReadErrors(t.Context(), h, "../sda1"); !errors.Is(err, machine.ErrNotAvailable) {
		t.Errorf("a path for a name: %v", err)
	}
}
