package snapshot

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/diskdoctor/diskdoctor/machine"
)

// Issue #26: the snapshot of the TrueNAS fixture kept the host name in
// the kernel log ("systemd[1]: Hostname set to <truenas>."): a host name
// that is also a word of the kernel's release (…+truenas) is not replaced
// as a word everywhere, so the lines that name the host are redacted
// whatever the name.
func TestSnapshotRedactsHostNameInKernelLog(t *testing.T) {
	file, _ := snapshotOf(t, filepath.Join(fixturesDir, "r630-optane-schedutil"), false)
	stream := tarStream(t, file)
	if bytes.Contains(stream, []byte("Hostname set to <truenas>")) {
		t.Error("the kernel log keeps the host name: Hostname set to <truenas>")
	}
	if !bytes.Contains(stream, []byte("Hostname set to <"+redactedHost+">")) {
		t.Error("no redacted Hostname line")
	}
}

// A machine whose recording has no hostname file: the host names the
// kernel log gives (systemd's line, hostnamed's, the syslog host column)
// are redacted wherever they occur, and so are the IP addresses of the
// kernel log; driver versions, SCSI addresses and times are not addresses.
func TestRedactsHostAndAddressesFromKernelLog(t *testing.T) {
	const log = "[    7.26] systemd[1]: Hostname set to <nas01>.\n" +
		"[   12.00] systemd-hostnamed[812]: Changed static host name to 'vault7'\n" +
		"Nov 20 11:44:21 archive3 kernel: nfs: server 192.168.7.20 not responding, still trying\n" +
		"Nov 20 11:44:22 archive3 kernel: IPv6: eth0: address fe80::1a2b:3cff:fe4d:5e6f, and 2001:db8:85a3:0:0:8a2e:370:7334\n" +
		"Nov 20 11:44:23 archive3 kernel: megaraid_sas 0000:03:00.0: FW now in Ready state, driver 07.725.01.00 version 2.0.1 at 0.0.0.0\n" +
		"Nov 20 11:44:24 archive3 kernel: sd 2:0:0:0: [sdc] 20:40:02 Attached, nas01 mounted /srv/nas01\n"
	got, all := redactedTree(t, map[string]string{
		"sys/block/sda/dev":         "8:0\n",
		"proc/sys/kernel/osrelease": "6.1.0-26-amd64\n",
		"commands/manifest.yaml":    "- argv: [dmesg]\n  stdout: dmesg.txt\n",
		"commands/dmesg.txt":        log,
	}, func(ctx context.Context, th *machine.Host) {
		if _, err := th.ReadFile(ctx, "/proc/sys/kernel/osrelease"); err != nil {
			t.Fatal(err)
		}
		_, _ = th.Run(ctx, "dmesg")
	})
	for _, s := range []string{"nas01", "vault7", "archive3", "192.168.7.20", "fe80::1a2b:3cff:fe4d:5e6f", "2001:db8:85a3:0:0:8a2e:370:7334"} {
		if strings.Contains(all, s) {
			t.Errorf("%q left in the snapshot", s)
		}
	}
	for _, s := range []string{"Hostname set to <redacted-host>", "host name to 'redacted-host'", "11:44:21 redacted-host kernel: nfs: server IP", "07.725.01.00", "version 2.0.1 at 0.0.0.0", "sd 2:0:0:0: [sdc] 20:40:02", "/srv/redacted-host"} {
		if !strings.Contains(all, s) {
			t.Errorf("%q missing from the redacted snapshot:\n%s", s, extract(all, "dmesg.out"))
		}
	}
	if got.RedactedValues["ip"] != 3 || got.RedactedValues["host"] != 1 {
		t.Errorf("redacted values %v", got.RedactedValues)
	}
}

func TestFindIPs(t *testing.T) {
	s := "a 10.1.2.3, b 1.2.3.4.5 c 07.725.01.00 d 256.1.1.1 e x10.0.0.1 f 0000:00:1f.2 g fe80::1 h ::ffff:10.0.0.9 i std::map j 2:0:0:0 k 20:40:02 l 00:1b:21:3a:4b:5c"
	if got, want := findIPv4(s), []string{"10.1.2.3", "10.0.0.9"}; !slices.Equal(got, want) {
		t.Errorf("IPv4 %q, want %q", got, want)
	}
	if got, want := findIPv6(s), []string{"fe80::1", "::ffff:"}; !slices.Equal(got, want) {
		t.Errorf("IPv6 %q, want %q", got, want)
	}
}

func FuzzFindIPs(f *testing.F) {
	f.Add("nfs: server 192.168.7.20 not responding fe80::1a2b:3cff:fe4d:5e6f")
	f.Add("::::1.2.3.4...:::")
	f.Fuzz(func(t *testing.T, s string) {
		for _, v := range findIPv4(s) {
			if !isIPv4(v) || !strings.Contains(s, v) {
				t.Errorf("IPv4 %q of %q", v, s)
			}
		}
		for _, v := range findIPv6(s) {
			if !isIPv6(v) || !strings.Contains(s, v) {
				t.Errorf("IPv6 %q of %q", v, s)
			}
		}
		_ = redactHostLines(s)
	})
}
