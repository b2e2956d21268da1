package hba

import (
	"slices"
	"testing"

	"github.com/diskdoctor/diskdoctor/probes/kernlog"
)

func scan(t *testing.T, s string) []*IOC {
	t.Helper()
	return Scan(&kernlog.Log{Lines: kernlog.Parse([]byte(s))})
}

// Joe Damato's SAS3 controller dying (linux-scsi, 2021-04-06, "Re: [PATCH]
// scsi: mpt3sas: disable ASPM for mpt3sas / SAS3.0"; the mail's line
// breaks joined): non-operational six times, the dead IOC thread, then the
// flushed commands of sdh and sdg.
func TestScanDeadIOC(t *testing.T) {
	cs := scan(t, `[1513141.839140] mpt3sas_cm0: SAS host is non-operational !!!!
[1513142.867056] mpt3sas_cm0: SAS host is non-operational !!!!
[1513146.965053] mpt3sas_cm0: _base_fault_reset_work: Running mpt3sas_dead_ioc thread success !!!!
[1513146.965423] sd 0:0:7:0: [sdh] tag#0 FAILED Result: hostbyte=DID_NO_CONNECT driverbyte=DRIVER_OK
[1513146.973764] print_req_error: I/O error, dev sdh, sector 3614585008
[1513146.978754] sd 0:0:6:0: [sdg] tag#29 FAILED Result: hostbyte=DID_NO_CONNECT driverbyte=DRIVER_OK
[1513146.978756] sd 0:0:6:0: [sdg] tag#9 FAILED Result: hostbyte=DID_NO_CONNECT driverbyte=DRIVER_OK
`)
	if len(cs) != 1 {
		t.Fatalf("controllers %+v", cs)
	}
	c := cs[0]
	if c.Name != "mpt3sas_cm0" || len(c.NonOperational) != 2 || len(c.Dead) != 1 || c.Host != -1 {
		t.Errorf("controller %+v", c)
	}
	if !slices.Equal(c.Lost, []string{"sdh", "sdg"}) {
		t.Errorf("lost %v", c.Lost)
	}
	if _, ok := c.IR(); ok {
		t.Error("no capability line: IR unknown")
	}
	if len(c.Lines()) != 3 {
		t.Errorf("recognised %d lines", len(c.Lines()))
	}
}

// A home NAS's notes ("Notes About LSI 9211-8I SAS card", stored text
// whose repository was not identified): an LSI 9211-8i on IT firmware
// P20.00.07.00 that went non-operational and failed its diag reset; and
// the HP Z820's SAS2308 on IR firmware (nouveau list, 2020-12-02), whose
// "scsi host9" line follows.
func TestScanFirmwareAndHost(t *testing.T) {
	cs := scan(t, `[   13.182856] mpt2sas_cm0: LSISAS2008: FWVersion(20.00.07.00), ChipRevision(0x03), BiosVersion(07.39.02.00)
[   13.182860] mpt2sas_cm0: Protocol=(Initiator,Target), Capabilities=(TLR,EEDP,Snapshot Buffer,Diag Trace Buffer,Task Set Full,NCQ)
[   13.183387] mpt2sas_cm0: sending port enable !!
[  317.001498] mpt2sas_cm0: SAS host is non-operational !!!!
[  322.227673] mpt2sas_cm0: sending diag reset !!
[  322.381517] mpt2sas_cm0: diag reset: FAILED
[    3.714692] mpt2sas_cm1: LSISAS2308: FWVersion(12.00.02.00), ChipRevision(0x03), BiosVersion(07.23.02.00)
[    3.714693] mpt2sas_cm1: Protocol=(Initiator), Capabilities=(Raid,TLR,EEDP,Snapshot Buffer,Diag Trace Buffer,Task Set Full,NCQ)
[    3.714738] scsi host9: Fusion MPT SAS Host
`)
	if len(cs) != 2 {
		t.Fatalf("controllers %+v", cs)
	}
	it, ir := cs[0], cs[1]
	if it.Chip != "LSISAS2008" || it.FWVersion != "20.00.07.00" || it.BIOSVersion != "07.39.02.00" || len(it.DiagResetFailed) != 1 || it.Host != -1 {
		t.Errorf("IT controller %+v", it)
	}
	if v, ok := it.IR(); v || !ok {
		t.Errorf("IT firmware read as IR %v %v", v, ok)
	}
	if v, ok := ir.IR(); !v || !ok || ir.Host != 9 || ir.Chip != "LSISAS2308" {
		t.Errorf("IR controller %+v", ir)
	}
	if !slices.Equal(ir.Protocol, []string{"Initiator"}) {
		t.Errorf("protocol %v", ir.Protocol)
	}
}

