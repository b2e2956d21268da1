package zfs

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/diskdoctor/diskdoctor/internal/parse"
	"github.com/diskdoctor/diskdoctor/machine"
)

// Props is the output of ZfsGetArgv: property values by dataset.
type Props map[string]map[string]string

// ParseGet reads "name<TAB>property<TAB>value" lines (zfs get -H -o
// name,property,value). Lines of another shape are skipped.
func ParseGet(b []byte) Props {
	out := Props{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) != 3 && len(f) != 4 {
			continue
		}
		name, prop, val := strings.TrimSpace(f[0]), strings.TrimSpace(f[1]), strings.TrimSpace(f[2])
		if name == "" || prop == "" || strings.ContainsAny(name, " ") {
			continue
		}
		if out[name] == nil {
			out[name] = map[string]string{}
		}
		out[name][prop] = val
	}
	return out
}

// Pool is the pool a dataset belongs to.
func datasetPool(ds string) string {
	p, _, _ := strings.Cut(ds, "/")
	return p
}

// ByPool groups datasets by pool, names sorted.
func (z Props) ByPool() map[string][]string {
	out := map[string][]string{}
	for ds := range z {
		out[datasetPool(ds)] = append(out[datasetPool(ds)], ds)
	}
	for _, l := range out {
		sort.Strings(l)
	}
	return out
}

// ReadGet runs ZfsGetArgv.
func ReadGet(ctx context.Context, h *machine.Host) (Props, machine.CmdResult, error) {
	res, err := h.Run(ctx, getArgv...)
	if err != nil {
		return nil, res, err
	}
	if res.Exit != 0 {
		return nil, res, machine.ExitError(res)
	}
	return ParseGet(res.Stdout), res, nil
}

// ModuleParam reads /sys/module/zfs/parameters/<name> as a number.
func ModuleParam(ctx context.Context, h *machine.Host, name string) (float64, string, error) {
	p := "/sys/module/zfs/parameters/" + name
	v, err := h.ReadString(ctx, p)
	if err != nil {
		return 0, p, err
	}
	f, err := parse.Finite(v)
	if err != nil {
		return 0, p, fmt.Errorf("%s: %w", p, machine.ErrParse)
	}
	return f, p, nil
}
