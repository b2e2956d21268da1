package drive

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/diskdoctor/diskdoctor/machine"
)

// APM is a drive's Advanced Power Management setting as hdparm -B reads
// it from ATA IDENTIFY (word 83 bit 3 supported, word 86 bit 3 enabled,
// word 91 the level: ATA8-ACS 7.16.2).
type APM struct {
	Supported bool
	Enabled   bool
	Level     int // 1-254 when Enabled
	Source    string
	Value     string
}

var hdparmB = regexp.MustCompile(`^\s*APM_level\s*=\s*(\S.*?)\s*$`)

// ReadHdparmB runs `hdparm -B /dev/<dev>`, which reads the APM level and
// changes nothing (only -B with a value sets it).
func ReadHdparmB(ctx context.Context, h *machine.Host, dev string) (*APM, error) {
	res, err := h.Run(ctx, "hdparm", "-B", "/dev/"+dev)
	if err != nil {
		return nil, err
	}
	a, perr := ParseHdparmB(res.Stdout)
	if perr != nil {
		if msg := strings.TrimSpace(string(res.Stderr)); msg != "" {
			return nil, fmt.Errorf("%s: %s: %w", res, msg, perr)
		}
		return nil, fmt.Errorf("%s: %w", res, perr)
	}
	a.Source = res.String()
	return a, nil
}

// ParseHdparmB reads " APM_level\t= 128", "= off" (supported, disabled)
// or "= not supported" (hdparm.c, get_apmmode).
func ParseHdparmB(b []byte) (*APM, error) {
	for line := range strings.Lines(string(b)) {
		m := hdparmB.FindStringSubmatch(strings.TrimRight(line, "\r\n"))
		if m == nil {
			continue
		}
		v := m[1]
		switch v {
		case "off":
			return &APM{Supported: true, Value: strings.TrimSpace(line)}, nil
		case "not supported":
			return &APM{Value: strings.TrimSpace(line)}, nil
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 254 {
			return nil, fmt.Errorf("%w: %q", machine.ErrParse, strings.TrimSpace(line))
		}
		return &APM{Supported: true, Enabled: true, Level: n, Value: strings.TrimSpace(line)}, nil
	}
	return nil, fmt.Errorf("%w: no APM_level line", machine.ErrParse)
}
