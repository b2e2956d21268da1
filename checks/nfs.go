package checks

import (
	"context"
	"strconv"
	"strings"

	"github.com/diskdoctor/diskdoctor/probes/kernlog"
	"github.com/diskdoctor/diskdoctor/probes/mount"
)

func init() {
	Register(Check{Name: "nfs", Description: "NFS servers the kernel log reports not responding (still trying, timed out) and whether they answered again, with the hung tasks that waited on them; each NFS mount's sync, soft, rsize and wsize options (mountinfo)", Run: nfsCheck})
}

// nfsCheck gives one filesystem subject per NFS server the kernel log
// reports not responding, named as the log names it, and on the host the
// servers that hung tasks waited on (for kernel-hung-tasks to name its
// cause). No kernel log: nothing (the kernel-log check's skipped entry
// says why).
func nfsCheck(ctx context.Context, env *Env) []*Observation {
	var out []*Observation
	if mounts, err := env.Mounts(ctx); err == nil {
		out = nfsMountObservations(mounts)
	}
	log, err := env.KernelLog(ctx)
	if err != nil || log == nil {
		return out
	}
	return append(out, nfsObservations(log.NFSServers())...)
}

// nfsMountObservations: one filesystem subject per NFS mount point (the
// first mount of each), with the options nfs(5) names as costly: sync
// (every write waits for the server's commit), soft on a writable mount
// (a timed-out write fails with EIO and may be lost), and rsize or wsize
// below 64 KiB (each read or write RPC carries at most that much; the
// kernel's default is the server's maximum, 1 MiB on Linux servers).
// Both the mount's and the superblock's options are read (mountinfo
// fields 6 and 11): sync is a superblock flag.
func nfsMountObservations(mounts []mount.Mount) []*Observation {
	var out []*Observation
	seen := map[string]bool{}
	for _, m := range mounts {
		if (m.FSType != "nfs" && m.FSType != "nfs4") || seen[m.MountPoint] {
			continue
		}
		seen[m.MountPoint] = true
		o := NewObservation("nfs", KindFilesystem, m.MountPoint)
		ev := Evidence{mountinfoSource, m.Source + " " + m.MountPoint + " " + m.FSType + " " + nfsOptionText(m.Options)}
		server, _, _ := strings.Cut(m.Source, ":")
		o.Set("nfs_mount_server", server)
		_, sync := m.Options["sync"]
		_, soft := m.Options["soft"]
		_, ro := m.Options["ro"]
		o.Set("nfs_mount_sync", sync, ev)
		o.Set("nfs_mount_soft_writable", soft && !ro, ev)
		o.Set("nfs_mount_rsize", nfsSize(m.Options["rsize"]), ev)
		o.Set("nfs_mount_wsize", nfsSize(m.Options["wsize"]), ev)
		out = append(out, o)
	}
	return out
}

// nfsOptionText: the options that bear on the rule, in a fixed order.
func nfsOptionText(opts map[string]string) string {
	var w []string
	for _, k := range []string{"ro", "rw", "sync", "soft", "hard", "rsize", "wsize", "vers", "proto", "timeo", "retrans"} {
		v, ok := opts[k]
		switch {
		case !ok:
		case v == "":
			w = append(w, k)
		default:
			w = append(w, k+"="+v)
		}
	}
	return strings.Join(w, ",")
}

// nfsSize: an rsize or wsize in bytes, nil when absent or not a number
// (unknown, never small).
func nfsSize(v string) any {
	n, err := strconv.ParseUint(v, 10, 32)
	if err != nil {
		return nil
	}
	return int(n)
}

func nfsObservations(servers []*kernlog.NFSServer) []*Observation {
	host := NewObservation("nfs", KindHost, "host")
	causes := []string{}
	out := []*Observation{host}
	for _, s := range servers {
		o := NewObservation("nfs", KindFilesystem, s.Name)
		var ev []Evidence
		for _, l := range s.Lines {
			ev = append(ev, Evidence{"dmesg line " + strconv.Itoa(l.Num), l.Raw})
		}
		o.Set("nfs_server_down", !s.Recovered, ev...)
		o.Set("nfs_still_trying", s.StillTrying)
		o.Set("nfs_timed_out", s.TimedOut)
		var hev []Evidence
		for _, l := range s.HungLines {
			hev = append(hev, Evidence{"dmesg line " + strconv.Itoa(l.Num), l.Raw})
		}
		o.Set("nfs_hung_tasks", nonNil(s.HungTasks), hev...)
		if len(s.HungTasks) > 0 {
			causes = append(causes, s.Name)
		}
		out = append(out, o)
	}
	host.Set("nfs_hung_task_servers", causes)
	return out
}
