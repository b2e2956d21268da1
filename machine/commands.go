package machine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/diskdoctor/diskdoctor/machine/manifest"
)

// CmdResult is what a command printed and how it ended.
type CmdResult struct {
	// Argv is the command that ran: the one asked for, or on a recorded
	// machine the older argv that answered it (IsPredecessor).
	Argv   []string
	Stdout []byte
	Stderr []byte
	Exit   int
}

// String is the command line as a person would type it, for evidence.
func (r CmdResult) String() string { return strings.Join(r.Argv, " ") }

// redactKey carries Host.RunRedacted's redaction to the runner that
// produces the output.
type redactKey struct{}

// redactOutput applies the redaction RunRedacted put in ctx where the
// output is made, so that no runner wrapped around this one (a snapshot's
// recorder, WrapRunner) ever holds the secret.
func redactOutput(ctx context.Context, res *CmdResult) {
	if f, ok := ctx.Value(redactKey{}).(func([]byte) []byte); ok {
		res.Stdout, res.Stderr = f(res.Stdout), f(res.Stderr)
	}
}

// Runner runs commands for a Host.
type Runner interface {
	Run(ctx context.Context, argv []string) (CmdResult, error)
}

// execRunner runs real programs with exec argv; the context deadline kills
// a program that hangs (zpool on a sick pool, a RAID controller's CLI on a
// sick controller, can block for minutes).
type execRunner struct {
	// dirs are where programs are found: nil for SystemPath (a test's
	// own directories with LiveWithSearchPath).
	dirs []string
	// root, when set, is a host root (HostRoot): programs are found in
	// it and run chrooted into it (hostroot.go).
	root *rootFS
	// running counts the commands started and not yet waited for
	// (Host.WaitCommands).
	running *sync.WaitGroup
}

func (r execRunner) Run(ctx context.Context, argv []string) (CmdResult, error) {
	res, err := r.run(ctx, argv)
	redactOutput(ctx, &res)
	return res, err
}

func (r execRunner) run(ctx context.Context, argv []string) (CmdResult, error) {
	if r.running != nil {
		r.running.Add(1)
		defer r.running.Done()
	}
	var path string
	var err error
	if r.root != nil {
		path, err = findInRoot(r.root, argv[0])
	} else {
		path, err = FindProgram(argv[0], r.dirs)
	}
	if err != nil {
		return CmdResult{Argv: argv}, err
	}
	cmd := exec.CommandContext(ctx, path, argv[1:]...)
	cmd.Env = ProgramEnv(r.dirs)
	out, errb := &cappedBuffer{limit: CmdOutputLimit}, &cappedBuffer{limit: cmdStderrLimit}
	cmd.Stdout, cmd.Stderr = out, errb
	// The command leads a process group of its own, so that the deadline
	// reaches whatever it started: a program that forks a helper (a vendor
	// wrapper script, a CLI that spawns a worker per controller) would
	// otherwise leave that helper blocked on a sick device after its
	// parent was killed (issue #23). A negative pid signals every member
	// of the group (kill(2)).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if r.root != nil {
		// path is the host's, execve'd after the chroot; the working
		// directory is the new root's (hostroot.go).
		cmd.SysProcAttr.Chroot = r.root.dir
		cmd.Dir = "/"
	}
	cmd.Cancel = func() error { return killGroup(cmd.Process) }
	// A member that escaped the group (setsid, its own setpgid) and keeps
	// the pipes open must still not hold the doctor past the deadline.
	cmd.WaitDelay = time.Second
	err = cmd.Run()
	res := CmdResult{Argv: argv, Stdout: out.Bytes(), Stderr: errb.Bytes()}
	if ctx.Err() != nil {
		return res, fmt.Errorf("%s: %w", res, CtxErr(ctx.Err()))
	}
	if out.over {
		return res, fmt.Errorf("%s: %w: printed more than %d bytes", res, ErrRefused, CmdOutputLimit)
	}
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		res.Exit = exitErr.ExitCode()
		return res, nil
	}
	return res, err
}

// killGroup sends SIGKILL to the process group p leads (Setpgid with Pgid
// 0 makes its pgid its pid). A group already gone is not an error: the
// command ended on its own as the deadline passed, and Wait reports that.
func killGroup(p *os.Process) error {
	err := syscall.Kill(-p.Pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return os.ErrProcessDone
	}
	return err
}

// CmdOutputLimit bounds what one command may print: the largest real
// outputs (smartctl -x -j of a drive with a long error log, dmesg of a
// large ring buffer, zpool status of hundreds of disks) are a few MB.
const CmdOutputLimit = 32 << 20

const cmdStderrLimit = 1 << 20

// cappedBuffer keeps the first limit bytes written and drops the rest
// (still accepting them, so that the child is not killed by a broken pipe
// before it exits).
type cappedBuffer struct {
	bytes.Buffer
	limit int
	over  bool
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if room := b.limit - b.Len(); room < len(p) {
		b.over = true
		if room > 0 {
			b.Buffer.Write(p[:room])
		}
		return len(p), nil
	}
	return b.Buffer.Write(p)
}

