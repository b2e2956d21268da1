package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// yamlManifest is parseManifest's yaml.v3 decode alone.
func yamlManifest(b []byte) ([]Entry, error) {
	var entries []Entry
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&entries); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return entries, nil
}

// synthManifest is the manifest cmd/diskdoctor's synthetic machine records
// (writeSyntheticMachine, which probes cannot import): per disk a SMART
// reading and, by protocol, nvme get-feature or hdparm -W; the ZFS pool's
// commands last.
func synthManifest(disks int) []byte {
	var b strings.Builder
	b.WriteString("# synthetic recorded machine: commands replayed by exact argv\n")
	b.WriteString("- argv: [dmesg]\n  stdout: dmesg.txt\n")
	sata, nvme := 0, 0
	for i := range disks {
		if i%5 == 1 || i%5 == 3 {
			name := fmt.Sprintf("nvme%dn1", nvme)
			nvme++
			fmt.Fprintf(&b, "- argv: [smartctl, -x, -n, standby, -j, /dev/%s]\n  stdout: smartctl-nvme.json\n", name)
			fmt.Fprintf(&b, "- argv: [nvme, get-feature, -f, \"0x06\", /dev/%s]\n  stdout: nvme-get-feature-06-on.txt\n", name)
			continue
		}
		name := "sd"
		for n := sata; ; n = n/26 - 1 {
			name = name[:2] + string(rune('a'+n%26)) + name[2:]
			if n < 26 {
				break
			}
		}
		sata++
		fmt.Fprintf(&b, "- argv: [smartctl, -x, -n, standby, -j, /dev/%s]\n  stdout: smartctl-ata.json\n", name)
		fmt.Fprintf(&b, "- argv: [hdparm, -W, /dev/%s]\n  stdout: hdparm-W-%s.txt\n", name, name)
	}
	b.WriteString("- argv: [zpool, get, -H, -o, \"name,value\", autotrim]\n  stdout: zpool-get-autotrim.txt\n")
	b.WriteString("- argv: [zpool, status, -P, -t]\n  stdout: zpool-status-P-t.txt\n- argv: [zpool, iostat, -H, -p, -P, -v, -l, -y, \"1\", \"1\"]\n  stdout: zpool-iostat.txt\n- argv: [zfs, get, -H, -p, -t, \"filesystem,volume\", -o, \"name,property,value\", \"compression,sync,logbias,recordsize\"]\n  stdout: zfs-get.txt\n")
	return []byte(b.String())
}

func fixtureManifests(t testing.TB) map[string][]byte {
	paths, err := filepath.Glob("../../fixtures/*/commands/manifest.yaml")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixture manifests: %v", err)
	}
	ms := map[string][]byte{"synthetic 1,000 disks": synthManifest(1000)}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		ms[p] = b
	}
	return ms
}

// Every recorded manifest there is takes the fast path, and reads as
// yaml.v3 reads it.
func TestManifestFastPathTaken(t *testing.T) {
	for name, b := range fixtureManifests(t) {
		got, ok := fastManifest(b)
		if !ok {
			t.Errorf("%s: not read by the fast path", name)
			continue
		}
		want, err := yamlManifest(b)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: fast path differs from yaml.v3 (%v)", name, err)
		}
		if _, err := parse(b); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// What the fast path is not sure of goes to yaml.v3, which decodes it as
// before or refuses it.
func TestManifestFastPathDeclines(t *testing.T) {
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
		"- argv: [x]\n  stdout: a\n  stdout: b\n":                  nil,
		"- argv: [x]\n  stdot: a\n":                                nil,
		"- argv: []\n  stdout: a\n":                                nil,
		"- stdout: a\n":                                            nil,
		"- argv: [x]\n\tstdout: a\n":                               nil,
	} {
		if _, ok := fastManifest([]byte(in)); ok {
			t.Errorf("%q: read by the fast path", in)
		}
		got, err := parse([]byte(in))
		if want == nil {
			if !errors.Is(err, ErrParse) {
				t.Errorf("%q: %v, want ErrParse", in, err)
			}
		} else if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%q: %#v %v, want %#v", in, got, err, want)
		}
	}
}

