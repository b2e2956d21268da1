package rules

import "testing"

// virtual-disk-no-discard: a guest's disk that holds something and takes
// no discard, whatever its rotational flag, under a hypervisor with a
// known setting; not a disk that takes discards, an empty one, a cloud's
// volume (no setting) or a physical disk. trim-unsupported leaves such a
// disk to it.
func TestVirtualDiskNoDiscard(t *testing.T) {
	qemu := map[string]any{"transport": "virtio", "virtual_disk": true, "hypervisor": "QEMU/KVM", "rotational": true,
		"trim_supported": false, "in_use": true, "filesystems": []string{"ext4"},
		"hypervisor_discard_setting": "QEMU's -drive discard=unmap"}
	with := func(extra map[string]any) map[string]any { return merged(qemu, extra) }
	for _, tt := range []struct {
		name string
		dev  map[string]any
		want string
	}{
		{"virtio, rotational, ext4", qemu, Info},
		{"virtio, non-rotational", with(map[string]any{"rotational": false}), Info},
		{"takes discards", with(map[string]any{"trim_supported": true}), ""},
		{"discard unread", with(map[string]any{"trim_supported": nil}), ""},
		{"holds nothing", with(map[string]any{"in_use": false}), ""},
		{"a cloud's volume: no setting", with(map[string]any{"hypervisor": "Amazon EBS", "hypervisor_discard_setting": nil}), ""},
		{"physical disk", with(map[string]any{"virtual_disk": false, "hypervisor": "", "hypervisor_discard_setting": nil}), ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cloudSeverity(t, nil, device("vda", tt.dev), "virtual-disk-no-discard", tt.want)
		})
	}
	t.Run("not also trim-unsupported", func(t *testing.T) {
		cloudSeverity(t, nil, device("vda", with(map[string]any{"rotational": false})), "trim-unsupported", "")
	})
	t.Run("trim-unsupported stays for a cloud volume", func(t *testing.T) {
		cloudSeverity(t, nil, device("vda", with(map[string]any{"rotational": false, "hypervisor_discard_setting": nil})), "trim-unsupported", Warning)
	})
}
