package kernlog

import (
	"regexp"
	"strings"
)

// NFSServer is what the kernel log says of one NFS server: the RPC
// client's major timeouts and recoveries (net/sunrpc/clnt.c,
// call_major_timeout and call_decode, 2.6–6.x: "%s: server %s not
// responding, still trying" on a hard mount, "…, timed out" on a soft one,
// "%s: server %s OK" once it answers again; %s the RPC program, nfs,
// lockd or nfsacl, then the server as the mount named it), and the hung
// tasks that waited on it.
type NFSServer struct {
	Name string // as the log names it: a host name or an address
	// StillTrying and TimedOut count the not-responding lines; a timed
	// out request (a soft mount) failed with an I/O error.
	StillTrying, TimedOut int
	// Recovered: an OK line follows the last not-responding line.
	Recovered bool
	// Lines: the first and last not-responding lines, and the OK that
	// ended the last outage.
	Lines []Line
	// HungTasks are the hung-task reports ("objcopy:24916") attributed to
	// this server, HungLines their first lines (at most maxNFSHung).
	HungTasks []string
	HungLines []Line
}

var (
	nfsServerMsg = regexp.MustCompile(`^(?:nfs|lockd|nfsacl): server (\S+) (not responding, (?:still trying|timed out)|OK)$`)
	hungTaskMsg  = regexp.MustCompile(`^INFO: task (\S+) blocked for more than \d+ seconds`)
)

// maxNFSHung bounds the hung tasks kept per server; maxTraceLines how far
// past a hung-task report its stack is looked for.
const (
	maxNFSHung    = 12
	maxTraceLines = 80
	// maxNFSName: a host name is at most 253 characters (RFC 1035), an
	// IPv6 address with a zone far less; a longer "name" is not one.
	maxNFSName = 255
)

// NFSServers finds each NFS server the log reports not responding, in the
// order they first failed. A hung task belongs to the servers that were
// not answering when it was reported; one reported after they answered
// again belongs to the server that failed last before it, if its stack
// waited in the NFS client or its RPC calls (nfs_*, rpc_*, [nfs], [nfsv4]): a task
// stuck in a write-back the outage started stays blocked after the OK.
func (k *Log) NFSServers() []*NFSServer {
	if k == nil {
		return nil
	}
	var order []*NFSServer
	by := map[string]*NFSServer{}
	down := map[string]bool{}
	var last *NFSServer // the server that failed most recently
	for i, l := range k.Lines {
		if strings.Contains(l.Text, ": server ") {
			m := nfsServerMsg.FindStringSubmatch(l.Text)
			if m == nil || len(m[1]) > maxNFSName {
				continue
			}
			s := by[m[1]]
			if m[2] == "OK" {
				if s != nil && down[s.Name] {
					down[s.Name] = false
					s.Recovered = true
					s.Lines = append(s.Lines, l)
				}
				continue
			}
			if s == nil {
				s = &NFSServer{Name: m[1]}
				by[s.Name] = s
				order = append(order, s)
			}
			if strings.HasSuffix(m[2], "timed out") {
				s.TimedOut++
			} else {
				s.StillTrying++
			}
			s.Recovered = false
			switch {
			case len(s.Lines) == 0:
				s.Lines = append(s.Lines, l)
			case !down[s.Name]:
				// A new outage: keep its first line, drop the old OK.
				s.Lines = append(s.Lines[:1], l)
			case len(s.Lines) == 1:
				s.Lines = append(s.Lines, l)
			default:
				s.Lines[len(s.Lines)-1] = l
			}
			down[s.Name] = true
			last = s
			continue
		}
		if last == nil || !strings.Contains(l.Text, "blocked for more than") {
			continue
		}
		m := hungTaskMsg.FindStringSubmatch(l.Text)
		if m == nil {
			continue
		}
		var to []*NFSServer
		for _, s := range order {
			if down[s.Name] {
				to = append(to, s)
			}
		}
		if len(to) == 0 && nfsStack(k.Lines[i+1:]) {
			to = []*NFSServer{last}
		}
		for _, s := range to {
			if len(s.HungTasks) < maxNFSHung {
				s.HungTasks = append(s.HungTasks, m[1])
				s.HungLines = append(s.HungLines, l)
			}
		}
	}
	return order
}

// nfsStack: the stack trace that follows a hung-task report names NFS or
// the RPC client. It ends at the next hung-task report or NFS message.
func nfsStack(after []Line) bool {
	for i, l := range after {
		if i >= maxTraceLines || strings.HasPrefix(l.Text, "INFO: task ") || strings.Contains(l.Text, ": server ") {
			return false
		}
		t := l.Text
		if strings.Contains(t, "nfs_") || strings.Contains(t, "[nfs]") || strings.Contains(t, "[nfsv4]") || strings.Contains(t, "rpc_") {
			return true
		}
	}
	return false
}