// recordedRunner replays commands/manifest.yaml: exact argv match, else the
// argv it replaced (argvHistory) in a recording made before the change,
// with the result's Argv the one recorded; an argv the manifest lacks
// under every name is "not recorded". Output files are read inside the
// recorded root, like every other file of it.
type recordedRunner struct {
	fs      *rootFS
	entries map[string]manifest.Entry
	// outputs holds the outputs that more than one entry names (shared),
	// read once: the synthetic machines give many disks one file. An
	// output one entry names is read when asked, not kept for the run (a
	// real recording's smartctl outputs, one a disk, add up to megabytes).
	outputs sync.Map // file name -> []byte
	shared  map[string]bool
	// missingUnrecorded: a v1 snapshot of a recorded machine, whose
	// "missing: true" may mean only "not recorded" (manifest.Meta).
	missingUnrecorded bool
	// answered: the programs with at least one recorded output. A
	// "missing: true" entry of such a program cannot mean it was not
	// installed (it answered another command): only that this command
	// was not recorded.
	answered map[string]bool
}

// installedWith pairs programs one Debian package installs together
// (zfsutils-linux: zpool and zfs; multipath-tools: multipath and
// multipathd): one that answered says the other was installed too.
var installedWith = map[string]string{
	"zpool": "zfs", "zfs": "zpool",
	"multipath": "multipathd", "multipathd": "multipath",
}

func argvKey(argv []string) string { return strings.Join(argv, "\x00") }

// manifestPath is the recorded machine's command manifest.
const manifestPath = manifest.Path

// manifestLimit bounds the manifest file: a recorded machine holds about
// two commands per device, so even tens of thousands of devices stay far
// below it.
const manifestLimit = 16 << 20

// metaLimit bounds a snapshot's description: a few hundred bytes, and a
// list of the paths that could not be read.
const metaLimit = 1 << 20

// newRecordedRunner returns the runner of fs's manifest.
func newRecordedRunner(fs *rootFS) (*recordedRunner, error) {
	r := &recordedRunner{fs: fs, entries: map[string]manifest.Entry{}, shared: map[string]bool{}}
	return r, r.load()
}

func (r *recordedRunner) load() error {
	meta, err := r.fs.readFile(manifest.MetaPath, metaLimit)
	switch {
	case err == nil:
		m, err := manifest.ReadMeta(meta)
		if err != nil {
			return fmt.Errorf("%s: %w", filepath.Join(r.fs.dir, manifest.MetaPath), err)
		}
		r.missingUnrecorded = m.MissingMayBeUnrecorded()
	case !errors.Is(err, os.ErrNotExist):
		return FileErr(filepath.Join(r.fs.dir, manifest.MetaPath), err)
	}
	b, err := r.fs.readFile(manifestPath, manifestLimit)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return FileErr(filepath.Join(r.fs.dir, manifestPath), err)
	}
	entries, err := manifest.Parse(bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(r.fs.dir, manifestPath), err)
	}
	named := make(map[string]int, len(entries))
	for _, e := range entries {
		r.entries[argvKey(e.Argv)] = e
		if !e.Missing && !e.Timeout && len(e.Argv) > 0 {
			if r.answered == nil {
				r.answered = map[string]bool{}
			}
			r.answered[e.Argv[0]] = true
		}
		if named[e.Stdout]++; named[e.Stdout] == 2 {
			r.shared[e.Stdout] = true
		}
	}
	return nil
}

// output reads a recorded output file, a shared one once; callers get
// their own copy.
func (r *recordedRunner) output(name string) ([]byte, error) {
	if v, ok := r.outputs.Load(name); ok {
		return bytes.Clone(v.([]byte)), nil
	}
	b, err := r.fs.readFile("/commands/"+name, CmdOutputLimit)
	if err != nil {
		return nil, err
	}
	if r.shared[name] {
		r.outputs.Store(name, b)
		return bytes.Clone(b), nil
	}
	return b, nil
}

func (r *recordedRunner) Run(ctx context.Context, argv []string) (CmdResult, error) {
	res, err := r.run(ctx, argv)
	redactOutput(ctx, &res)
	return res, err
}

func (r *recordedRunner) run(ctx context.Context, argv []string) (CmdResult, error) {
	res := CmdResult{Argv: argv}
	e, ok := r.entries[argvKey(argv)]
	for _, old := range predecessors(argv) {
		if ok {
			break
		}
		if e, ok = r.entries[argvKey(old)]; ok {
			res.Argv = old
		}
	}
	switch {
	case !ok || e.Missing:
		by := ""
		if r.answered[argv[0]] {
			by = argv[0]
		} else if with := installedWith[argv[0]]; r.answered[with] {
			by = with
		}
		seen := by != ""
		unrecorded := !ok || r.missingUnrecorded || seen
		return res, &ToolError{Tool: argv[0], Recorded: !unrecorded, NotRecorded: unrecorded, Answered: seen, AnsweredBy: by}
	case e.Timeout:
		<-ctx.Done()
		return res, fmt.Errorf("%s: %w", res, CtxErr(ctx.Err()))
	}
	if err := ctx.Err(); err != nil {
		return res, fmt.Errorf("%s: %w", res, CtxErr(err))
	}
	var err error
	if res.Stdout, err = r.output(e.Stdout); err != nil {
		return res, fmt.Errorf("recorded output of %s: %w", res, FileErr("/commands/"+e.Stdout, err))
	}
	if e.Stderr != "" {
		if res.Stderr, err = r.fs.readFile("/commands/"+e.Stderr, cmdStderrLimit); err != nil {
			return res, fmt.Errorf("recorded stderr of %s: %w", res, FileErr("/commands/"+e.Stderr, err))
		}
	}
	res.Exit = e.Exit
	return res, nil
}
