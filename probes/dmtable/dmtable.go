// Package dmtable reads the kernel's device-mapper tables, `dmsetup
// table`: one line per target, "name: start length type params". sysfs
// says which devices a dm device is stacked on and its dm/uuid says who
// made it (CRYPT-… for cryptsetup), but how a dm-crypt target was opened
// (its sector size, whether it bypasses the kcryptd workqueues) is only in
// the table (Documentation/admin-guide/device-mapper/dm-crypt.rst).
//
// A crypt line carries the volume key, in hex or as a kernel keyring
// reference (":64:logon:cryptsetup:…"). dmsetup hides a hex key unless
// --showkeys is given, but a recording is not trusted and the reference
// names the volume: Read replaces the key field before anything keeps the
// output (machine.Host.RunRedacted), so no key reaches a report, a JSON
// document or a snapshot.
package dmtable

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/diskdoctor/diskdoctor/machine"
)

// argv lists every device's table, each line prefixed with the device's
// name (dmsetup(8), table).
var argv = []string{"dmsetup", "table"}

// Argv is the command the doctor runs (a copy).
func Argv() []string { return slices.Clone(argv) }

// Bounds on what a listing may hold before it is refused: a recording is
// not trusted; a real line is about 150 bytes.
const (
	MaxOutputBytes = 4 << 20
	MaxTargets     = 100000
)

// Redacted stands in for a key in every output Read returns.
const Redacted = "<key-redacted>"

// keyedTargets are the target types whose second parameter is a key:
// dm-crypt, and Android's default-key (same table layout).
var keyedTargets = map[string]bool{"crypt": true, "default-key": true}

// Redact replaces the key field of every crypt line in b with Redacted;
// the rest is unchanged. It returns a new slice (b may be a recording's
// own bytes) and is idempotent (Host.RunRedacted may apply it twice). A line it cannot split keeps no field after the
// target type: unknown layout is treated as possibly holding a key.
func Redact(b []byte) []byte {
	if len(b) == 0 {
		return b
	}
	var out bytes.Buffer
	out.Grow(len(b))
	lines := bytes.SplitAfter(b, []byte("\n"))
	for _, raw := range lines {
		body := bytes.TrimRight(raw, "\r\n")
		end := raw[len(body):]
		out.WriteString(redactLine(string(body)))
		out.Write(end)
	}
	return out.Bytes()
}

// redactLine redacts one line: "name: start len type p1 p2 …" or, from
// `dmsetup table NAME`, "start len type p1 p2 …". The key is the second
// parameter of a keyed target.
func redactLine(line string) string {
	prefix, rest := "", line
	// dmsetup prints a name's whitespace mangled (\x20; dmsetup(8),
	// --manglename): a "name" with a space in it is not one, and the line
	// is read whole.
	if name, r, ok := strings.Cut(line, ": "); ok && !strings.ContainsAny(name, " \t") {
		prefix, rest = name+": ", r
	}
	f := strings.Fields(rest)
	if len(f) >= 3 && keyedTargets[f[2]] && isUint(f[0]) && isUint(f[1]) {
		if len(f) > 4 {
			f[4] = Redacted
			// A hostile or garbled line may hold key-like words beyond
			// the key's place: none is kept.
			for i := 5; i < len(f); i++ {
				if looksLikeKey(f[i]) {
					f[i] = Redacted
				}
			}
			return prefix + strings.Join(f, " ")
		}
		// Too short to hold its fields: keep what precedes the parameters.
		return prefix + strings.Join(f[:3], " ") + " " + Redacted
	}
	// A keyed target's name anywhere else (in what looked like the
	// device's name too): a layout not understood, nothing of it is kept.
	for _, w := range strings.Fields(line) {
		if keyedTargets[w] {
			return Redacted
		}
	}
	return line
}

