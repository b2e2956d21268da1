package checks

import (
	"context"
	"regexp"
	"slices"
	"strconv"

	"github.com/diskdoctor/diskdoctor/probes/block"
	"github.com/diskdoctor/diskdoctor/probes/multipath"
)

// iscsiSessionDir finds the iSCSI session a SCSI disk hangs under: the
// iSCSI transport class adds the session's device below the host and the
// target below it (drivers/scsi/scsi_transport_iscsi.c,
// iscsi_add_session: /sys/devices/platform/hostH/sessionN/targetH:C:T/
// H:C:T:L/block/sdX).
var iscsiSessionDir = regexp.MustCompile(`/(session\d+)/target\d+:\d+:\d+/`)

// setISCSIRecovery: for a map with paths over iSCSI, each path's session
// and its recovery_tmo (/sys/class/iscsi_session/sessionN/recovery_tmo,
// set from node.session.timeo.replacement_timeout at login): how long the
// iSCSI layer holds a dropped session's I/O before failing it to
// dm-multipath, which only then retries on another path. open-iscsi's
// default is 120 s (iscsid.conf; Red Hat Enterprise Linux 6 Storage
// Administration Guide 21.16.2.2, which advises 15–20 s under
// dm-multipath with queue_if_no_path). A value below 0 holds the I/O until
// the session logs in again (iscsid.conf: "IO will remain queued"), so
// multipath never fails the path: it is kept as the value, whatever the
// others. Nothing is set for a map with no iSCSI path; a session whose
// file cannot be read makes the value unknown.
func setISCSIRecovery(ctx context.Context, env *Env, o *Observation, m *multipath.Map, devs *block.Map) {
	var sessions []string
	var ev []Evidence
	most, known, forever := 0, true, 0
	for i := range m.Paths {
		p := &m.Paths[i]
		d := devs.Device(p.Dev)
		if d == nil {
			continue
		}
		sm := iscsiSessionDir.FindStringSubmatch(d.SysPath)
		if sm == nil {
			continue
		}
		file := "/sys/class/iscsi_session/" + sm[1] + "/recovery_tmo"
		v, err := env.Host.ReadString(ctx, file)
		n, perr := strconv.Atoi(v)
		if err != nil || perr != nil {
			if err == nil {
				err = perr
			}
			env.Skip("iscsi recovery_tmo", p.Dev, withHint(err, "how long the path's iSCSI session holds I/O before multipath can fail it over is unknown; iscsiadm -m session -P 3 prints it (Recovery Timeout)"))
			known = false
			sessions = append(sessions, sm[1]+" ("+p.Dev+"): recovery_tmo unknown")
			continue
		}
		sessions = append(sessions, sm[1]+" ("+p.Dev+"): recovery_tmo "+strconv.Itoa(n)+" s")
		ev = append(ev, Evidence{file, v})
		most = max(most, n)
		forever = min(forever, n)
	}
	if len(sessions) == 0 {
		return
	}
	slices.Sort(sessions)
	o.Set("multipath_iscsi_sessions", sessions, ev...)
	if known && forever < 0 {
		o.Set("multipath_iscsi_recovery_tmo", forever, ev...)
	} else if known {
		o.Set("multipath_iscsi_recovery_tmo", most, ev...)
	} else {
		o.Set("multipath_iscsi_recovery_tmo", nil)
	}
}