// The fast path reads a word where a manifest has one (an argv item, an
// output file, an exit status, a flag), bare or quoted, as yaml.v3 does:
// for the words commands are made of, those YAML reads as something else,
// and random ones.
func TestManifestFastPathWords(t *testing.T) {
	words := []string{
		"smartctl", "-x", "--enghelp", "--size=1m", "/dev/sda", "0x06", "001-dmesg.out", "name,value", "1", "-1", "0", "-0", "010", "+1", "1_0",
		"9223372036854775807", "9223372036854775808", "-9223372036854775808", "1e3", "0o7", "0b1", ".5", "true", "True", "false", "FALSE",
		"", " ", "a b", "yes", "Yes", "y", "N", "on", "Off", "null", "Null", "~", "-", "--", "---", "...", "-.inf", ".nan", "=", "<<",
		"2001-12-14", "2001-12-14t21", "1-e", "12-34", "a:b", "a: b", "#x", "x #y", "[x]", "{x}", "'q'", "\"", "\\", "\t", "\r", "é",
		"!t", "&a", "*a", "%x", "@x", "`x`", "|x", ">x", "?x", "x?", "a=b", "a,b", "a, b", ", ", "]", "x]", "\"x", "x\"",
	}
	alphabet := []byte("aZ09/-_.=:, #'\"\\\t!&*?[]{}e~")
	rng := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		b := make([]byte, 1+rng.IntN(8))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		words = append(words, string(b))
	}
	fast := 0
	for _, w := range words {
		for _, v := range []string{w, `"` + w + `"`} {
			for _, m := range []string{
				"- argv: [x, " + v + ", y]\n  stdout: a\n",
				"- argv: [" + v + "]\n  missing: true\n",
				"- argv: [x]\n  stdout: " + v + "\n  stderr: " + v + "\n",
				"- argv: [x]\n  stdout: a\n  exit: " + v + "\n",
				"- argv: [x]\n  timeout: " + v + "\n  missing: " + v + "\n",
			} {
				got, ok := fastManifest([]byte(m))
				if !ok {
					continue
				}
				fast++
				if want, err := yamlManifest([]byte(m)); err != nil || !reflect.DeepEqual(got, want) {
					t.Errorf("%q: fast path %#v, yaml.v3 %#v (%v)", m, got, want, err)
				}
			}
		}
	}
	if fast < 1000 {
		t.Errorf("only %d manifests took the fast path: it is not tested", fast)
	}
}

func FuzzManifestFastPathIsYAMLs(f *testing.F) {
	for _, b := range fixtureManifests(f) {
		if len(b) > 64<<10 {
			// The fuzzer stalls on the 155 KB machine
			// (TestManifestFastPathTaken compares it whole): a
			// small one of the same generator.
			b = synthManifest(25)
		}
		f.Add(b)
	}
	for _, s := range []string{
		"- argv: [nvme, get-feature, -f, \"0x06\", /dev/nvme0n1]\n  timeout: true\n",
		"- argv: [x, 0x06]\n  stdout: a\n",
		"- argv: [x, null]\n  missing: true\n",
		"- argv: [x, ~]\n  missing: true\n",
		"- argv: [x, yes, No, on]\n  missing: true\n",
		"- argv: [x, \"a b\", \"\", \"#\", \"a, b\", \"[x]\"]\n  missing: true\n",
		"- argv: [-, --, --x, -1, -.inf]\n  missing: true\n",
		"- argv: [- x]\n  missing: true\n",
		"- argv: [key: value]\n  missing: true\n",
		"- argv: [x, a:b]\n  missing: true\n",
		"- argv: [x]\n  stdout: a\n  stdout: a\n",
		"- argv: [x]\n  argv: [y]\n  stdout: a\n",
		"- argv: []\n  missing: true\n",
		"- stdout: a\n",
		"- argv: [x] # c\n  stdout: a # c\n",
		"# c\n\n- argv: [x]\n# c\n\n  stdout: a\n  exit: -1\n  stderr: b\n  timeout: false\n",
		"- argv: [x]\n  exit: 9223372036854775808\n",
		"- argv: [x]\n  exit: 010\n",
		"- argv: [x]\n  exit: -0\n",
		"- argv: [x]\n  timeout: True\n",
		"- argv: [x]\n  stdout: 001-dmesg.out\n- argv: [2001-12-14, 1-e, 1_0-a, 0x-1]\n  missing: true\n",
		"- argv: [--output-format=json, a=b, =]\n  missing: true\n",
		"[]\n",
		"",
		"- argv: [x]\n  stdout: a",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, ok := fastManifest(b)
		if !ok {
			return
		}
		want, err := yamlManifest(b)
		if err != nil {
			t.Fatalf("fast path read %q, yaml.v3 refuses it: %v", b, err)
		}
		// parseManifest's callers range over the entries and their argv:
		// nil and empty are one to them, and the fast path has neither.
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: fast path %#v, yaml.v3 %#v", b, got, want)
		}
	})
}

func BenchmarkParseManifest(b *testing.B) {
	m := synthManifest(1000)
	b.Run("fast", func(b *testing.B) {
		b.SetBytes(int64(len(m)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := parse(m); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("yaml.v3", func(b *testing.B) {
		b.SetBytes(int64(len(m)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := yamlManifest(m); err != nil {
				b.Fatal(err)
			}
		}
	})
}
