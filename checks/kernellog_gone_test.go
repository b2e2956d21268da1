package checks

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/internal/testutil"
	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/probes/block"
	"github.com/diskdoctor/diskdoctor/probes/kernlog"
)

// A disk that left /sys/block is reported under its own name with when it
// was last heard of, and linked to the md array /proc/mdstat still lists
// it in (issue #10 item 2). The log lines are the LKML 2024 nvme9 report's.
func TestKernelLogGoneDeviceLinkedToMDStat(t *testing.T) {
	root := t.TempDir()
	for p, s := range map[string]string{
		"sys/block/.keep": "",
		"proc/mdstat":     "Personalities : [raid1]\nmd0 : active raid1 nvme9n1p2[9](F) nvme7n1p2[7]\n      1046528 blocks super 1.2 [2/1] [U_]\n\nunused devices: <none>\n",
	} {
		testutil.WriteFile(t, filepath.Join(root, p), s)
	}
	h, err := machine.Recorded(root)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	env := newEnv(h, Options{ProbeTimeout: time.Second})
	log := &kernlog.Log{Lines: kernlog.Parse([]byte(
		"[1933116.236646] nvme nvme9: I/O 119 QID 2 timeout, aborting\n" +
			"[1933226.364390] nvme nvme9: Removing after probe failure status: -19\n" +
			"[1933236.886392] nvme9n1: detected capacity change from 7814037168 to 0\n" +
			"[1933236.886392] md/raid1:md0: Disk failure on nvme9n1p2, disabling device.\n"))}
	topo := kernlog.NewTopology([]*block.Device{{Name: "nvme7n1", Transport: "nvme", Controllers: []string{"nvme7"}}}, nil)
	topo.LearnFromLog(log)
	obs := KernelLogObservations(log, topo, 1933300, []string{"nvme7n1"})
	var gone, inv *Observation
	for _, o := range obs {
		if o.Subject == "nvme9n1" && o.Check == "kernel-log" {
			gone = o
		}
		if o.Subject == "nvme9n1" && o.Check == "inventory" {
			inv = o
		}
		if o.Subject == "nvme7n1" && o.Get("klog_events") != 0 {
			t.Errorf("nvme7n1 has events: %v", factMap(o))
		}
	}
	if gone == nil || inv == nil || factMap(gone)["klog_gone"] != true || factMap(inv)["judged"] != false || factMap(inv)["dev_path"] != "/dev/nvme9n1" {
		t.Fatalf("no gone observation for nvme9n1: %v", obs)
	}
	if s, _ := factMap(gone)["klog_gone_since"].(string); s != "22.4 days (1933237 s) after boot, 1 min ago" {
		t.Errorf("gone since %q", s)
	}
	linkGoneMember(context.Background(), env, topo, gone)
	m, _ := factMap(gone)["klog_member_of"].([]string)
	if len(m) != 2 || !strings.Contains(m[0], "md0 (nvme9n1p2, failed by md)") || !strings.Contains(m[1], "marked failed in /proc/mdstat") {
		t.Errorf("member of %q", m)
	}
}

// The same for a ZFS pool: zpool status names the vanished member (by its
// old path, "was /dev/…") and the gone disk is linked to the pool.
func TestKernelLogGoneDeviceLinkedToZpool(t *testing.T) {
	root := t.TempDir()
	status := "  pool: tank\n state: DEGRADED\nstatus: One or more devices could not be used because the label is missing or\n\tinvalid.\n  scan: none requested\nconfig:\n\n" +
		"\tNAME                     STATE     READ WRITE CKSUM\n\ttank                     DEGRADED     0     0     0\n\t  mirror-0               DEGRADED     0     0     0\n" +
		"\t    nvme7n1              ONLINE       0     0     0\n\t    9823741982374198237  UNAVAIL      0     0     0  was /dev/nvme9n1\n\nerrors: No known data errors\n"
	for p, s := range map[string]string{
		"sys/block/.keep":                 "",
		"sys/module/zfs/parameters/.keep": "",
		"commands/status.txt":             status,
		"commands/manifest.yaml":          "- argv: [zpool, status, -P, -t]\n  stdout: status.txt\n",
	} {
		testutil.WriteFile(t, filepath.Join(root, p), s)
	}
	h, err := machine.Recorded(root)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	env := newEnv(h, Options{ProbeTimeout: time.Second})
	log := &kernlog.Log{Lines: kernlog.Parse([]byte(
		"[ 5000.1] nvme nvme9: Device not ready; aborting reset, CSTS=0x1\n[ 5000.2] nvme9n1: detected capacity change from 7814037168 to 0\n"))}
	topo := kernlog.NewTopology([]*block.Device{{Name: "nvme7n1", Transport: "nvme", Controllers: []string{"nvme7"}}}, nil)
	topo.LearnFromLog(log)
	var gone *Observation
	for _, o := range KernelLogObservations(log, topo, 6000, []string{"nvme7n1"}) {
		if o.Subject == "nvme9n1" {
			gone = o
		}
	}
	if gone == nil {
		t.Fatal("no observation for nvme9n1")
	}
	linkGoneMember(context.Background(), env, topo, gone)
	m, _ := factMap(gone)["klog_member_of"].([]string)
	if len(m) != 1 || !strings.Contains(m[0], "ZFS pool tank") || !strings.Contains(m[0], "UNAVAIL") {
		t.Errorf("member of %q", m)
	}
}
