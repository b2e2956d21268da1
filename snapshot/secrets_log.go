package snapshot

import (
	"regexp"
	"strconv"
	"strings"
)

// Lines that name the host in a kernel log (dmesg, journalctl -k) and in
// the recorded /etc files, whatever name it has: a host name known from a
// hostname file is replaced as a word everywhere, but one that is also a
// word of the distribution's name (truenas) is not (addHost), and a
// recording may have no hostname file at all (issue #26).
var (
	// systemd at boot, src/core/main.c: "Hostname set to <%s>."
	hostSetLine = regexp.MustCompile(`Hostname set to <([^<>\s]+)>`)
	// systemd-hostnamed, src/hostname/hostnamed.c: "Changed static host
	// name to '%s'", "Changed host name to '%s'".
	hostChangedLine = regexp.MustCompile(`Changed (?:static |pretty |transient )?host ?name to '([^'\s]+)'`)
	// The host column of a syslog or journalctl short line (RFC 3164
	// §4.1.2 HEADER: TIMESTAMP SP HOSTNAME SP).
	syslogHostLine = regexp.MustCompile(`(?m)^([A-Z][a-z]{2} [ 0-9][0-9] [0-9]{2}:[0-9]{2}:[0-9]{2}) ([^\s:\[]+) `)
)

// logHosts adds the host names b's log lines name.
func (s *secrets) logHosts(b []byte) {
	if !mayNameHost(string(b)) {
		return
	}
	for _, re := range []*regexp.Regexp{hostSetLine, hostChangedLine, syslogHostLine} {
		for _, m := range re.FindAllSubmatch(b, -1) {
			s.hostNames = append(s.hostNames, string(m[len(m)-1]))
		}
	}
}

// mayNameHost: s holds a line logHosts or redactHostLines reads (a cheap
// test before the expressions).
func mayNameHost(s string) bool {
	return strings.Contains(s, "Hostname set to <") || strings.Contains(s, "ost name to '") || strings.Contains(s, "ostname to '") || syslogStart(s)
}

// syslogStart: s begins as a syslog line ("Feb 24 20:40:02 ").
func syslogStart(s string) bool {
	return len(s) > 16 && s[3] == ' ' && s[6] == ' ' && s[9] == ':' && s[12] == ':' && s[15] == ' '
}

// redactHostLines replaces the host name where a log line names it as
// the host, whatever the name.
func redactHostLines(s string) string {
	if !mayNameHost(s) {
		return s
	}
	s = hostSetLine.ReplaceAllLiteralString(s, "Hostname set to <"+redactedHost+">")
	s = hostChangedLine.ReplaceAllStringFunc(s, func(m string) string {
		return m[:strings.IndexByte(m, '\'')+1] + redactedHost + "'"
	})
	if syslogStart(s) {
		s = syslogHostLine.ReplaceAllString(s, "$1 "+redactedHost+" ")
	}
	return s
}

// kernelLogCommand: a command whose output is the kernel log, where an
// IP address is a network's, never a device's.
func kernelLogCommand(argv []string) bool {
	return len(argv) > 0 && (argv[0] == "dmesg" || argv[0] == "journalctl")
}

// ipAddrs takes the IPv4 and IPv6 addresses of a kernel log (a NFS
// server, an iSCSI portal, a link's address): the network the machine
// is on.
func (s *secrets) ipAddrs(b []byte) {
	text := string(b)
	for _, v := range findIPv4(text) {
		if v != "0.0.0.0" && v != "255.255.255.255" && !strings.HasPrefix(v, "127.") {
			s.setKind(v, "ip")
		}
	}
	for _, v := range findIPv6(text) {
		if v != "::" && v != "::1" {
			s.setKind(v, "ip")
		}
	}
}

// findIPv4 returns the dotted quads of s: four decimal numbers of 0 to 255
// without a leading zero (a driver version, 07.725.01.00, has them), not
// part of a longer run of numbers and dots.
func findIPv4(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		j := strings.IndexByte(s[i:], '.')
		if j < 0 {
			break
		}
		dot := i + j
		start := dot
		for start > 0 && s[start-1] >= '0' && s[start-1] <= '9' {
			start--
		}
		end := start
		for end < len(s) && (s[end] >= '0' && s[end] <= '9' || s[end] == '.') {
			end++
		}
		cand := strings.TrimSuffix(s[start:end], ".")
		if (start == 0 || !ipWordByte(s[start-1])) && isIPv4(cand) {
			out = append(out, cand)
		}
		i = max(end, dot+1)
	}
	return out
}

func ipWordByte(c byte) bool { return isAlnum(c) || c == '.' || c == '_' || c == '-' }

func isIPv4(v string) bool {
	parts := strings.Split(v, ".")
	if len(parts) != 4 {
		return false
	}
	for _, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n > 255 || p == "" || len(p) > 1 && p[0] == '0' {
			return false
		}
	}
	return true
}

// findIPv6 returns the IPv6 addresses of s (RFC 4291 §2.2): eight groups
// of hex, or fewer with one "::". A SCSI address (2:0:0:0) and a time
// (20:40:02) have no "::" and fewer groups; a MAC has six.
func findIPv6(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		j := strings.IndexByte(s[i:], ':')
		if j < 0 {
			break
		}
		c := i + j
		start := c
		for start > 0 && isHex(s[start-1:start]) {
			start--
		}
		end := c
		for end < len(s) && (s[end] == ':' || isHex(s[end:end+1])) {
			end++
		}
		if end < len(s) && s[end] == '.' {
			// An IPv4 tail (::ffff:10.0.0.9) is findIPv4's.
			end = start + strings.LastIndexByte(s[start:end], ':') + 1
		}
		cand := s[start:end]
		if (start == 0 || !ipWordByte(s[start-1]) && s[start-1] != ':') && isIPv6(cand) {
			out = append(out, cand)
		}
		i = max(end, c+1)
	}
	return out
}

func isIPv6(v string) bool {
	if strings.Count(v, "::") > 1 || strings.Contains(v, ":::") {
		return false
	}
	groups := strings.Split(v, ":")
	compressed := strings.Contains(v, "::")
	long := false
	n := 0
	for _, g := range groups {
		if g == "" {
			continue
		}
		if len(g) > 4 {
			return false
		}
		long = long || len(g) >= 3
		n++
	}
	switch {
	case compressed:
		// At least one group besides the "::", and one of 3 or 4 digits
		// or a link-local prefix, so that a C++ "a::b" is not one.
		return n >= 1 && n <= 7 && (long || strings.HasPrefix(v, "fe80::"))
	default:
		return n == 8 && len(groups) == 8 && long
	}
}
