package rules

import (
	"testing"

	"github.com/diskdoctor/diskdoctor/checks"
)

// ruleSeverity is the severity of the rule's finding on sda, "" for none.
func ruleSeverity(t *testing.T, rule string, facts map[string]any) string {
	t.Helper()
	h := checks.NewObservation("test", checks.KindHost, "host")
	for _, f := range judge(t, device("sda", facts), h) {
		if f.Rule == rule {
			return f.Severity
		}
	}
	return ""
}

func merged(base map[string]any, extra map[string]any) map[string]any {
	m := map[string]any{}
	for k, v := range base {
		m[k] = v
	}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

// smr-drive-in-redundancy: critical during a rebuild, a warning otherwise;
// nothing for a CMR WD Red, for an SMR disk in no redundancy, or when the
// recording is unknown.
func TestSMRDriveInRedundancy(t *testing.T) {
	smrMember := map[string]any{"rotational": true, "model": "WDC WD40EFAX-68JH4N0", "smart_smr": true, "smart_model_family": "Western Digital Red (SMR)",
		"md_member_of": []string{"md0 (sdb1 of raid5)"}, "md_member_redundant": true, "md_member_rebuilding": nil}
	for _, c := range []struct {
		name  string
		facts map[string]any
		want  string
	}{
		{"SMR member, array rebuilding", merged(smrMember, map[string]any{"md_member_rebuilding": []string{"md0 recovery 12.6%"}}), Critical},
		{"SMR member, idle array", smrMember, Warning},
		{"SMR by datasheet only", merged(smrMember, map[string]any{"smart_smr": nil, "smart_model_family": nil}), Warning},
		{"SMR in a resilvering pool", merged(smrMember, map[string]any{"md_member_of": nil, "md_member_redundant": nil, "zfs_member_of": "tank", "zfs_vdev": "raidz1-0", "zfs_vdev_redundant": true, "zfs_pool_resilvering": true}), Critical},
		{"SMR in raid0 (no rebuild)", merged(smrMember, map[string]any{"md_member_redundant": false}), ""},
		{"CMR WD Red in a rebuilding array", merged(smrMember, map[string]any{"model": "WDC WD40EFRX-68N32N0", "smart_smr": nil, "smart_model_family": "Western Digital Red", "md_member_rebuilding": []string{"md0 recovery 12.6%"}}), ""},
		{"recording unknown", merged(smrMember, map[string]any{"model": "WDC WD10EZEX-00BN5A0", "smart_smr": nil}), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := ruleSeverity(t, "smr-drive-in-redundancy", c.facts); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

// scterc-exceeds-timeout: ERC off or missing under the default 30 s
// timer, or a limit at or above the timer; nothing for 70/70, for a 180 s
// timer without ERC, for a disk in no redundancy, or when unknown.
func TestSCTERCExceedsTimeout(t *testing.T) {
	member := map[string]any{"md_member_of": []string{"md0 (sdb1 of raid1)"}, "md_member_redundant": true, "dev_timeout_s": 30,
		"smart_scterc_state": "enabled", "smart_scterc_read_ds": 70, "smart_scterc_write_ds": 70}
	for _, c := range []struct {
		name  string
		facts map[string]any
		want  string
	}{
		{"ERC 70/70, timer 30", member, ""},
		{"ERC disabled, timer 30", merged(member, map[string]any{"smart_scterc_state": "disabled", "smart_scterc_read_ds": nil, "smart_scterc_write_ds": nil}), Warning},
		{"ERC unsupported, timer 30", merged(member, map[string]any{"smart_scterc_state": "unsupported", "smart_scterc_read_ds": nil, "smart_scterc_write_ds": nil}), Warning},
		{"ERC unsupported, timer 180", merged(member, map[string]any{"smart_scterc_state": "unsupported", "smart_scterc_read_ds": nil, "smart_scterc_write_ds": nil, "dev_timeout_s": 180}), ""},
		{"ERC 300 ds, timer 30", merged(member, map[string]any{"smart_scterc_read_ds": 300}), Warning},
		{"ERC disabled, not in an array", merged(member, map[string]any{"smart_scterc_state": "disabled", "md_member_of": nil, "md_member_redundant": nil}), ""},
		{"ERC unknown", merged(member, map[string]any{"smart_scterc_state": nil}), ""},
		{"timer unknown", merged(member, map[string]any{"smart_scterc_state": "disabled", "dev_timeout_s": nil}), ""},
		{"ZFS mirror member, ERC disabled", merged(member, map[string]any{"md_member_of": nil, "md_member_redundant": nil, "zfs_member_of": "tank", "zfs_vdev_redundant": true, "smart_scterc_state": "disabled"}), Warning},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := ruleSeverity(t, "scterc-exceeds-timeout", c.facts); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}
