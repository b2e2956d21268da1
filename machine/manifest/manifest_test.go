package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseManifest(t *testing.T) {
	good := "- argv: [hdparm, -W, /dev/sda]\n  stdout: a.txt\n- argv: [zpool, status]\n  timeout: true\n- argv: [smartctl]\n  missing: true\n"
	if es, err := parse([]byte(good)); err != nil || len(es) != 3 {
		t.Fatalf("good manifest: %v %v", es, err)
	}
	for name, bad := range map[string]string{
		"no argv":        "- stdout: a.txt\n",
		"empty argv":     "- argv: []\n  stdout: a\n",
		"two outcomes":   "- argv: [x]\n  stdout: a\n  timeout: true\n",
		"no outcome":     "- argv: [x]\n",
		"escape":         "- argv: [x]\n  stdout: ../../etc/passwd\n",
		"absolute":       "- argv: [x]\n  stdout: /etc/passwd\n",
		"not a list":     "argv: [x]\n",
		"garbage":        "\x00\x01: [",
		"repeated key":   "- argv: [x]\n  stdout: a\n  stdout: b\n",
		"unknown field":  "- argv: [x]\n  stdot: a\n",
		"tab indent":     "- argv: [x]\n\tstdout: a\n",
		"billion laughs": "- argv: &a [x, x, x, x, x, x, x, x]\n  missing: true\n- argv: &b [*a, *a, *a, *a, *a, *a, *a, *a]\n  missing: true\n- argv: &c [*b, *b, *b, *b, *b, *b, *b, *b]\n  missing: true\n- argv: &d [*c, *c, *c, *c, *c, *c, *c, *c]\n  missing: true\n- argv: [*d, *d, *d, *d, *d, *d, *d, *d]\n  missing: true\n",
	} {
		if _, err := parse([]byte(bad)); !errors.Is(err, ErrParse) {
			t.Errorf("%s: want ErrParse, got %v", name, err)
		}
	}
}

// A manifest reads as YAML: quoted words, YAML's booleans and numbers,
// block sequences, comments, a document marker, CRLF and a small alias.
func TestParseManifestIsYAML(t *testing.T) {
	for in, want := range map[string][]Entry{
		// yaml.v3 drops a null from a []string.
		"- argv: [x, null, ~, yes, 010]\n  stdout: a\n":            {{Argv: []string{"x", "yes", "010"}, Stdout: "a"}},
		"- argv: [x, 'a b']\n  stdout: a\n":                        {{Argv: []string{"x", "a b"}, Stdout: "a"}},
		"- argv: [x, \"a\\tb\"]\n  stdout: a\n":                    {{Argv: []string{"x", "a\tb"}, Stdout: "a"}},
		"- argv: [x]\n  stdout: a # the output\n":                  {{Argv: []string{"x"}, Stdout: "a"}},
		"- argv: [x]\n  timeout: yes\n":                            {{Argv: []string{"x"}, Timeout: true}},
		"- argv: [x]\n  stdout: a\n  exit: 0x10\n":                 {{Argv: []string{"x"}, Stdout: "a", Exit: 16}},
		"- argv:\n    - x\n  stdout: a\n":                          {{Argv: []string{"x"}, Stdout: "a"}},
		"---\n- argv: [x]\n  stdout: a\n":                          {{Argv: []string{"x"}, Stdout: "a"}},
		"- argv: [x]\r\n  stdout: a\r\n":                           {{Argv: []string{"x"}, Stdout: "a"}},
		"- argv: [x]\n  stdout: &o a\n- argv: [y]\n  stdout: *o\n": {{Argv: []string{"x"}, Stdout: "a"}, {Argv: []string{"y"}, Stdout: "a"}},
		"[]\n": {},
		"":     nil,
	} {
		got, err := parse([]byte(in))
		if err != nil || len(got) != len(want) || len(want) > 0 && !reflect.DeepEqual(got, want) {
			t.Errorf("%q: %#v %v, want %#v", in, got, err, want)
		}
	}
}

