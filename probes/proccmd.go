package probes

import (
	"context"
	"fmt"
	"strings"

	"github.com/prometheus/procfs"
)

// ProcessCmdline is a process's command line (/proc/PID/cmdline), its
// arguments joined by spaces and bounded; "" when the process is gone or
// unreadable.
func ProcessCmdline(ctx context.Context, h *Host, pid int) string {
	if ctx.Err() != nil || pid <= 0 {
		return ""
	}
	h.Uses(fmt.Sprintf("/proc/%d/cmdline", pid))
	pfs, err := procfs.NewFS(h.Path("/proc"))
	if err != nil {
		return ""
	}
	p, err := pfs.Proc(pid)
	if err != nil {
		return ""
	}
	args, err := p.CmdLine()
	if err != nil {
		return ""
	}
	s := strings.Join(args, " ")
	const maxLen = 300
	if len(s) > maxLen {
		s = s[:maxLen] + "…"
	}
	return s
}
