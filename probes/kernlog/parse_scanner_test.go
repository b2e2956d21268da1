package kernlog

import (
	"bufio"
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// scannerLines is how Parse cut its input before it cut one string: a
// bufio.Scanner of 1 MiB lines.
func scannerLines(b []byte) []string {
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}

func parsedRaw(b []byte) []string {
	var out []string
	for i, l := range Parse(b) {
		if l.Num != i+1 {
			return append(out, "line numbered out of order")
		}
		out = append(out, l.Raw)
	}
	return out
}

// TestParseIsTheScanners: Parse cuts the lines the scanner cut, at the
// edges of its buffer too (a line of just under, just at and past 1 MiB,
// with and without its newline, and lines after it).
func TestParseIsTheScanners(t *testing.T) {
	cases := []string{"", "\n", "\n\n", "a", "a\n", "a\r\n", "a\r", "\r\n", "a\nb", "a\n\nb\n", "[    1.000000] x\r\n[    2.000000] y"}
	for _, n := range []int{1<<20 - 2, 1<<20 - 1, 1 << 20, 1<<20 + 1} {
		long := strings.Repeat("x", n)
		cases = append(cases, long, long+"\n", long+"\nafter\n", "before\n"+long, "before\n"+long+"\nafter", long+"\r\n")
	}
	for _, c := range cases {
		want, got := scannerLines([]byte(c)), parsedRaw([]byte(c))
		if len(want) == 0 && len(got) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("input of %d bytes (%q…): Parse cut %d lines, the scanner %d", len(c), c[:min(len(c), 20)], len(got), len(want))
		}
	}
}

func FuzzParseIsTheScanners(f *testing.F) {
	f.Add([]byte("[    1.000000] a\r\nb\n\nc"))
	f.Fuzz(func(t *testing.T, b []byte) {
		want, got := scannerLines(b), parsedRaw(b)
		if len(want) == 0 && len(got) == 0 {
			return
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: Parse %q, the scanner %q", b, got, want)
		}
	})
}
