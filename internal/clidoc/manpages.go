package clidoc

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// Date is the date printed in the man pages: epoch, the value of
// SOURCE_DATE_EPOCH, when the build sets it (reproducible builds), else now.
func Date(epoch string) (time.Time, error) {
	if epoch == "" {
		return time.Now().UTC(), nil
	}
	sec, err := strconv.ParseInt(epoch, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH=%q: %w", epoch, err)
	}
	return time.Unix(sec, 0).UTC(), nil
}

// Write writes one section 8 page per available command of root into
// DIR/man and the bash, zsh and fish completions into DIR/completions.
// source is the pages' "source" line (e.g. "diskdoctor 1.2.3"), date the
// date they carry.
func Write(root *cobra.Command, dir, source string, date time.Time) error {
	manDir := filepath.Join(dir, "man")
	compDir := filepath.Join(dir, "completions")
	for _, d := range []string{manDir, compDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	// The completion command is added by cobra when the program runs;
	// adding it here too lets the pages list it whatever called us.
	root.InitDefaultCompletionCmd()
	if err := genManTree(root, manDir, source, date); err != nil {
		return err
	}
	comps := []struct {
		name string
		gen  func(*bytes.Buffer) error
	}{
		{"diskdoctor.bash", func(b *bytes.Buffer) error { return root.GenBashCompletionV2(b, true) }},
		{"_diskdoctor", func(b *bytes.Buffer) error { return root.GenZshCompletion(b) }},
		{"diskdoctor.fish", func(b *bytes.Buffer) error { return root.GenFishCompletion(b, true) }},
	}
	for _, c := range comps {
		var b bytes.Buffer
		if err := c.gen(&b); err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		if err := os.WriteFile(filepath.Join(compDir, c.name), b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// genManTree writes one section 8 page per available command (the tool
// reads devices as root: an administration command).
func genManTree(cmd *cobra.Command, dir, source string, date time.Time) error {
	for _, c := range cmd.Commands() {
		if !c.IsAvailableCommand() || c.IsAdditionalHelpTopicCommand() {
			continue
		}
		if err := genManTree(c, dir, source, date); err != nil {
			return err
		}
	}
	cmd.DisableAutoGenTag = true
	header := &doc.GenManHeader{
		Section: "8",
		Date:    &date,
		Source:  source,
		Manual:  "diskdoctor manual",
	}
	var b bytes.Buffer
	if err := doc.GenMan(cmd, header, &b); err != nil {
		return err
	}
	page, err := addManSections(b.Bytes(), cmd)
	if err != nil {
		return err
	}
	name := strings.ReplaceAll(cmd.CommandPath(), " ", "-") + ".8"
	return os.WriteFile(filepath.Join(dir, name), page, 0o644)
}

// addManSections puts EXIT STATUS and FILES where man-pages(7) wants them:
// after the options and examples, before SEE ALSO.
func addManSections(page []byte, cmd *cobra.Command) ([]byte, error) {
	var s bytes.Buffer
	s.WriteString(".SH EXIT STATUS\n")
	for _, e := range exitStatusOf(cmd) {
		fmt.Fprintf(&s, ".TP\n.B %d\n%s\n", e.code, roffText(e.meaning))
	}
	s.WriteString(".SH FILES\n")
	for _, f := range filesOf(cmd) {
		fmt.Fprintf(&s, ".TP\n.I %s\n%s\n", roffText(f.path), roffText(f.meaning))
	}
	seeAlso := []byte(".SH SEE ALSO\n")
	i := bytes.Index(page, seeAlso)
	if i < 0 {
		return nil, errors.New(cmd.CommandPath() + ": generated page has no SEE ALSO section")
	}
	out := append([]byte{}, page[:i]...)
	out = append(out, s.Bytes()...)
	return append(out, page[i:]...), nil
}

// roffText escapes text for a roff line: backslashes, hyphens (which roff
// would otherwise set as typographic hyphens, wrong in options and paths),
// and a leading control character.
func roffText(t string) string {
	t = strings.ReplaceAll(t, `\`, `\e`)
	t = strings.ReplaceAll(t, "-", `\-`)
	if strings.HasPrefix(t, ".") || strings.HasPrefix(t, "'") {
		t = `\&` + t
	}
	return t
}

type manFile struct{ path, meaning string }

func filesOf(cmd *cobra.Command) []manFile {
	datasheets := manFile{"/etc/diskdoctor/datasheets.d/*.yaml", "The administrator's own drive datasheets (the format of --datasheets), read in name order after the built-in table; --datasheets takes precedence over them. A file is used only when it and its directories are owned by root and not writable by group or others (the --datasheets file may be the invoking user's); otherwise a skipped entry names it and the fix. With --root or --snapshot, the recorded machine's are read instead (diskdoctor snapshot records them)."}
	site := manFile{"/etc/diskdoctor/diskdoctor.yaml", "The site configuration: waive (findings the site accepted, by rule and device, with a reason and an optional last day; a waived finding is listed as waived and leaves the verdict and exit status) and severity (a rule's severity at this site). --config FILE is read instead; with --root or --snapshot, the recorded machine's. A mistake in it ends the run with exit status 3 naming the file, line and column. Example: /usr/share/doc/diskdoctor/examples/diskdoctor.yaml."}
	siteRules := manFile{"/etc/diskdoctor/rules.d/*.yaml", "The site's own rules, one per file named after its id, in the schema of the built-in rules; a condition may read only the facts the checks give. diskdoctor rules lists them under their files. Example: /usr/share/doc/diskdoctor/examples/rules.d/."}
	switch strings.TrimPrefix(cmd.CommandPath(), "diskdoctor") {
	case "":
		return []manFile{
			datasheets, site, siteRules,
			{"/usr/lib/systemd/system/diskdoctor.service", "Runs the doctor with --format prometheus into node_exporter's textfile directory; installed, not enabled."},
			{"/usr/lib/systemd/system/diskdoctor.timer", "Starts diskdoctor.service after boot and every hour (smartd polls every 30 minutes): systemctl enable --now diskdoctor.timer."},
			{"/var/lib/prometheus/node-exporter/diskdoctor.prom", "The metrics the service writes, read by prometheus-node-exporter's textfile collector."},
			{"/usr/share/doc/diskdoctor/diskdoctor-alerts.yml", "Prometheus alerting rules for those metrics."},
			{"/usr/share/doc/diskdoctor/diskdoctor-v1.schema.json", "The JSON Schema of --format json (diskdoctor/v1)."},
		}
	case " rules", " explain":
		return []manFile{siteRules, {"/usr/share/doc/diskdoctor/diskdoctor-v1.schema.json", "The JSON Schema of the report whose findings carry these rule ids."}}
	case " snapshot", " diff":
		return []manFile{{"/proc, /sys, /run/udev/data, /dev/disk", "What the probes read on a live machine; a snapshot records exactly the paths and command outputs they used."}}
	}
	return []manFile{{"/usr/share/doc/diskdoctor/", "The alert rules, the JSON Schema and the changelog."}}
}
