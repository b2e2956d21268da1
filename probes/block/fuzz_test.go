package block

import (
	"testing"

	"github.com/diskdoctor/diskdoctor/probes/pcie"
	"github.com/diskdoctor/diskdoctor/probes/system"
	"github.com/diskdoctor/diskdoctor/probes/zfs"
)

// The fuzz targets run briefly in CI on their seed corpus; none may panic.

func FuzzParseScheduler(f *testing.F) {
	f.Add("none [mq-deadline] kyber bfq")
	f.Add("[")
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = ParseScheduler(s)
		_ = pcie.ParseSpeed(s)
		_ = system.ParseOSRelease([]byte(s))
		_ = zfs.ParseZpoolGet([]byte(s))
	})
}