// The older name (mpt2sas0) in an older kernel's syslog layout
// ("kernel: : mpt2sas0: …": an LSISAS2008 on IR 08.00.09.00 faulting and
// recovering, from a note quoting /var/log/messages), and a temperature
// event and a burst of link-layer log_info in the driver's formats.
func TestScanFaultStateAndOldNames(t *testing.T) {
	cs := scan(t, `Feb 14 11:25:30 host1.example kernel: : mpt2sas0: fault_state(0x5841)!
Feb 14 11:25:30 host1.example kernel: : mpt2sas0: sending diag reset !!
Feb 14 11:25:31 host1.example kernel: : mpt2sas0: diag reset: SUCCESS
Feb 14 11:25:38 host1.example kernel: : mpt2sas0: LSISAS2008: FWVersion(08.00.09.00), ChipRevision(0x03), BiosVersion(07.15.00.00)
Feb 14 11:25:38 host1.example kernel: : mpt2sas0: Protocol=(Initiator,Target), Capabilities=(Raid,TLR,EEDP,Snapshot Buffer,Diag Trace Buffer,Task Set Full,NCQ)
Feb 14 11:25:38 host1.example kernel: : mpt2sas0: _base_fault_reset_work: hard reset: success
Feb 14 11:30:00 host1.example kernel: mpt3sas_cm2: Temperature Threshold flags a   exceeded for Sensor: 0 !!!
Feb 14 11:30:01 host1.example kernel: mpt3sas_cm2: log_info(0x31110d00): originator(PL), code(0x11), sub_code(0x0d00)
Feb 14 11:30:02 host1.example kernel: mpt3sas_cm2: log_info(0x31110d00): originator(PL), code(0x11), sub_code(0x0d00)
Feb 14 11:30:03 host1.example kernel: mpt3sas_cm2: log_info(0x31110d00): originator(PL), code(0x11), sub_code(0x0d00)
Feb 14 11:30:04 host1.example kernel: mpt3sas_cm2: log_info(0x300301e0): originator(IOP), code(0x03), sub_code(0x01e0)
`)
	if len(cs) != 2 {
		t.Fatalf("controllers %+v", cs)
	}
	old, hot := cs[0], cs[1]
	if old.Name != "mpt2sas0" || len(old.FaultStates) != 1 || len(old.Resets) != 2 || old.FWVersion != "08.00.09.00" {
		t.Errorf("old controller %+v", old)
	}
	if v, _ := old.IR(); !v {
		t.Error("IR firmware not read")
	}
	if len(hot.Temperature) != 1 || hot.LogInfo["PL"] != 3 || hot.LogInfo["IOP"] != 1 || len(hot.LogInfoPL) != 2 {
		t.Errorf("hot controller %+v", hot)
	}
	if Scan(nil) != nil {
		t.Error("nil log")
	}
}

func TestParseRate(t *testing.T) {
	for s, want := range map[string]float64{"6.0 Gbit": 6, "12.0 Gbit\n": 12, "1.5 Gbit": 1.5, "22.5 Gbit": 22.5} {
		if r := ParseRate(s); r == nil || *r != want {
			t.Errorf("%q: %v", s, r)
		}
	}
	for _, s := range []string{"Unknown", "Phy disabled", "Link Rate failed", "Spin-up hold", "", "-1 Gbit", "NaN Gbit"} {
		if r := ParseRate(s); r != nil {
			t.Errorf("%q: %v", s, *r)
		}
	}
}

func TestEndDeviceOf(t *testing.T) {
	port, end := EndDeviceOf("/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/host0/port-0:0/expander-0:0/port-0:0:12/end_device-0:0:12/target0:0:12/0:0:12:0/block/sdm")
	if port != "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/host0/port-0:0/expander-0:0/port-0:0:12" || end != "end_device-0:0:12" {
		t.Errorf("%q %q", port, end)
	}
	if p, e := EndDeviceOf("/sys/devices/pci0000:00/0000:00:17.0/ata3/host2/target2:0:0/2:0:0:0/block/sda"); p != "" || e != "" {
		t.Errorf("SATA disk: %q %q", p, e)
	}
}

func FuzzScan(f *testing.F) {
	f.Add([]byte("[ 1.0] mpt2sas_cm0: Protocol=(Initiator), Capabilities=(Raid)\n[ 1.1] scsi host9: Fusion MPT SAS Host\n"))
	f.Add([]byte("mpt3sas_cm0: Running mpt3sas_dead_ioc thread success\nsd 0:0:7:0: [sdh] x hostbyte=DID_NO_CONNECT\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, c := range Scan(&kernlog.Log{Lines: kernlog.Parse(b)}) {
			if len(c.Lost) > maxLines || len(c.FaultStates) > maxLines {
				t.Fatal("unbounded")
			}
		}
	})
}
