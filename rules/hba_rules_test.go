package rules

import (
	"testing"

	"github.com/diskdoctor/diskdoctor/checks"
)

// hbaSubject is an observation of the HBA's facts on the controller (kind
// KindController) or on a disk behind it.
func hbaSubject(kind, name string, facts map[string]any) *checks.Observation {
	o := device(name, nil)
	if kind == checks.KindController {
		o = checks.NewObservation("test", checks.KindController, name)
	}
	base := map[string]any{"hba_name": "mpt2sas_cm0", "hba_chip": "LSISAS2008", "hba_fw_version": "20.00.07.00", "hba_ir": false,
		"hba_capabilities": "TLR,EEDP", "hba_disks": []string{"sda"}, "hba_array_disks": []string{}, "hba_lost_disks": []string{},
		"hba_dead": false, "hba_non_operational": 0, "hba_reset_failed": 0, "hba_fault_states": 0, "hba_resets": 0,
		"hba_temperature_alarms": 0, "hba_loginfo_pl": 0, "hba_fault_summary": "", "hba_disk_in_array": nil}
	for k, v := range merged(base, facts) {
		o.Set(k, v, checks.Evidence{Source: "dmesg line 1", Value: "x"})
	}
	return o
}

// The HBA rules on facts built in the test: the states no public capture
// shows with the topology around them (IR firmware under ZFS, firmware
// P20.00.00.00, a firmware fault that recovered, a temperature alarm, a
// link-layer log_info burst), on the controller and on a disk behind it.
func TestHBARules(t *testing.T) {
	tests := []struct {
		name, rule, kind string
		facts            map[string]any
		want             string
	}{
		{"IT P20.00.07.00 under ZFS", "hba-firmware-unsuited", checks.KindController, map[string]any{"hba_array_disks": []string{"sda"}}, ""},
		{"IR, no ZFS or md", "hba-firmware-unsuited", checks.KindController, map[string]any{"hba_ir": true}, ""},
		{"IR under ZFS, the controller", "hba-firmware-unsuited", checks.KindController, map[string]any{"hba_ir": true, "hba_array_disks": []string{"sda"}}, Warning},
		{"IR under ZFS, a member", "hba-firmware-unsuited", checks.KindDevice, map[string]any{"hba_ir": true, "hba_array_disks": []string{"sda"}, "hba_disk_in_array": true}, Warning},
		{"IR under ZFS, the boot disk beside it", "hba-firmware-unsuited", checks.KindDevice, map[string]any{"hba_ir": true, "hba_array_disks": []string{"sdb"}, "hba_disk_in_array": false}, ""},
		{"IR unknown", "hba-firmware-unsuited", checks.KindController, map[string]any{"hba_ir": nil, "hba_fw_version": nil, "hba_chip": nil, "hba_array_disks": []string{"sda"}}, ""},
		{"SAS2308 on P20.00.00.00", "hba-firmware-unsuited", checks.KindController, map[string]any{"hba_chip": "LSISAS2308", "hba_fw_version": "20.00.00.00"}, Warning},
		{"SAS3008 on 20.00.00.00", "hba-firmware-unsuited", checks.KindController, map[string]any{"hba_chip": "SAS3008", "hba_fw_version": "20.00.00.00"}, ""},

		{"healthy", "hba-fault", checks.KindController, nil, ""},
		{"a diag reset at load", "hba-fault", checks.KindController, map[string]any{"hba_resets": 1}, ""},
		{"dead", "hba-fault", checks.KindController, map[string]any{"hba_dead": true, "hba_non_operational": 6, "hba_lost_disks": []string{"sdh"}}, Critical},
		{"dead, the disk it lost", "hba-fault", checks.KindDevice, map[string]any{"hba_dead": true, "hba_non_operational": 6}, Critical},
		{"fault state, recovered", "hba-fault", checks.KindController, map[string]any{"hba_fault_states": 4, "hba_resets": 4}, Critical},
		{"temperature", "hba-fault", checks.KindController, map[string]any{"hba_temperature_alarms": 1}, Critical},
		{"log_info burst only", "hba-fault", checks.KindController, map[string]any{"hba_loginfo_pl": 40}, Warning},
		{"a few log_info", "hba-fault", checks.KindController, map[string]any{"hba_loginfo_pl": 3}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantSeverity(t, "server", "auto", hbaSubject(tt.kind, "sda", tt.facts), tt.rule, tt.want)
		})
	}
}

// sas-link-slow on facts as the sas-link check sets them.
func TestSASLinkRule(t *testing.T) {
	tests := []struct {
		name  string
		facts map[string]any
		want  string
	}{
		{"SAS at 6 of 12, own maximum unknown", map[string]any{"sas_link_gbps": 6.0, "sas_link_max_gbps": 12.0, "sas_link_cap_gbps": nil, "sas_protocol": "ssp"}, ""},
		{"SAS at 3 of 12", map[string]any{"sas_link_gbps": 3.0, "sas_link_max_gbps": 12.0, "sas_link_cap_gbps": 6.0, "sas_protocol": "ssp"}, Warning},
		{"SATA at 6 of 12", map[string]any{"sas_link_gbps": 6.0, "sas_link_max_gbps": 12.0, "sas_link_cap_gbps": 6.0, "sas_protocol": "sata"}, ""},
		{"SATA at 3 of 6", map[string]any{"sas_link_gbps": 3.0, "sas_link_max_gbps": 6.0, "sas_link_cap_gbps": 6.0, "sas_protocol": "sata", "sas_phy_errors": int64(1523), "sas_phy_error_summary": "phy-0:2 invalid_dword_count 1523"}, Warning},
		{"rate unknown", map[string]any{"sas_link_gbps": nil, "sas_link_max_gbps": 6.0, "sas_link_cap_gbps": nil}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := merged(map[string]any{"transport": "sas", "sas_end_device": "end_device-0:2", "sas_phys": "phy-0:2", "sas_phy_errors": int64(0), "sas_phy_error_summary": ""}, tt.facts)
			wantSeverity(t, "server", "auto", device("sdc", f), "sas-link-slow", tt.want)
		})
	}
}
