package checks

import (
	"testing"

	"github.com/diskdoctor/diskdoctor/probes/kernlog"
)

// nfs-ganesha issue 1295's client log (2024): the server answered, then
// stopped answering again and the log ends there: down, not recovered. A
// log without NFS lines gives only the host's empty list.
func TestNFSObservations(t *testing.T) {
	log := &kernlog.Log{Lines: kernlog.Parse([]byte(`[871222.760669] nfs: server 100.73.159.36 OK
[1576939.453001] nfs: server 100.73.159.36 not responding, still trying
[1576939.453004] nfs: server 100.73.159.36 not responding, still trying
`))}
	obs := nfsObservations(log.NFSServers())
	if len(obs) != 2 {
		t.Fatalf("%d observations", len(obs))
	}
	host, s := obs[0], obs[1]
	if l, _ := host.Get("nfs_hung_task_servers").([]string); host.Kind != KindHost || l == nil || len(l) != 0 {
		t.Errorf("host %v", host.Get("nfs_hung_task_servers"))
	}
	if s.Kind != KindFilesystem || s.Subject != "100.73.159.36" || s.Get("nfs_server_down") != true || s.Get("nfs_still_trying") != 2 {
		t.Errorf("%s %v %v", s.Subject, s.Get("nfs_server_down"), s.Get("nfs_still_trying"))
	}
	if ev := s.EvidenceOf("nfs_server_down"); len(ev) != 2 || ev[0].Source != "dmesg line 2" {
		t.Errorf("evidence %+v", ev)
	}
	quiet := &kernlog.Log{Lines: kernlog.Parse([]byte("[    6.104122] e1000e 0000:00:1f.6 eno1: NIC Link is Up 1000 Mbps Full Duplex\n"))}
	if obs := nfsObservations(quiet.NFSServers()); len(obs) != 1 {
		t.Errorf("%d observations without NFS lines", len(obs))
	}
}
