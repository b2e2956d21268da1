package rules

import (
	"testing"

	"github.com/diskdoctor/diskdoctor/checks"
)

// filesystem-errors-recorded and ext4-lazyinit-running on facts built in
// the test: each state, the benchmark step, and the unknowns.
func TestFilesystemErrorAndLazyinitRules(t *testing.T) {
	fs := func(facts map[string]any) *checks.Observation {
		o := checks.NewObservation("test", checks.KindFilesystem, "/home")
		for k, v := range merged(map[string]any{"ext4_device": "sda1", "ext4_disks": []string{"sda"}, "ext4_errors_count": uint64(0),
			"ext4_first_error": nil, "ext4_last_error": nil, "ext4_mounted_with_errors": false}, facts) {
			o.Set(k, v, checks.Evidence{Source: "/sys/fs/ext4/sda1/" + k, Value: "x"})
		}
		return o
	}
	host := func(context string, facts map[string]any) *checks.Observation {
		h := checks.NewObservation("test", checks.KindHost, "host")
		h.Set("role", "server")
		h.Set("context", context)
		for k, v := range merged(map[string]any{"ext4_lazyinit_filesystems": []string{"/srv"}, "ext4_lazyinit_disks": []string{"sdb"}}, facts) {
			h.Set(k, v, checks.Evidence{Source: "/proc/1201/comm", Value: "ext4lazyinit"})
		}
		return h
	}
	tests := []struct {
		name, rule string
		obs        []*checks.Observation
		want       string
	}{
		{"8 errors recorded", "filesystem-errors-recorded", []*checks.Observation{fs(map[string]any{"ext4_errors_count": uint64(8), "ext4_last_error": "2017-02-22 02:00:59 UTC in ext4_iget:4223"}), host("auto", nil)}, Warning},
		{"mounted with errors, count unknown", "filesystem-errors-recorded", []*checks.Observation{fs(map[string]any{"ext4_errors_count": nil, "ext4_mounted_with_errors": true}), host("auto", nil)}, Warning},
		{"no error", "filesystem-errors-recorded", []*checks.Observation{fs(nil), host("auto", nil)}, ""},
		{"unknown", "filesystem-errors-recorded", []*checks.Observation{fs(map[string]any{"ext4_errors_count": nil, "ext4_mounted_with_errors": nil}), host("auto", nil)}, ""},

		{"lazyinit running", "ext4-lazyinit-running", []*checks.Observation{host("auto", map[string]any{"ext4_lazyinit_running": true})}, Info},
		{"lazyinit before a benchmark", "ext4-lazyinit-running", []*checks.Observation{host("benchmark", map[string]any{"ext4_lazyinit_running": true})}, Warning},
		{"lazyinit done", "ext4-lazyinit-running", []*checks.Observation{host("benchmark", map[string]any{"ext4_lazyinit_running": false})}, ""},
		{"lazyinit unknown", "ext4-lazyinit-running", []*checks.Observation{host("benchmark", map[string]any{"ext4_lazyinit_running": nil})}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got string
			for _, f := range judge(t, tt.obs...) {
				if f.Rule == tt.rule {
					got = f.Severity
				}
			}
			if got != tt.want {
				t.Errorf("%s: %q, want %q", tt.rule, got, tt.want)
			}
		})
	}
}

// A filesystem at 100 % is full, not nearly: the title and impact say
// writes fail now.
func TestFilesystemFullTitle(t *testing.T) {
	space := []any{map[string]any{"mount": "/", "device": "nvme0n1p2", "fstype": "ext4", "size_bytes": uint64(33554089984), "used_bytes": uint64(33537871872), "avail_bytes": uint64(0), "use_percent": 100.0}}
	for _, tt := range []struct {
		pct   float64
		title string
	}{{100, "A filesystem is full"}, {95, "A filesystem is nearly full"}} {
		d := device("nvme0n1", map[string]any{"fs_use_percent_max": tt.pct, "fs_space": space})
		var got *Finding
		for _, f := range judge(t, d) {
			if f.Rule == "filesystem-nearly-full" {
				got = &f
			}
		}
		if got == nil || got.Title != tt.title {
			t.Errorf("%v %%: %+v, want %q", tt.pct, got, tt.title)
		}
	}
}
