package checks_test

import (
	"strings"
	"testing"

	"github.com/diskdoctor/diskdoctor/rules"
)

// A pass that makes no headway is called stalled: speed 0, or an estimate
// beyond 30 days at mdstat's rate (a reshape with 168,083 minutes to go);
// one that runs, however long, at a rate a disk sustains is not.
func TestMDStalledPass(t *testing.T) {
	const head = "Personalities : [raid5]\nmd3 : active raid5 sdd1[3] sdc1[2] sdb1[1] sda1[0]\n      11720655360 blocks super 1.2 level 5, 512k chunk, algorithm 2 [4/4] [UUUU]\n"
	for _, c := range []struct {
		name, line string
		stalled    bool
		says       string
	}{
		{"reshape 116 days to go", "      [>....................]  reshape =  1.2% (46883840/3906885120) finish=168083.4min speed=383K/sec\n", true, "117 days to go at 383 K/sec"},
		{"recovery at speed 0", "      [=>...................]  recovery =  8.5% (332110848/3906885120) finish=99999.9min speed=0K/sec\n", true, "speed 0"},
		{"resync of a big array, 12 hours", "      [=======>.............]  resync = 37.2% (5549960960/14887084032) finish=754.4min speed=206272K/sec\n", false, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			var bg *rules.Finding
			fs := judgeMD(t, head+c.line+"\nunused devices: <none>\n")
			for i := range fs {
				if fs[i].Rule == "md-background-work" {
					bg = &fs[i]
				}
			}
			if bg == nil {
				t.Fatalf("no md-background-work finding: %v", fs)
			}
			stalled := strings.Contains(bg.Title, "stalled")
			if stalled != c.stalled || !strings.Contains(bg.Observed, c.says) {
				t.Errorf("title %q, observed %q: want stalled %v, saying %q", bg.Title, bg.Observed, c.stalled, c.says)
			}
			if c.stalled && strings.Contains(bg.Impact, "measured now are not the array's own") {
				t.Errorf("a stalled pass's impact is that of a running one: %q", bg.Impact)
			}
		})
	}
}
