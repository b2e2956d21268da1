package checks

import (
	"testing"

	"github.com/diskdoctor/diskdoctor/probes/raidctl"
)

func val(s string) raidctl.Value {
	return raidctl.Value{Text: s, Set: true, Line: raidctl.Line{N: 1, Text: s}}
}

func TestCacheVerdict(t *testing.T) {
	storcli := &raidctl.Inventory{Family: raidctl.FamilyStorcli, Tool: "storcli64"}
	smartArray := &raidctl.Inventory{Family: raidctl.FamilySmartArray, Tool: "ssacli"}
	wbRunningWT := &raidctl.Volume{ID: "v0", ConfiguredWrite: val("WriteBack"), CurrentWrite: val("WriteThrough")}
	cases := []struct {
		name        string
		inv         *raidctl.Inventory
		c           raidctl.Controller
		v           *raidctl.Volume
		state       string
		unprotected int
	}{
		{"BBU failed, volume fell back", storcli, raidctl.Controller{ID: "/c0", CacheSize: val("512MB"), CacheBoardPresent: val("512MB"),
			EnergyPack: raidctl.EnergyPack{Kind: "battery", Status: val("Failed")}}, wbRunningWT, "disabled", 0},
		{"learn cycle, volume fell back", storcli, raidctl.Controller{ID: "/c0", EnergyPack: raidctl.EnergyPack{Kind: "battery", Status: val("Learning")}}, wbRunningWT, "degraded", 0},
		{"fell back, energy pack not reported", storcli, raidctl.Controller{ID: "/c0"}, wbRunningWT, "disabled", 0},
		{"no BBU, write-through configured", storcli, raidctl.Controller{ID: "/c0", EnergyPack: raidctl.EnergyPack{Present: val("Absent")}},
			&raidctl.Volume{ID: "v0", ConfiguredWrite: val("WriteThrough"), CurrentWrite: val("WriteThrough")}, "write-through", 0},
		{"always write-back", storcli, raidctl.Controller{ID: "/c0", EnergyPack: raidctl.EnergyPack{Kind: "battery", Status: val("Optimal")}},
			&raidctl.Volume{ID: "v0", CurrentWrite: val("Always WriteBack")}, "ok", 1},
		{"Smart Array recharging", smartArray, raidctl.Controller{ID: "slot=0", CacheBoardPresent: val("True"), CacheStatus: val("Temporarily Disabled"),
			EnergyPack: raidctl.EnergyPack{Kind: "battery", Status: val("Recharging")}}, &raidctl.Volume{ID: "1"}, "degraded", 0},
		{"Smart Array permanently disabled while recharging", smartArray, raidctl.Controller{ID: "slot=0", CacheBoardPresent: val("True"), CacheStatus: val("Permanently Disabled"),
			EnergyPack: raidctl.EnergyPack{Kind: "battery", Status: val("Recharging")}}, &raidctl.Volume{ID: "1"}, "disabled", 0},
		{"Smart Array cache not configured", smartArray, raidctl.Controller{ID: "slot=0", CacheBoardPresent: val("True"), CacheStatus: val("Not Configured"),
			EnergyPack: raidctl.EnergyPack{Kind: "battery", Status: val("Recharging")}}, &raidctl.Volume{ID: "1"}, "write-through", 0},
		{"Smart Array permanently disabled", smartArray, raidctl.Controller{ID: "slot=0", CacheBoardPresent: val("True"), CacheStatus: val("Permanently Disabled"),
			EnergyPack: raidctl.EnergyPack{Kind: "capacitor", Status: val("Failed")}}, &raidctl.Volume{ID: "1"}, "disabled", 0},
		{"Smart Array without energy pack", smartArray, raidctl.Controller{ID: "slot=0", CacheBoardPresent: val("True"), CacheStatus: val("OK"), CacheRatio: val("100% Read / 0% Write")},
			&raidctl.Volume{ID: "1"}, "write-through", 0},
		{"Smart Array no-battery write cache", smartArray, raidctl.Controller{ID: "slot=0", CacheBoardPresent: val("True"), CacheStatus: val("OK"), CacheRatio: val("10% Read / 90% Write"),
			NoBatteryWrite: val("Enabled"), EnergyPack: raidctl.EnergyPack{Kind: "battery", Status: val("OK")}}, &raidctl.Volume{ID: "1"}, "ok", 1},
		{"nothing about the cache reported", storcli, raidctl.Controller{ID: "/c0"}, &raidctl.Volume{ID: "v0"}, "unknown", 0},
		{"no cache module", smartArray, raidctl.Controller{ID: "slot=1", CacheBoardPresent: val("False")}, &raidctl.Volume{ID: "1"}, "write-through", 0},
		{"MegaCli flags: replacement required", storcli, raidctl.Controller{ID: "/c0", EnergyPack: raidctl.EnergyPack{Kind: "battery",
			Details: []raidctl.Value{val("Battery Replacement required : Yes")}}}, &raidctl.Volume{ID: "v0", CurrentWrite: val("WriteBack")}, "disabled", 0},
	}
	for _, tc := range cases {
		r := &ctlRun{inv: tc.inv}
		cv := r.verdict(&tc.c, tc.v)
		if cv.state != tc.state || len(cv.unprotected) != tc.unprotected {
			t.Errorf("%s: state %q (%s), %d unprotected; want %q, %d", tc.name, cv.state, cv.reason, len(cv.unprotected), tc.state, tc.unprotected)
		}
		if cv.state != "ok" && cv.state != "unknown" && cv.reason == "" {
			t.Errorf("%s: state %q without a reason", tc.name, cv.state)
		}
	}
}

