package machine

import "slices"

// argvChange is one change of a command the doctor runs: recordings made
// before it hold Was, the doctor now asks for Now. A word "<dev>" stands
// for the one word (a device path) both have in that place.
type argvChange struct {
	Was, Now []string
	// Since is the commit that made the change, for docs/fixtures.md.
	Since string
}

// devWord is the placeholder of a device path in an argvChange.
const devWord = "<dev>"

// argvHistory lists every argv the doctor ever ran that it no longer
// runs, with its successor (docs/fixtures.md, "Argv successors"). A
// recording holds the argv of the build that made it; without this table
// every change of an argv would silently void every older recording (the
// command would be "not recorded"). Only a change whose old output the
// new parser reads the same way belongs here: smartctl -x -j and -x -n
// standby -j print the same JSON for a drive that is awake (smartctl(8):
// -n only decides whether smartctl goes on when the drive is asleep).
var argvHistory = []argvChange{
	{
		Was:   []string{"smartctl", "-x", "-j", devWord},
		Now:   []string{"smartctl", "-x", "-n", "standby", "-j", devWord},
		Since: "803169c",
	},
	{
		// lvs prints the same report with fields left out: the new ones
		// (lv_health_status, segtype, cache_mode, cache_dirty_blocks)
		// are then unknown, every other one reads the same.
		Was:   []string{"lvs", "--reportformat", "json", "--units", "b", "--nosuffix", "-o", "vg_name,lv_name,lv_attr,lv_size,data_percent,metadata_percent,pool_lv"},
		Now:   []string{"lvs", "--reportformat", "json", "--units", "b", "--nosuffix", "-o", "vg_name,lv_name,lv_attr,lv_size,data_percent,metadata_percent,pool_lv,lv_health_status,segtype,cache_mode,cache_dirty_blocks"},
		Since: "91ae78b",
	},
}

// predecessors lists the argvs older recordings hold for argv, nearest
// first (a predecessor of a predecessor follows it); none for an argv
// that never changed.
func predecessors(argv []string) [][]string {
	var out [][]string
	cur := argv
	for range len(argvHistory) {
		next := predecessor(cur)
		if next == nil {
			break
		}
		out = append(out, next)
		cur = next
	}
	return out
}

// predecessor is the argv argv replaced, or nil.
func predecessor(argv []string) []string {
	for _, c := range argvHistory {
		if len(c.Now) != len(argv) {
			continue
		}
		dev, ok := "", true
		for i, w := range c.Now {
			switch {
			case w == devWord:
				dev = argv[i]
			case w != argv[i]:
				ok = false
			}
			if !ok {
				break
			}
		}
		if !ok {
			continue
		}
		was := slices.Clone(c.Was)
		for i, w := range was {
			if w == devWord {
				was[i] = dev
			}
		}
		return was
	}
	return nil
}

// IsPredecessor reports whether a command's result was answered from a
// recording of an older argv than the one asked for (res.Argv is what
// was recorded): the facts only the asked argv gives are then unknown.
func IsPredecessor(asked []string, res CmdResult) bool {
	return len(res.Argv) > 0 && !slices.Equal(asked, res.Argv)
}
