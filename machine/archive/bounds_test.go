package archive

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// paxRecord is one "length key=value\n" record of a PAX extended header,
// its length counting itself.
func paxRecord(k, v string) string {
	n := len(k) + len(v) + 3
	for {
		s := fmt.Sprintf("%d %s=%s\n", n, k, v)
		if len(s) == n {
			return s
		}
		n = len(s)
	}
}

// sparseArchive is count PAX 1.0 sparse members of size bytes each (GNU
// tar's --sparse --format=pax): a map of one byte at the end, so that
// each is 1.5 KB of tar and size bytes unpacked. archive/tar's writer
// cannot write them (it refuses GNU.sparse records): written by hand.
func sparseArchive(count int, size int64) []byte {
	var tr bytes.Buffer
	tr.Write(rawHeader("sys/", tar.TypeDir, 0))
	for i := range count {
		name := fmt.Sprintf("sys/f%d", i)
		recs := paxRecord("GNU.sparse.major", "1") + paxRecord("GNU.sparse.minor", "0") +
			paxRecord("GNU.sparse.name", name) + paxRecord("GNU.sparse.realsize", fmt.Sprint(size))
		tr.Write(rawHeader("PaxHeaders/"+name, tar.TypeXHeader, int64(len(recs))))
		tr.WriteString(recs)
		tr.Write(pad(int64(len(recs))))
		sparseMap := fmt.Sprintf("1\n%d\n1\n", size-1)
		tr.Write(rawHeader("GNUSparseFile.0/"+name, tar.TypeReg, 512+1))
		tr.WriteString(sparseMap)
		tr.Write(pad(int64(len(sparseMap))))
		tr.WriteString("x")
		tr.Write(pad(1))
	}
	tr.Write(make([]byte, 1024))
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(tr.Bytes())
	zw.Close()
	return gz.Bytes()
}

// Issue #26: 8 PAX-sparse members of 64 MiB each (22 KB of archive) made
// the reader write 448 MiB of zeros before the total cap refused it, and 7
// were accepted: the bomb guard counts tar bytes, not what a sparse
// member expands to. A sparse member is refused before anything of it is
// written.
func TestReadArchiveRefusesSparse(t *testing.T) {
	for _, n := range []int{1, 7, 8} {
		b := sparseArchive(n, MaxMemberBytes)
		if len(b) > 64<<10 {
			t.Fatalf("%d sparse members take %d bytes of archive", n, len(b))
		}
		dst, err := unpackInto(t, b, Limits{})
		var ae *Error
		if !errors.As(err, &ae) || ae.Member != "sys/f0" || !strings.Contains(ae.Reason, "sparse") {
			t.Errorf("%d sparse members: %v, want sys/f0 refused as sparse", n, err)
		}
		var written int64
		filepath.Walk(dst, func(_ string, fi os.FileInfo, err error) error {
			if err == nil && fi.Mode().IsRegular() {
				written += fi.Size()
			}
			return nil
		})
		if written != 0 {
			t.Errorf("%d sparse members: %d bytes written before the refusal", n, written)
		}
	}
}

// Issue #26: 2,000 nested directories with a file in each (198 KB of
// archive) took 20 s to open: every member's parents are resolved one
// component at a time, depth times members. Names are bounded to
// MaxDepth components, so the archive is refused at once; an archive at
// the bound opens.
func TestReadArchiveDepthBounded(t *testing.T) {
	var ms []member
	p := "sys"
	ms = append(ms, dir(p))
	for i := range 2000 {
		p += "/d"
		ms = append(ms, dir(p), file(p+"/f", fmt.Sprint(i)))
	}
	b := buildArchive(t, ms...)
	start := time.Now()
	_, err := unpackInto(t, b, Limits{})
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("took %v", took)
	}
	var ae *Error
	if !errors.As(err, &ae) || !strings.Contains(ae.Reason, fmt.Sprintf("more than %d directories deep", MaxDepth)) {
		t.Fatalf("2,000 deep: %v, want refused for depth", err)
	}
	// Every member of at most MaxDepth components: accepted.
	var at []member
	for _, m := range ms {
		if Depth(m.name) <= MaxDepth {
			at = append(at, m)
		}
	}
	if _, err := unpackInto(t, buildArchive(t, at...), Limits{}); err != nil {
		t.Errorf("%d deep: %v", MaxDepth, err)
	}
}

func TestDepth(t *testing.T) {
	for name, want := range map[string]int{"a": 1, "a/b/": 2, "./a//b": 2, "": 0} {
		if got := Depth(name); got != want {
			t.Errorf("Depth(%q) = %d, want %d", name, got, want)
		}
	}
}
