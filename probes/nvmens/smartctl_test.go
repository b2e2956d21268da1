package nvmens

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/diskdoctor/diskdoctor/machine"
)

// smartctl 7.5's JSON of a TEAMGROUP MP33 (testdata: the capture of
// jwidess/OPNsense-node-exporter-smartctl-collect, smartctl-outputs.md,
// trimmed to the identity, namespace and health objects): one format, 512
// B with rp 0, in use. A namespace with several formats is the same
// array with more entries (nvmeprint.cpp prints every format 0..NLBAF);
// those below are built from it.
func TestParseSmartctl(t *testing.T) {
	b, err := os.ReadFile("testdata/smartctl-7.5-teamgroup-mp33.json")
	if err != nil {
		t.Fatal(err)
	}
	ns, err := ParseSmartctl(b, 1)
	if err != nil {
		t.Fatal(err)
	}
	if ns.InUse != (LBAF{Index: 0, DS: 9}) || len(ns.Formats) != 1 {
		t.Errorf("%+v", ns)
	}
	if _, better := ns.Best(); better {
		t.Error("one format: nothing better")
	}
	if _, err := ParseSmartctl(b, 2); !errors.Is(err, machine.ErrNotAvailable) {
		t.Errorf("namespace 2: %v, want ErrNotAvailable", err)
	}

	two := strings.Replace(string(b), `"relative_performance": 0
        }
      ]`, `"relative_performance": 2
        },
        {
          "formatted": false,
          "data_bytes": 4096,
          "metadata_bytes": 0,
          "relative_performance": 1
        }
      ]`, 1)
	ns, err = ParseSmartctl([]byte(two), 1)
	if err != nil {
		t.Fatal(err)
	}
	if best, better := ns.Best(); !better || best != (LBAF{Index: 1, DS: 12, RP: 1}) {
		t.Errorf("512 rp 2 in use, 4096 rp 1: best %+v, better %v", best, better)
	}
	same := strings.Replace(two, `"relative_performance": 2`, `"relative_performance": 1`, 1)
	if ns, err = ParseSmartctl([]byte(same), 1); err != nil {
		t.Fatal(err)
	}
	if _, better := ns.Best(); better {
		t.Error("4096 with the same rp as 512 in use: not better")
	}

	for _, bad := range []string{"", "{", `{"nvme_namespaces":[{"id":1,"lba_formats":[{"formatted":false,"data_bytes":512,"metadata_bytes":0,"relative_performance":0}]}]}`} {
		if _, err := ParseSmartctl([]byte(bad), 1); !errors.Is(err, machine.ErrParse) {
			t.Errorf("%q: %v, want ErrParse", bad, err)
		}
	}
	for _, old := range []string{`{"smartctl":{}}`, `{"nvme_namespaces":[{"id":1}]}`} {
		if _, err := ParseSmartctl([]byte(old), 1); !errors.Is(err, machine.ErrNotAvailable) {
			t.Errorf("%q: %v, want ErrNotAvailable", old, err)
		}
	}
	for name, want := range map[string]int{"nvme0n1": 1, "nvme1c1n2": 2, "sda": 0, "nvme0": 0} {
		if got := NSID(name); got != want {
			t.Errorf("NSID(%q) = %d, want %d", name, got, want)
		}
	}
}

func FuzzParseSmartctl(f *testing.F) {
	f.Add([]byte(`{"nvme_namespaces":[{"id":1,"lba_formats":[{"formatted":true,"data_bytes":512,"metadata_bytes":0,"relative_performance":2},{"formatted":false,"data_bytes":4096,"metadata_bytes":0,"relative_performance":1}]}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if n, err := ParseSmartctl(b, 1); err == nil {
			n.Best()
			if len(n.Formats) > 64 || n.InUse.DS < 9 {
				t.Fatal("unbounded or no format in use")
			}
		}
	})
}
