package multipath

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/diskdoctor/diskdoctor/machine"
)

// summary is a map as the tests compare it: name, dm, WWID, and each path
// as dev:dm/checker/online with A (active), D (down) or ? (unknown).
func summary(m *Map) string {
	var b strings.Builder
	b.WriteString(m.Name + " " + m.DM + " " + m.WWID + " " + m.Vendor + "," + m.Product + " " + m.Size)
	for _, g := range m.Groups {
		b.WriteString(" [" + g.Policy + " " + g.Prio + " " + g.Status + "]")
	}
	for _, p := range m.Paths {
		st := "?"
		if p.Active() {
			st = "A"
		} else if p.Down() {
			st = "D"
		}
		b.WriteString(" " + p.Name() + ":" + p.DM + "/" + p.Checker + "/" + p.Online + "=" + st)
	}
	return b.String()
}

func TestParseRealCaptures(t *testing.T) {
	for _, tc := range []struct {
		file string
		want []string
	}{
		{"orealyz-chunk2-one-path-failed.txt", []string{
			"mpatha dm-2 3600140557c66dd047214999a651eb037 LIO-ORG,data-chunk2 1022M [service-time 0 0 active] [service-time 0 50 enabled] sdd:failed/faulty/running=D sde:active/ready/running=A",
			"mpathb dm-3 3600140532c8eec0828442df8df844bb1 LIO-ORG,data-chunk2 1022M [service-time 0 0 enabled] [service-time 0 50 active] sdb:failed/faulty/running=D sdc:active/ready/running=A",
		}},
		{"orealyz-chunk2-failed-ready.txt", []string{
			"mpatha dm-2 3600140557c66dd047214999a651eb037 LIO-ORG,data-chunk2 1022M [service-time 0 50 active] [service-time 0 50 enabled] sdd:failed/ready/running=D sde:active/ready/running=A",
			"mpathb dm-3 3600140532c8eec0828442df8df844bb1 LIO-ORG,data-chunk2 1022M [service-time 0 50 enabled] [service-time 0 50 active] sdb:failed/ready/running=D sdc:active/ready/running=A",
		}},
		{"orealyz-chunk2-healthy.txt", []string{
			"mpatha dm-2 3600140557c66dd047214999a651eb037 LIO-ORG,data-chunk2 1022M [service-time 0 50 active] [service-time 0 50 enabled] sdd:active/ready/running=A sde:active/ready/running=A",
			"mpathb dm-3 3600140532c8eec0828442df8df844bb1 LIO-ORG,data-chunk2 1022M [service-time 0 50 enabled] [service-time 0 50 active] sdb:active/ready/running=A sdc:active/ready/running=A",
		}},
		{"insights-rhel5-v4.txt", []string{
			"L004 dm-9 360060160ade32800f2e3baf47665e211 DGC,RAID 5 100G [round-robin 0 1 active] [round-robin 0 0 enabled] sdk:active/ready/=A sdp:active/ready/=A sdf:active/ready/=A sdu:active/ready/=A",
		}},
		{"ubiquity-all-failed.txt", []string{
			"mpathc dm-3 36001738cfc9035eb0000000000d0540e IBM,2810XIV 19G [service-time 0 0 active] sdc:failed/faulty/running=D sdb:failed/faulty/running=D",
		}},
	} {
		b, err := os.ReadFile("testdata/" + tc.file)
		if err != nil {
			t.Fatal(err)
		}
		maps, err := Parse(b)
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		var got []string
		for _, m := range maps {
			got = append(got, summary(m))
		}
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("%s:\n got %q\nwant %q", tc.file, got, tc.want)
		}
	}
}