// Every recorded manifest reads, and what Write writes reads back as the
// same entries, for the words commands are made of and those YAML reads
// as something else unless quoted.
func TestManifestRoundTrip(t *testing.T) {
	paths, err := filepath.Glob("../../fixtures/*/commands/manifest.yaml")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixture manifests: %v", err)
	}
	ms := map[string][]byte{"synthetic": synthManifest(100)}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		ms[p] = b
	}
	words := []string{
		"smartctl", "-x", "/dev/sda", "0x06", "1", "name,property,value", "", " ", "a b", "yes", "No", "null", "~",
		"-", "--", "-1", ".inf", "1e3", "2001-12-14", "a: b", "#x", "x #y", "[x]", "{x}", "'q'", `"q"`, "a\nb", "\t",
		"é", "sd\x00", "<<", "!tag", "&a", "*a", "%x", "@x", "|x", ">x", "?x", strings.Repeat("/dev/sdzz", 20),
	}
	var entries []Entry
	for i, w := range words {
		entries = append(entries, Entry{Argv: []string{"cmd", w, "-x"}, Stdout: fmt.Sprintf("%03d-cmd.out", i), Stderr: "e", Exit: i % 3})
	}
	entries = append(entries, Entry{Argv: []string{"zpool", "status"}, Timeout: true}, Entry{Argv: []string{"hdparm"}, Missing: true})
	var buf bytes.Buffer
	if err := Write(&buf, entries); err != nil {
		t.Fatal(err)
	}
	ms["written"] = buf.Bytes()
	for name, b := range ms {
		got, err := parse(b)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if name == "written" && !reflect.DeepEqual(got, entries) {
			t.Errorf("Write and Parse: %#v, want %#v", got, entries)
		}
	}
	buf.Reset()
	if err := Write(&buf, nil); err != nil || buf.String() != "[]\n" {
		t.Errorf("an empty manifest: %q, %v", buf.String(), err)
	}
}

// synthManifest is the manifest cmd/diskdoctor's synthetic machine records
// (writeSyntheticMachine, which this package cannot import): per disk a
// SMART reading and, by protocol, nvme get-feature or hdparm -W; the ZFS
// pool's commands last.
func synthManifest(disks int) []byte {
	var b strings.Builder
	b.WriteString("# synthetic recorded machine: commands replayed by exact argv\n")
	b.WriteString("- argv: [dmesg]\n  stdout: dmesg.txt\n")
	for i := range disks {
		if i%5 == 1 || i%5 == 3 {
			fmt.Fprintf(&b, "- argv: [smartctl, -x, -n, standby, -j, /dev/nvme%dn1]\n  stdout: smartctl-nvme.json\n", i)
			fmt.Fprintf(&b, "- argv: [nvme, get-feature, -f, \"0x06\", /dev/nvme%dn1]\n  stdout: nvme-get-feature-06-on.txt\n", i)
			continue
		}
		fmt.Fprintf(&b, "- argv: [smartctl, -x, -n, standby, -j, /dev/sd%d]\n  stdout: smartctl-ata.json\n", i)
		fmt.Fprintf(&b, "- argv: [hdparm, -W, /dev/sd%d]\n  stdout: hdparm-W-sd%d.txt\n", i, i)
	}
	b.WriteString("- argv: [zpool, get, -H, -o, \"name,value\", autotrim]\n  stdout: zpool-get-autotrim.txt\n")
	b.WriteString("- argv: [zfs, get, -H, -p, -t, \"filesystem,volume\", -o, \"name,property,value\", \"compression,sync,logbias,recordsize\"]\n  stdout: zfs-get.txt\n")
	return []byte(b.String())
}

// The fuzz targets run briefly in CI on their seed corpus; none may panic.

func FuzzParseManifest(f *testing.F) {
	f.Add([]byte("- argv: [dmesg]\n  stdout: dmesg.txt\n"))
	f.Add([]byte("- argv: [zpool, status]\n  timeout: true\n"))
	f.Add([]byte("- argv: [x]\n  stdout: &o a\n- argv: [y]\n  stdout: *o\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = parse(b)
	})
}

func BenchmarkParseManifest(b *testing.B) {
	m := synthManifest(1000)
	b.SetBytes(int64(len(m)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parse(m); err != nil {
			b.Fatal(err)
		}
	}
}
