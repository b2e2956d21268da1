package nvmens

import "testing"

// A KIOXIA EXCERIA PRO 2 TB's formats as a public note quotes them
// (`nvme id-ns` text: lbaf 0 ms:0 lbads:9 rp:0x2 in use, lbaf 1 ms:0
// lbads:12 rp:0x1), in nvme-cli's JSON layout; a drive whose 4 KiB format
// performs the same; formats with metadata; and hostile input.
func TestParseAndBest(t *testing.T) {
	n, err := Parse([]byte(`{"flbas":0,"nlbaf":1,"lbafs":[{"ms":0,"ds":9,"rp":2},{"ms":0,"ds":12,"rp":1}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if n.InUse.Bytes() != 512 || n.InUse.RP != 2 {
		t.Errorf("in use %+v", n.InUse)
	}
	if b, better := n.Best(); !better || b.Index != 1 || b.Bytes() != 4096 {
		t.Errorf("best %+v %v", b, better)
	}
	same, err := Parse([]byte(`{"flbas":0,"nlbaf":1,"lbafs":[{"ms":0,"ds":9,"rp":0},{"ms":0,"ds":12,"rp":0}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, better := same.Best(); better {
		t.Error("same rp called better")
	}
	// 16 entries listed, two supported (nlbaf 1); a metadata format with
	// rp 0 is no candidate; flbas 0x10 (bit 4: metadata at the end) with
	// index 1.
	md, err := Parse([]byte(`{"flbas":17,"nlbaf":2,"lbafs":[{"ms":0,"ds":9,"rp":2},{"ms":0,"ds":12,"rp":2},{"ms":8,"ds":12,"rp":0},{"ms":0,"ds":0,"rp":0}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if b, better := md.Best(); better || md.InUse.Index != 1 || b.Index != 1 {
		t.Errorf("metadata %+v %+v %v", md.InUse, b, better)
	}
	for _, bad := range []string{``, `{}`, `{"flbas":5,"lbafs":[{"ms":0,"ds":9,"rp":0}]}`, `{"flbas":0,"lbafs":[{"ms":0,"ds":99,"rp":0}]}`, `[1]`} {
		if _, err := Parse([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"flbas":0,"nlbaf":1,"lbafs":[{"ms":0,"ds":9,"rp":2},{"ms":0,"ds":12,"rp":1}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if n, err := Parse(b); err == nil {
			n.Best()
			if len(n.Formats) > 64 {
				t.Fatal("unbounded")
			}
		}
	})
}
