package manifest

import (
	"bytes"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/diskdoctor/diskdoctor/internal/fixturetest"
)

// writeManifest writes what yaml.v3 writes: for the words commands are made
// of, for every scalar YAML reads as something else or must quote, and for
// random ones.
func TestWriteManifestIsYAMLs(t *testing.T) {
	words := []string{
		"smartctl", "-x", "-n", "standby", "-j", "/dev/sda", "/dev/nvme0n1", "0x06", "1", "filesystem,volume", "name,property,value",
		"", " ", "a b", "yes", "Yes", "YES", "yEs", "no", "No", "y", "Y", "n", "N", "on", "ON", "off", "true", "False", "null", "NULL", "~",
		"-", "--", "--x", "-1", "-x-", "-.inf", ".inf", ".nan", "1e3", "1_000", "0b101", "0o17", "1:20", "2001-12-14", "2001-12-14t21:59:43.10-05:00",
		"a:b", "a: b", "#x", "x#", "x #y", "[x]", "{x}", "'q'", `"q"`, "\n", "a\nb", "\t", "é", "sd\x00", "=", "<<", "!tag", "&a", "*a", "%x",
		"@x", "`x`", "|x", ">x", "?x", "x?", "/", "//", "/-", "a/b:c", "a.b", "001-dmesg.out", "001-.out", "001-1.out", "12-34", "0x-1",
		"1-e", "1-.inf", strings.Repeat("long", 20), strings.Repeat("/dev/sdzz", 8), "-" + strings.Repeat("x", 70),
		"004-zfs_get_-H_-p_-t_filesystem-volume_-o_name-property-value_compression-sync-l", strings.Repeat("/a", 200),
	}
	alphabet := []byte("aZ09/-_.:, #'\"\\\n!&*?[]{}e~")
	rng := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		b := make([]byte, 1+rng.IntN(8))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		words = append(words, string(b))
	}
	var manifests [][]Entry
	for i := 0; i < len(words); i += 7 {
		var ms []Entry
		for j := i; j < min(i+7, len(words)); j++ {
			m := Entry{Argv: []string{"cmd", words[j], words[(j*31)%len(words)], "-x", words[(j*17)%len(words)]}}
			switch j % 4 {
			case 0:
				m.Stdout, m.Exit = "001-"+strings.Trim(outputName.ReplaceAllString(words[j], "-"), "-.")+".out", j%3
			case 1:
				m.Stdout, m.Stderr, m.Exit = "002-dmesg.out", "002-dmesg.err", 1
			case 2:
				m.Timeout = true
			case 3:
				m.Missing = true
			}
			ms = append(ms, m)
		}
		manifests = append(manifests, ms)
	}
	manifests = append(manifests, nil, []Entry{{Argv: []string{}}}, []Entry{{Argv: []string{"x"}, Stdout: "a b"}})
	plain := 0
	for _, ms := range manifests {
		var got, want bytes.Buffer
		if err := writeManifest(&got, ms); err != nil {
			t.Fatal(err)
		}
		if len(ms) == 0 {
			want.WriteString("[]\n")
		} else if err := encodeManifest(&want, ms); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("writeManifest differs from yaml.v3:\n%s", fixturetest.FirstDiff(want.Bytes(), got.Bytes()))
		}
	}
	for _, w := range words {
		if plainWord(w) {
			plain++
		}
	}
	if plain < 20 {
		t.Errorf("only %d plain words: the fast way is not tested", plain)
	}
}

func FuzzWriteManifestIsYAMLs(f *testing.F) {
	for _, s := range []string{"smartctl", "-x", "/dev/sda", "0x06", "name,value", "yes", "001-dmesg.out", "a: b"} {
		f.Add(s, s+"1", "001-"+s+".out")
	}
	f.Fuzz(func(t *testing.T, a, b, out string) {
		ms := []Entry{{Argv: []string{"cmd", a, b}, Stdout: out, Exit: len(a)}, {Argv: []string{b}, Missing: true}}
		var got, want bytes.Buffer
		if err := encodeManifest(&want, ms); err != nil {
			t.Skip(err)
		}
		if err := writeManifest(&got, ms); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("writeManifest differs from yaml.v3:\n%s", fixturetest.FirstDiff(want.Bytes(), got.Bytes()))
		}
	})
}

// outputName is what snapshot replaces in an output file's name.
var outputName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)
