package checks

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/probes/block"
)

// The queue facts of real captures: a SATA disk on ata_piix without NCQ,
// a 512e disk with one misaligned partition, and healthy counterparts (NCQ
// at depth 32 on ahci; aligned partitions with queue_depth 31).
func TestQueueCheck(t *testing.T) {
	tests := []struct {
		root, dev string
		want      map[string]any
	}{
		{"../fixtures/sata-ata-piix-ide-mode", "sda", map[string]any{
			"queue_sata": true, "queue_ata_driver": "ata_piix", "queue_legacy_ide": true, "queue_depth": 1,
			"queue_ncq_supported": true, "queue_ncq_host_depth": 0, "queue_ncq_drive_depth": 32,
			"queue_ncq_off": true, "queue_ncq_cause": "controller", "queue_misaligned_partitions": nil,
		}},
		{"../fixtures/partition-misaligned-swap", "sda", map[string]any{
			"queue_physical_block_size": 4096, "queue_misaligned_partitions": []string{"sda2"},
			"queue_misaligned_numbers": []string{"2"}, "queue_ncq_supported": nil, "queue_legacy_ide": nil,
			// run/udev/data/b8:2 says ID_FS_TYPE=swap
			"queue_misaligned_swap_only": true,
		}},
		{"../fixtures/healthy-workstation", "sda", map[string]any{
			"queue_ncq_off": false, "queue_ncq_cause": "",
		}},
		{"../fixtures/corpus/ul-fedora27-workstation", "sda", map[string]any{
			"queue_depth": 31, "queue_max_sectors_kb": 1280, "queue_max_hw_sectors_kb": 32767,
			"queue_misaligned_partitions": []string{}, "queue_ncq_off": nil,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.root, func(t *testing.T) {
			o, _ := recordedObservation(t, tt.root, tt.dev, queueCheck)
			for name, want := range tt.want {
				if got, ok := o.Lookup(name); !ok || !reflect.DeepEqual(got, want) {
					t.Errorf("%s = %#v, want %#v", name, got, want)
				}
			}
		})
	}
}

// Swap only when every misaligned partition is swap; unknown when one
// has no recorded type.
func TestSwapOnly(t *testing.T) {
	d := &block.Device{Partitions: []block.Partition{{Name: "sda1", FSType: "ext4"}, {Name: "sda2", FSType: "swap"}, {Name: "sda3"}}}
	for _, c := range []struct {
		names []string
		want  any
	}{
		{[]string{"sda2"}, true},
		{[]string{"sda1", "sda2"}, false},
		{[]string{"sda2", "sda3"}, nil},
	} {
		if got := swapOnly(d, c.names); got != c.want {
			t.Errorf("%v: %v, want %v", c.names, got, c.want)
		}
	}
}

func TestMisaligned(t *testing.T) {
	tests := []struct {
		start, pbs, off uint64
		bad, ok         bool
	}{
		{2048, 4096, 0, false, true},
		{63, 4096, 0, true, true},
		{63, 4096, 3584, false, true}, // a disk whose LBA 63 is aligned (jumpered WD EARS)
		{1917390097, 4096, 0, true, true},
		{63, 512, 0, false, true},
		{8, 3000, 0, false, false},
		{8, 4096, 4096, false, false},
		{1 << 62, 4096, 0, false, false},
	}
	for _, tt := range tests {
		bad, ok := block.Misaligned(tt.start, tt.pbs, tt.off)
		if bad != tt.bad || ok != tt.ok {
			t.Errorf("Misaligned(%d, %d, %d) = %v, %v", tt.start, tt.pbs, tt.off, bad, ok)
		}
	}
}

func FuzzMisaligned(f *testing.F) {
	f.Add(uint64(63), uint64(4096), uint64(0))
	f.Fuzz(func(t *testing.T, start, pbs, off uint64) {
		if bad, ok := block.Misaligned(start, pbs, off); !ok && bad {
			t.Fatal("misaligned without knowing")
		}
	})
}

// recordedObservation runs one check on a recorded machine and returns its
// observation of dev, with the env (its skipped entries).
func recordedObservation(t *testing.T, root, dev string, run func(context.Context, *Env) []*Observation) (*Observation, *Env) {
	t.Helper()
	h, err := machine.Recorded(root)
	if err != nil {
		t.Fatal(err)
	}
	env := newEnv(h, Options{ProbeTimeout: 5 * time.Second})
	for _, x := range run(t.Context(), env) {
		if x.Subject == dev {
			return x, env
		}
	}
	t.Fatalf("no observation of %s", dev)
	return nil, nil
}
