package rules

import (
	_ "embed"
	"fmt"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

//go:embed firmware.yaml
var embeddedFirmware []byte

// Quirk names a firmware behaviour other rules take into account.
const QuirkPhantomPending = "phantom-pending-sector"

// Advisory is one entry of the firmware table (rules/firmware.yaml): a
// drive model's firmware with a vendor-acknowledged bug, or a behaviour of
// its firmware (Quirk) the doctor must not mistake for a failure.
type Advisory struct {
	Match         string   `yaml:"match"`
	Firmware      []string `yaml:"firmware,omitempty"`
	Before        string   `yaml:"before,omitempty"`
	FirmwareMatch string   `yaml:"firmware_match,omitempty"`
	Fixed         string   `yaml:"fixed,omitempty"`
	Severity      string   `yaml:"severity,omitempty"`
	Title         string   `yaml:"title"`
	Bug           string   `yaml:"bug"`
	Source        string   `yaml:"source"`
	Update        string   `yaml:"update,omitempty"`
	Quirk         string   `yaml:"quirk,omitempty"`

	re, fwRe *regexp.Regexp
	// insts is the patterns' compiled size, counted against maxTableInsts.
	insts int
}

// firmwareTable is the embedded file's shape.
type firmwareTable struct {
	Version  string      `yaml:"version"`
	Firmware []*Advisory `yaml:"firmware"`
}

func parseFirmware(b []byte) ([]*Advisory, error) {
	var t firmwareTable
	if err := yaml.Unmarshal(b, &t); err != nil {
		return nil, err
	}
	if err := finishAdvisories(t.Firmware); err != nil {
		return nil, err
	}
	return t.Firmware, nil
}

// finishAdvisories checks each entry and compiles its patterns: an entry
// says which firmware it is about in exactly one way, and cites its source.
func finishAdvisories(as []*Advisory) error {
	for i, a := range as {
		ways := 0
		for _, set := range []bool{len(a.Firmware) > 0, a.Before != "", a.FirmwareMatch != ""} {
			if set {
				ways++
			}
		}
		if a.Match == "" || a.Source == "" || a.Title == "" || ways != 1 {
			return fmt.Errorf("firmware entry %d (%s): match, title, source and one of firmware, before, firmware_match are required", i+1, a.Title)
		}
		switch a.Severity {
		case "", "warning", "critical":
		default:
			return fmt.Errorf("firmware entry %d (%s): severity %q is neither warning nor critical", i+1, a.Title, a.Severity)
		}
		if a.Severity == "" && a.Quirk == "" {
			return fmt.Errorf("firmware entry %d (%s): an entry without severity must name its quirk", i+1, a.Title)
		}
		var err error
		if a.re, a.insts, err = compilePattern(a.Match); err != nil {
			return fmt.Errorf("firmware entry %d (%s): match: %w", i+1, a.Title, err)
		}
		if a.FirmwareMatch != "" {
			var n int
			if a.fwRe, n, err = compilePattern(a.FirmwareMatch); err != nil {
				return fmt.Errorf("firmware entry %d (%s): firmware_match: %w", i+1, a.Title, err)
			}
			a.insts += n
		}
	}
	return nil
}

// affects: the entry is about this firmware revision.
func (a *Advisory) affects(fw string) bool {
	switch {
	case len(a.Firmware) > 0:
		for _, f := range a.Firmware {
			if strings.EqualFold(f, fw) {
				return true
			}
		}
		return false
	case a.fwRe != nil:
		return a.fwRe.MatchString(fw)
	}
	return revisionBefore(fw, a.Before)
}

// revisionBefore: fw is an earlier revision than fixed in the vendor's
// scheme, compared only where both have the same shape (same length, the
// same characters outside their digits: HPD1 and HPD8). Another shape is a
// different firmware line and not judged.
func revisionBefore(fw, fixed string) bool {
	fw, fixed = strings.ToUpper(fw), strings.ToUpper(fixed)
	if len(fw) != len(fixed) || fw == fixed {
		return false
	}
	for i := 0; i < len(fw); i++ {
		if isDigit(fw[i]) != isDigit(fixed[i]) || (!isDigit(fw[i]) && fw[i] != fixed[i]) {
			return false
		}
	}
	return fw < fixed
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// LookupFirmware gives the entries about a model's firmware revision (a
// site's entries first), none when model or firmware is unknown.
func (ds *Datasheets) LookupFirmware(model, fw string) []*Advisory {
	n, fw := NormalizeModel(model), strings.TrimSpace(fw)
	if n == "" || fw == "" {
		return nil
	}
	var out []*Advisory
	for _, a := range ds.Firmware {
		if a.re.MatchString(n) && a.affects(fw) {
			out = append(out, a)
		}
	}
	return out
}
