package system

import (
	"context"
	"strings"

	"github.com/diskdoctor/diskdoctor/internal/parse"
	"github.com/diskdoctor/diskdoctor/machine"
)

// ReadUptime reads /proc/uptime: seconds since boot.
func ReadUptime(ctx context.Context, h *machine.Host) (float64, error) {
	s, err := h.ReadString(ctx, "/proc/uptime")
	if err != nil {
		return -1, err
	}
	f := strings.Fields(s)
	if len(f) == 0 {
		return -1, machine.ErrParse
	}
	v, err := parse.Finite(f[0])
	if err != nil || v < 0 {
		return -1, machine.ErrParse
	}
	return v, nil
}
