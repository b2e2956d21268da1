package raidctl

import (
	"errors"
	"fmt"
	"strings"
)

// ErrParse is an output that is not the tool's format, or is past the
// bounds below.
var ErrParse = errors.New("controller output not understood")

// Bounds on hostile or runaway input. The largest real outputs (storcli
// "/call/eall/sall show all J" of a 240-drive JBOD chassis) are a few
// hundred KB; a controller addresses at most a few hundred drives.
const (
	maxOutput = 8 << 20
	maxItems  = 4096 // controllers, volumes, drives, each
	maxText   = 512  // one value as kept for evidence
)

func tooLarge(b []byte) error {
	if len(b) > maxOutput {
		return fmt.Errorf("%w: %d bytes, more than %d", ErrParse, len(b), maxOutput)
	}
	return nil
}

// clip bounds a value kept for evidence.
func clip(s string) string {
	if len(s) > maxText {
		return s[:maxText]
	}
	return s
}

func textValue(text string, n int, raw string) Value {
	return Value{Text: clip(strings.TrimSpace(text)), Line: Line{N: n, Text: clip(strings.TrimSpace(raw))}, Set: true}
}

// splitKV splits "Key: value". ssacli prints "Serial Number:REDACTED"
// without the space on some firmware, and keys that hold colons of their
// own ("PCI Address (Domain:Bus:Device.Function): 0000:14:00.0"), so ": "
// is tried first and a bare ":" only when there is none.
func splitKV(line string) (key, value string, ok bool) {
	if i := strings.Index(line, ": "); i > 0 {
		return strings.TrimSpace(line[:i]), strings.TrimSpace(line[i+2:]), true
	}
	if i := strings.IndexByte(line, ':'); i > 0 {
		return strings.TrimSpace(line[:i]), strings.TrimSpace(line[i+1:]), true
	}
	return "", "", false
}

// indent is the number of leading spaces (tabs count as one).
func indent(line string) int {
	return len(line) - len(strings.TrimLeft(line, " \t"))
}

// percent finds "45%" or "45 %" in s, "" when there is none.
func percent(s string) string {
	i := strings.IndexByte(s, '%')
	if i <= 0 {
		return ""
	}
	j := i
	for j > 0 && s[j-1] == ' ' {
		j--
	}
	k := j
	for k > 0 && (s[k-1] >= '0' && s[k-1] <= '9' || s[k-1] == '.') {
		k--
	}
	if k == j {
		return ""
	}
	return s[k:j] + "%"
}