func TestDriveFailing(t *testing.T) {
	for _, tc := range []struct {
		d    raidctl.Drive
		want bool
	}{
		{raidctl.Drive{ID: "1I:1:1", Status: val("OK")}, false},
		{raidctl.Drive{ID: "1I:1:2", Status: val("Predictive Failure")}, true},
		{raidctl.Drive{ID: "252:0", Status: val("Onln"), MediaErrors: val("0"), Predictive: val("0")}, false},
		{raidctl.Drive{ID: "252:1", Status: val("Onln"), MediaErrors: val("71")}, true},
		{raidctl.Drive{ID: "252:2", Status: val("UBad")}, true},
		{raidctl.Drive{ID: "252:3", Status: val("Rbld")}, false},
		{raidctl.Drive{ID: "0:4", Status: val("Unconfigured(bad)")}, true},
	} {
		if got := driveFailing(&tc.d) != ""; got != tc.want {
			t.Errorf("%s %s: failing %v, want %v", tc.d.ID, tc.d.Status.Text, got, tc.want)
		}
	}
}

func TestVolumeDegraded(t *testing.T) {
	for s, want := range map[string]any{"OK": false, "Optl": false, "Optimal": false, "Interim Recovery Mode": true, "Dgrd": true, "Recovering, 45% complete": true, "Partially Degraded": true} {
		if got := volumeDegraded(val(s)); got != want {
			t.Errorf("%q: %v, want %v", s, got, want)
		}
	}
	if volumeDegraded(raidctl.Value{}) != nil {
		t.Error("an unread status is not healthy")
	}
}

// Every tool's RAID level reads the same way.
func TestRAIDLevelNames(t *testing.T) {
	for in, want := range map[string]any{
		"Primary-1, Secondary-0, RAID Level Qualifier-0": "RAID 1",
		"Primary-5, Secondary-0, RAID Level Qualifier-3": "RAID 5",
		"Primary-1, Secondary-3, RAID Level Qualifier-0": "RAID 10",
		"RAID6":          "RAID 6",
		"1+0":            "RAID 1+0",
		"10":             "RAID 10",
		"6 Reed-Solomon": "RAID 6 Reed-Solomon",
		"RAID 5":         "RAID 5",
		"":               nil,
	} {
		if got := raidLevel(raidctl.Value{Text: in, Set: true}); got != want {
			t.Errorf("raidLevel(%q) = %#v, want %#v", in, got, want)
		}
	}
}