// looksLikeKey is a key as dm-crypt takes it (dm-crypt.rst, <key>): hex
// of 16 digits or more, or a keyring reference ":<size>:<type>:<desc>".
func looksLikeKey(w string) bool {
	if strings.HasPrefix(w, ":") && strings.Count(w, ":") >= 3 {
		return true
	}
	if len(w) < 16 {
		return false
	}
	for _, c := range w {
		if !strings.ContainsRune("0123456789abcdefABCDEF", c) {
			return false
		}
	}
	return true
}

func isUint(s string) bool {
	_, err := strconv.ParseUint(s, 10, 64)
	return err == nil
}

// Target is one line of the listing.
type Target struct {
	Name          string // the dm device's name (dm/name)
	Start, Length uint64 // in 512-byte sectors
	Type          string // crypt, linear, striped, thin…
	Params        []string
	// Line is the line as printed, its key redacted, for evidence.
	Line string
}

// Crypt is a crypt target's parameters (dm-crypt.rst: <cipher> <key>
// <iv_offset> <device path> <offset> [<#opt_params> <opt_params>]).
type Crypt struct {
	Cipher string
	Dev    string // "8:19" or a path
	// Options are the optional parameters as printed (allow_discards,
	// no_read_workqueue, sector_size:4096…).
	Options []string
	// SectorSize is the encryption sector size: sector_size:N, 512 when
	// absent (dm-crypt.rst: "default 512 bytes").
	SectorSize int
}

// Crypt reads a crypt target's parameters; false when t is not one or
// its parameters do not parse.
func (t *Target) Crypt() (Crypt, bool) {
	if t.Type != "crypt" || len(t.Params) < 5 {
		return Crypt{}, false
	}
	c := Crypt{Cipher: t.Params[0], Dev: t.Params[3], SectorSize: 512}
	if len(t.Params) > 5 {
		n, err := strconv.Atoi(t.Params[5])
		if err != nil || n < 0 || n != len(t.Params)-6 {
			return Crypt{}, false
		}
		c.Options = slices.Clone(t.Params[6:])
	}
	for _, o := range c.Options {
		if v, ok := strings.CutPrefix(o, "sector_size:"); ok {
			n, err := strconv.Atoi(v)
			// dm-crypt accepts powers of two from 512 to 4096.
			if err != nil || n < 512 || n > 4096 || n&(n-1) != 0 {
				return Crypt{}, false
			}
			c.SectorSize = n
		}
	}
	return c, true
}

// Has says whether the target was opened with option o.
func (c *Crypt) Has(o string) bool { return slices.Contains(c.Options, o) }

// Parse reads Argv's output (redacted by Read first: Parse keys nothing
// and refuses nothing but size). "No devices found" is an empty listing.
func Parse(b []byte) ([]*Target, error) {
	if len(b) > MaxOutputBytes {
		return nil, fmt.Errorf("%w: dmsetup table output of %d bytes (at most %d read)", machine.ErrParse, len(b), MaxOutputBytes)
	}
	var out []*Target
	for _, raw := range bytes.Split(b, []byte("\n")) {
		line := strings.TrimSpace(string(raw))
		name, rest, ok := strings.Cut(line, ": ")
		if !ok || name == "" {
			continue
		}
		f := strings.Fields(rest)
		if len(f) < 3 {
			continue
		}
		start, err1 := strconv.ParseUint(f[0], 10, 64)
		length, err2 := strconv.ParseUint(f[1], 10, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		if len(out) >= MaxTargets {
			return nil, fmt.Errorf("%w: dmsetup table lists more than %d targets", machine.ErrParse, MaxTargets)
		}
		out = append(out, &Target{Name: name, Start: start, Length: length, Type: f[2], Params: f[3:], Line: line})
	}
	return out, nil
}

// Read runs Argv with its output redacted before anything keeps it. A
// non-zero exit is an error: the listing may then lack devices.
func Read(ctx context.Context, h *machine.Host) ([]*Target, machine.CmdResult, error) {
	res, err := h.RunRedacted(ctx, Redact, argv...)
	if err != nil {
		return nil, res, err
	}
	if res.Exit != 0 {
		return nil, res, machine.ExitError(res)
	}
	t, err := Parse(res.Stdout)
	return t, res, err
}
