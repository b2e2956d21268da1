package cloud

import (
	"testing"

	"github.com/diskdoctor/diskdoctor/machine"
)

// The recorded EBS host of amazon-ec2-utils#8: the module parameter in
// seconds and each namespace's queue timeout in milliseconds.
func TestReadNVMeTimeouts(t *testing.T) {
	h, err := machine.Recorded("../../fixtures/ebs-instance-store-timeouts-set")
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadNVMeTimeouts(t.Context(), h, []string{"nvme0n1", "nvme1n1", "nvme9n1"})
	if err != nil {
		t.Fatal(err)
	}
	if got.Module == nil || got.Module.Value != 4294967295 {
		t.Errorf("module %+v", got.Module)
	}
	if q := got.Queue["nvme0n1"]; q == nil || q.Value != 4294966296 {
		t.Errorf("nvme0n1 %+v", q)
	}
	if q := got.Queue["nvme1n1"]; q == nil || q.Value != 90000 {
		t.Errorf("nvme1n1 %+v", q)
	}
	if _, ok := got.Queue["nvme9n1"]; ok {
		t.Error("an absent disk has a timeout")
	}
}

// A timeout is a 32-bit unsigned decimal, nothing else.
func TestParseTimeout(t *testing.T) {
	for _, s := range []string{"", "-1", "30s", "4294967296", "0x1e", "3 0"} {
		if v, err := ParseTimeout(s); err == nil {
			t.Errorf("%q parsed as %d", s, v)
		}
	}
	if v, err := ParseTimeout("4294967295"); err != nil || v != 4294967295 {
		t.Errorf("max: %d %v", v, err)
	}
}
