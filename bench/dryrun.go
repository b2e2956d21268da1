package bench

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/diskdoctor/diskdoctor/internal/shellquote"
	"github.com/diskdoctor/diskdoctor/report"
)

// prepareSteps says what Exec.Fill does to the test file, step by step;
// PrepareRecipe does the same with coreutils.
func prepareSteps(device bool) string {
	to := "a new file"
	if device {
		to = "the device"
	}
	return "random data in 1 MiB writes to " + to + ", fsync, syncfs, its pages dropped from the page cache"
}

// PrepareRecipe is the shell line that prepares the test file as
// Exec.Fill does, one coreutils command per step and each the same
// system call: dd writes fresh random data in 1 MiB writes to a file it
// creates (O_EXCL, as Fill; a device is opened, not created) and fsyncs
// it (conv=fsync), `sync -f` is syncfs(2) on its filesystem, and dd
// iflag=nocache count=0 is posix_fadvise(DONTNEED) over the whole file.
// count_bytes makes any size exact, fullblock keeps a short read of
// /dev/urandom from making a short block.
func PrepareRecipe(file string, size uint64, device bool) string {
	conv := "conv=excl,fsync"
	if device {
		conv = "conv=nocreat,notrunc,fsync"
	}
	return strings.Join([]string{
		shellquote.Join([]string{"dd", "if=/dev/urandom", "of=" + file, "bs=1M", "count=" + strconv.FormatUint(size, 10), "iflag=fullblock,count_bytes", conv, "status=none"}),
		shellquote.Join([]string{"sync", "-f", file}),
		shellquote.Join([]string{"dd", "if=" + file, "iflag=nocache", "count=0", "status=none"}),
	}, " && ")
}

// dryRunText prints every job the profile can run, as one ini file (each
// job is its own stonewalled group, so `fio FILE` runs them one after
// another as the bench does), each preceded by its command-line
// equivalent, after the preflight's checks as comments.
func (b *run) dryRunText() string {
	var s strings.Builder
	fmt.Fprintf(&s, "# diskdoctor bench --profile %s: the fio jobs it runs, one fio run per job, in this order.\n", b.o.Profile)
	if b.tgt.IsDevice {
		fmt.Fprintf(&s, "# Test file: %s (its first %s; diskdoctor overwrites them with random data first).\n", b.tgt.File, Size(b.o.Size))
	} else {
		fmt.Fprintf(&s, "# Test file: %s (%s; diskdoctor fills it with random data first, then removes it).\n", b.tgt.File, Size(b.o.Size))
	}
	fmt.Fprintf(&s, "# To reproduce by hand: prepare the test file as diskdoctor does (%s):\n#   %s\n", prepareSteps(b.tgt.IsDevice), PrepareRecipe(b.tgt.File, b.o.Size, b.tgt.IsDevice))
	end := "; remove the test file at the end"
	if b.tgt.IsDevice {
		end = ""
	}
	fmt.Fprintf(&s, "# then run each job, in this order: fio --output-format=json --section=NAME THIS-FILE%s.\n", end)
	fmt.Fprintf(&s, "# Engine %s (%s); direct=%s.\n", b.engine, b.engineNote, onOff(b.direct))
	if b.o.Profile == "sweep" {
		fmt.Fprintf(&s, "# Sweep: the run stops at the first point whose p99 exceeds 3× the lowest; %s.\n", KneeRule)
	}
	b.preflightComments(&s)
	for _, sp := range Specs(b.o) {
		j := b.job(sp)
		fmt.Fprintf(&s, "\n# %s %s\n# %s\n%s", sp.Test, sp.Op, shellquote.Join(append([]string{"fio"}, j.Argv()...)), j.Ini())
	}
	return s.String()
}

func (b *run) preflightComments(s *strings.Builder) {
	fmt.Fprintf(s, "# Preflight: %s\n", b.pre.Verdict)
	if len(b.facts.Disks) > 0 {
		fmt.Fprintf(s, "# Devices under %s: %s (judged by the doctor)\n", b.tgt.Path, strings.Join(b.facts.Disks, ", "))
		if b.o.PreflightWindow > 0 {
			// The run watches the devices before and after its tests
			// (watchCompeting); a dry run runs nothing, so it cannot say
			// whether another process keeps them busy.
			note := fmt.Sprintf("Not watched by a dry run: other processes' I/O on %s (the run watches them for %s first and refuses to start while they are busy, unless --force).", strings.Join(b.facts.Disks, ", "), b.o.PreflightWindow)
			writeComment(s, "# ", note, textWidth(b.o.Width), 2, 4)
		}
	}
	for _, c := range b.pre.Checks {
		subj := ""
		if len(c.Subjects) > 0 {
			subj = " (" + strings.Join(c.Subjects, ", ") + ")"
		}
		writeComment(s, "#   ", strings.ToUpper(c.Severity)+" "+c.ID+subj+": "+c.Text, textWidth(b.o.Width), 4, 6)
	}
}

// writeComment writes text wrapped as comments, so that each line of a
// job file stays one: the first line after lead (as wide as firstIndent),
// the others indented.
func writeComment(s *strings.Builder, lead, text string, width, firstIndent, indent int) {
	for i, l := range report.Wrap(text, width, firstIndent, indent) {
		if i == 0 {
			l = lead + l
		} else {
			l = "#" + l[1:]
		}
		s.WriteString(l + "\n")
	}
}

// dryRunDD prints the dd fallback's commands, one per line, in run order
// (each is stopped at --runtime), after the preflight as comments.
func (b *run) dryRunDD() string {
	var s strings.Builder
	fmt.Fprintf(&s, "# diskdoctor bench, dd fallback (%s): the dd commands it runs, in this order, each stopped after %s.\n", b.engineNote, b.o.Runtime)
	src := b.tgt.File + ".src"
	fmt.Fprintf(&s, "# Test file %s and random source %s (%s each, random data; removed afterwards).\n", b.tgt.File, src, Size(b.o.Size))
	b.preflightComments(&s)
	for _, sp := range b.ddSpecs() {
		fmt.Fprintf(&s, "\n# %s\n%s\n", sp.test, shellquote.Join(b.ddArgv(sp, src)))
	}
	return s.String()
}
