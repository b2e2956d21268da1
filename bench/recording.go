package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/machine/manifest"
)

// Recording is the bench run a recorded machine holds: the settings its
// fio calls (commands/manifest.yaml, recorded by bench/record_test.go)
// were made with, so that `bench --root DIR` replays it without being
// told them.
type Recording struct {
	Root    string // the recorded machine
	Dir     string // the target directory of the recorded run
	PID     int    // in its test file's name
	Size    uint64
	Runtime time.Duration
	Profile string
	Write   bool // a sweep of random writes
	Steady  bool
}

// ErrNotRecorded is a fio call that a replayed machine cannot answer.
var ErrNotRecorded = errors.New("not in the recording")

// notRecorded is an ErrNotRecorded that says why in its own words.
type notRecorded struct{ msg string }

func (e *notRecorded) Error() string        { return e.msg }
func (e *notRecorded) Is(target error) bool { return target == ErrNotRecorded }

// manifestLimit bounds the manifest read here as machine does.
const manifestLimit = 16 << 20

// Recorded reads the recorded bench run of a recorded machine: nil when
// it holds none (no fio call on a bench test file).
func Recorded(ctx context.Context, h *machine.Host) (*Recording, error) {
	b, err := h.ReadFileLimit(ctx, manifest.Path, manifestLimit)
	if errors.Is(err, machine.ErrNotAvailable) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	entries, err := manifest.Parse(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	rec := &Recording{Root: h.Root()} // NewEnv sets the root as given
	names := map[string]bool{}
	for _, e := range entries {
		if len(e.Argv) == 0 || path.Base(e.Argv[0]) != "fio" {
			continue
		}
		opt := map[string]string{}
		for _, a := range e.Argv[1:] {
			k, v, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
			opt[k] = v
		}
		file := strings.ReplaceAll(opt["filename"], `\:`, ":")
		pid, ok := stalePID(path.Base(file))
		if !ok {
			continue
		}
		rec.Dir, rec.PID = path.Dir(file), pid
		names[opt["name"]] = true
		if n, err := strconv.ParseUint(opt["size"], 10, 64); err == nil && !strings.HasPrefix(opt["name"], "steady") {
			rec.Size = n
		}
		if d, err := time.ParseDuration(opt["runtime"]); err == nil && !strings.HasPrefix(opt["name"], "steady") {
			rec.Runtime = d
		}
	}
	if rec.PID == 0 || rec.Size == 0 || rec.Runtime == 0 {
		return nil, nil
	}
	// The profile is the one whose first test was recorded.
	for _, o := range []Options{{Profile: "cdm"}, {Profile: "sync"}, {Profile: "sweep", MaxDepth: 1}, {Profile: "sweep", MaxDepth: 1, Write: true}} {
		if names[Specs(o)[0].slug()] {
			rec.Profile, rec.Write = o.Profile, o.Write
			break
		}
	}
	rec.Steady = names[newSpec("steady", "write", mib, 8, 1).slug()]
	if rec.Profile == "" {
		return nil, nil
	}
	return rec, nil
}

// Args are the settings of the recorded run as bench flags and PATH.
func (r *Recording) Args() string {
	a := []string{"--profile", r.Profile}
	if r.Write {
		a = append(a, "--write")
	}
	if r.Steady {
		a = append(a, "--steady")
	}
	a = append(a, "--size", SizeArg(r.Size), "--runtime", r.Runtime.String(), r.Dir)
	return strings.Join(a, " ")
}

// Apply gives o the recorded run's settings where the command line left
// them (changed names the flags given) and returns PATH (target, or the
// recorded run's directory when empty). Settings given that differ from
// the recording are an error: the replay has only the recorded fio calls.
func (r *Recording) Apply(o *Options, target string, changed func(flag string) bool) (string, error) {
	if target == "" {
		target = r.Dir
	}
	target = path.Clean(target)
	if o.PID == 0 {
		o.PID = r.PID
	}
	for _, s := range []struct {
		flag string
		ok   bool
		set  func()
	}{
		{"size", o.Size == r.Size, func() { o.Size = r.Size }},
		{"runtime", o.Runtime == r.Runtime, func() { o.Runtime = r.Runtime }},
		{"profile", o.Profile == r.Profile, func() { o.Profile = r.Profile }},
		{"write", o.Write == r.Write, func() { o.Write = r.Write }},
		{"steady", o.Steady == r.Steady, func() { o.Steady = r.Steady }},
	} {
		if !changed(s.flag) {
			s.set()
		}
	}
	if o.DryRun {
		return target, nil
	}
	if target != r.Dir || o.Size != r.Size || o.Runtime != r.Runtime || o.Profile != r.Profile || o.Write != r.Write || o.Steady != r.Steady || o.PID != r.PID {
		return "", &notRecorded{fmt.Sprintf("the bench run recorded in %s was %s; a replay has only its fio calls (leave PATH and those flags out to replay it, or add --dry-run to see the jobs of other settings)", r.Root, r.Args())}
	}
	return target, nil
}

// NoRecording is the error of a replay on a recorded machine without a
// bench run.
func NoRecording(root string) error {
	return &notRecorded{fmt.Sprintf("%s holds no recorded bench run (no fio call on a test file in %s), so there are no figures to replay; its preflight and the jobs are shown by: diskdoctor bench --root %s --dry-run PATH", root, manifest.Path[1:], root)}
}