// Forms seen in listings and the man pages beside the captures: a map
// without alias or dm name, the orphan path of a deleted device, a checker
// state with a space, the old brackets' faulty path.
func TestParseForms(t *testing.T) {
	in := "create: mpath9 (36006016067302f00e4588d06345ee111)\n" +
		"[size=100 GB][features=\"1 queue_if_no_path\"][hwhandler=\"1 emc\"]\n" +
		"\\_ round-robin 0 [active]\n" +
		"  \\_ 0:0:5:3 sdd 8:48 [active][faulty]\n" +
		"3600601601bd032007c097518e96ae411 dm-2 DGC,VRAID\n" +
		"size=1.0G features='1 queue_if_no_path' hwhandler='1 alua' wp=rw\n" +
		"|-+- policy='round-robin 0' prio=0 status=active\n" +
		"| `- #:#:#:# -   #:#   active faulty running\n" +
		"`-+- policy='round-robin 0' prio=0 status=enabled\n" +
		"  `- 12:0:0:151 sdeg 128:128 active i/o pending running\n"
	maps, err := Parse([]byte(in))
	if err != nil || len(maps) != 2 {
		t.Fatalf("%d maps, %v", len(maps), err)
	}
	want := []string{
		"mpath9  36006016067302f00e4588d06345ee111 , 100 GB [round-robin 0  active] sdd:active/faulty/=D",
		"3600601601bd032007c097518e96ae411 dm-2 3600601601bd032007c097518e96ae411 DGC,VRAID 1.0G [round-robin 0 0 active] [round-robin 0 0 enabled] #:#:#:#:active/faulty/running=D sdeg:active/i/o pending/running=?",
	}
	for i, m := range maps {
		if got := summary(m); got != want[i] {
			t.Errorf("map %d:\n got %q\nwant %q", i, got, want[i])
		}
	}
	if maps[1].Paths[1].Group != 1 || maps[1].Paths[0].Group != 0 {
		t.Errorf("groups of the paths: %d %d", maps[1].Paths[0].Group, maps[1].Paths[1].Group)
	}
}

func TestParseRefusesHuge(t *testing.T) {
	if _, err := Parse(make([]byte, MaxOutputBytes+1)); !errors.Is(err, machine.ErrParse) {
		t.Fatalf("err %v", err)
	}
	var b strings.Builder
	b.WriteString("mpatha (1) dm-0 A,B\n")
	for i := 0; i <= MaxPaths; i++ {
		b.WriteString("  |- 1:0:0:1 sdb 8:16 active ready running\n")
	}
	if _, err := Parse([]byte(b.String())); !errors.Is(err, machine.ErrParse) {
		t.Fatalf("err %v", err)
	}
}

func FuzzParse(f *testing.F) {
	for _, n := range []string{"orealyz-chunk2-one-path-failed.txt", "orealyz-chunk2-healthy.txt", "insights-rhel5-v4.txt", "ubiquity-all-failed.txt"} {
		if b, err := os.ReadFile("testdata/" + n); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("a (b) dm-1\n|-+- policy='x' prio=1 status=active\n| `- 1:0:0:0 sda 8:0 [active][ready]\n\\_ [\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		maps, err := Parse(b)
		if err != nil {
			return
		}
		for _, m := range maps {
			for i := range m.Paths {
				_ = m.Paths[i].Active()
				_ = m.Paths[i].Name()
			}
		}
	})
}

// The queueing column of multipathd (print.c snprint_queueing): "on",
// "off", "12 chk", "20 sec", "-"; the header and blank lines skipped.
func TestParseQueueing(t *testing.T) {
	in := "name   queueing\nmpatha on      \nmpathb 12 chk\nmpathc off\nmpathd -\n\n"
	qs, err := ParseQueueing([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 4 || !qs[0].Forever() || qs[1].Queueing != "12 chk" || qs[1].Forever() || qs[2].Forever() || qs[3].Queueing != "-" {
		t.Errorf("%+v", qs)
	}
	if _, err := ParseQueueing(bytes.Repeat([]byte("x"), MaxOutputBytes+1)); err == nil {
		t.Error("oversized output accepted")
	}
}
