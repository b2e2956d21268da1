package checks_test

import (
	"slices"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/machine"
)

// A btrfs mount carries an anonymous major:minor (0:17 in
// fixtures/btrfs-online-discard, from netdata/netdata issue 3095's
// mountinfo), not its partition's: the inventory and the trim check must
// still find /home on sda through the mount's source, or the disk shows
// no mounts and its TRIM as never run.
func TestBtrfsMountBelongsToItsDisk(t *testing.T) {
	h, err := machine.Recorded("../fixtures/btrfs-online-discard")
	if err != nil {
		t.Fatal(err)
	}
	res, err := checks.Run(t.Context(), h, checks.Options{ProbeTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	var mounted, covered bool
	for _, o := range res.Observations {
		if o.Subject != "sda" {
			continue
		}
		if mps, ok := o.Get("mountpoints").([]string); ok && slices.Contains(mps, "/home") {
			mounted = true
		}
		if o.Get("trim_covered") == true {
			covered = true
		}
	}
	if !mounted || !covered {
		t.Errorf("sda: /home mounted %v, trim covered %v; want both", mounted, covered)
	}
}
