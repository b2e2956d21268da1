package rules

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/machine"
)

// recordedWithDatasheets copies a recorded machine and drops the given files
// into its etc/diskdoctor/datasheets.d, as an admin of that machine would.
func recordedWithDatasheets(t *testing.T, fixture string, files map[string]string) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "root")
	// cp -a keeps the recording's relative symlinks (sysfs is mostly links).
	if out, err := exec.Command("cp", "-a", filepath.Join("..", "fixtures", fixture), root).CombinedOutput(); err != nil {
		t.Fatalf("copy %s: %v\n%s", fixture, err, out)
	}
	dir := filepath.Join(root, DatasheetsDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

const labSA500 = `# our own fio runs of the SA500 behind the MicroServer's AHCI ports
models:
  - match: '^WDC WDS200T1R0A'
    product: WD Red SA500 2TB (lab figure)
    class: sata-ssd
    interface: sata
    seq_write_mbs: 410
    volatile_cache: true
    source: lab fio runs, datasheets.d
`

// The recorded MicroServer's own datasheets.d applies to its SA500 drives:
// the report names the admin's entry as the expectation, and --datasheets
// still wins over the directory.
func TestHostDatasheetsDir(t *testing.T) {
	root := recordedWithDatasheets(t, "hpe-microserver-writethrough", map[string]string{
		"50-lab.yaml": labSA500,
		// Not *.yaml: ignored, like a dpkg leftover.
		"50-lab.yaml.dpkg-old": "not: [valid",
		// Comments only (a shipped example): adds nothing, breaks nothing.
		"00-empty.yaml": "# models:\n",
	})
	host, err := machine.Recorded(root)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ds, err := LoadHostDatasheets(ctx, host, "")
	if err != nil {
		t.Fatal(err)
	}
	if d := ds.Lookup("WDC_WDS200T1R0A-68A4W0", "sata-ssd"); d.Source != "lab fio runs, datasheets.d" {
		t.Errorf("datasheets.d entry not used: got %q (%s)", d.Product, d.Source)
	}
	// Other models still come from the compiled-in table.
	if d := ds.Lookup("Samsung SSD 860 EVO 1TB", "sata-ssd"); !d.ModelEntry || !strings.Contains(d.Product, "860 EVO") {
		t.Errorf("built-in table lost: %+v", d)
	}

	// The whole pipeline on the recorded machine: the finding's datasheet
	// is the admin's.
	res, err := checks.Run(ctx, host, checks.Options{ProbeTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	engine, err := NewEngine(ds)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := engine.Build(res, root)
	if err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(js), "lab fio runs, datasheets.d") {
		t.Error("report does not cite the datasheets.d entry for the SA500 drives")
	}

	user := filepath.Join(t.TempDir(), "cli.yaml")
	if err := os.WriteFile(user, []byte(strings.ReplaceAll(labSA500, "lab fio runs, datasheets.d", "--datasheets file")), 0o644); err != nil {
		t.Fatal(err)
	}
	ds2, err := LoadHostDatasheets(ctx, host, user)
	if err != nil {
		t.Fatal(err)
	}
	if d := ds2.Lookup("WDC_WDS200T1R0A-68A4W0", "sata-ssd"); d.Source != "--datasheets file" {
		t.Errorf("--datasheets must take precedence over datasheets.d, got %s", d.Source)
	}
}

func TestHostDatasheetsDirErrors(t *testing.T) {
	ctx := context.Background()
	// No directory at all: the compiled-in table alone, no error.
	plain, err := machine.Recorded(filepath.Join("..", "fixtures", "blind-vm"))
	if err != nil {
		t.Fatal(err)
	}
	ds, err := LoadHostDatasheets(ctx, plain, "")
	if err != nil {
		t.Fatal(err)
	}
	base, _ := LoadDatasheets("")
	if len(ds.Models) != len(base.Models) {
		t.Errorf("%d models without datasheets.d, want %d", len(ds.Models), len(base.Models))
	}

	// A broken file is an error naming it, never silently skipped.
	root := recordedWithDatasheets(t, "blind-vm", map[string]string{"10-bad.yaml": "models:\n  - product: no match\n"})
	host, err := machine.Recorded(root)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LoadHostDatasheets(ctx, host, ""); err == nil || !strings.Contains(err.Error(), "/etc/diskdoctor/datasheets.d/10-bad.yaml") {
		t.Errorf("broken datasheets.d file: err = %v, want one naming the file", err)
	}

	// A hostile recording cannot make the doctor read a huge file.
	root = recordedWithDatasheets(t, "blind-vm", nil)
	f, err := os.Create(filepath.Join(root, DatasheetsDir, "big.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(maxDatasheetsBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	host, err = machine.Recorded(root)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LoadHostDatasheets(ctx, host, ""); err == nil || !strings.Contains(err.Error(), "more than a datasheet file") {
		t.Errorf("oversized datasheets.d file: err = %v", err)
	}
}

// The Debian package ships a commented template as a conffile: as shipped it
// adds nothing, and its example, uncommented, is a valid entry.
func TestShippedDatasheetTemplate(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "packaging", "datasheets.d", "local.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	ds, err := parseDatasheets(b)
	if err != nil || len(ds.Models)+len(ds.Classes) != 0 {
		t.Fatalf("as shipped: %v, %d models: it must parse and add nothing", err, len(ds.Models))
	}
	_, example, ok := strings.Cut(string(b), "\n# models:\n")
	if !ok {
		t.Fatal("no commented example (# models:) in the template")
	}
	var un strings.Builder
	un.WriteString("models:\n")
	for _, l := range strings.Split(strings.TrimSpace(example), "\n") {
		un.WriteString(strings.TrimPrefix(strings.TrimPrefix(l, "#"), " ") + "\n")
	}
	ds, err = parseDatasheets([]byte(un.String()))
	if err != nil || len(ds.Models) != 1 {
		t.Fatalf("the template's example, uncommented: %v, %d models\n%s", err, len(ds.Models), un.String())
	}
	if m := ds.Models[0]; !m.re.MatchString(NormalizeModel("WDC_WDS200T1R0A-68A4W0")) || m.SeqWriteMBs != 410 {
		t.Errorf("example entry: %+v", m)
	}
}
