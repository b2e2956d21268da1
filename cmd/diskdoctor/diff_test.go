package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/diff"
)

// changeKeys identifies each fact change with its values as JSON has them,
// so that the binary's output compares with the package's own diff.
func changeKeys(d *diff.Diff) []string {
	var out []string
	for _, c := range d.Changes {
		old, _ := json.Marshal(c.Old)
		nw, _ := json.Marshal(c.New)
		out = append(out, fmt.Sprintf("%s %s %s %s -> %s", c.Subject, c.Fact, c.Kind, old, nw))
	}
	sort.Strings(out)
	return out
}

func findingRefs(fs []diff.FindingRef) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Rule+" "+f.Severity+" "+f.Subject)
	}
	sort.Strings(out)
	return out
}

// upgradeDiff is the package's own diff of the upgrade pair (its exact
// content is TestDiffUpgradePair's business): what the binary must print.
func upgradeDiff(t *testing.T) (changes, appeared []string) {
	t.Helper()
	d, err := diff.Sides(t.Context(), filepath.Join(fixturesDir, "upgrade-before"), filepath.Join(fixturesDir, "upgrade-after"),
		diff.Options{ProbeTimeout: time.Second, Context: "auto"})
	if err != nil {
		t.Fatal(err)
	}
	// Through JSON, as the binary's output is read back.
	var back diff.Diff
	if err := json.Unmarshal(mustJSON(t, d), &back); err != nil {
		t.Fatal(err)
	}
	if len(back.Changes) != 6 || len(back.Findings.Appeared) != 3 {
		t.Fatalf("the upgrade pair: %d changes, %d findings appeared; want 6 and 3", len(back.Changes), len(back.Findings.Appeared))
	}
	return changeKeys(&back), findingRefs(back.Findings.Appeared)
}

// End to end with the binary: exit statuses, JSON, and a snapshot archive
// as one side (redacted: identity facts are not compared, so the diff is
// the same as between the directories).
func TestDiffBinary(t *testing.T) {
	want, wantFindings := upgradeDiff(t)
	stdout, stderr, code := runBinary(t, "diff", "fixtures/upgrade-before", "fixtures/upgrade-after", "--format", "json")
	if code != 1 {
		t.Fatalf("exit %d, want 1 (worse): %s", code, stderr)
	}
	var d diff.Diff
	if err := json.Unmarshal(stdout, &d); err != nil || d.Schema != diff.Schema {
		t.Fatalf("not diff JSON: %v\n%s", err, stdout)
	}
	if got := changeKeys(&d); !equalStrings(got, want) {
		t.Errorf("json changes %q", got)
	}
	if _, _, code := runBinary(t, "diff", "fixtures/upgrade-after", "fixtures/upgrade-before"); code != 0 {
		t.Errorf("better: exit %d, want 0", code)
	}
	for _, args := range [][]string{
		{"diff", "fixtures/upgrade-before", "fixtures/no-such"},
		{"diff", "fixtures/upgrade-before"},
		{"diff", "fixtures/upgrade-before", "README.md"},
		{"diff", "fixtures/upgrade-before", "fixtures/upgrade-after", "--format", "yaml"},
	} {
		if _, stderr, code := runBinary(t, args...); code != 3 || len(stderr) == 0 {
			t.Errorf("%v: exit %d, stderr %q; want 3 with a message", args, code, stderr)
		}
	}

	snap := filepath.Join(t.TempDir(), "before.tar.gz")
	if _, stderr, code := runBinary(t, "snapshot", "--root", "fixtures/upgrade-before", "-o", snap); code != 0 {
		t.Fatalf("snapshot: exit %d: %s", code, stderr)
	}
	stdout, stderr, code = runBinary(t, "diff", snap, "fixtures/upgrade-after", "--format", "json")
	if code != 1 {
		t.Fatalf("snapshot vs directory: exit %d: %s", code, stderr)
	}
	d = diff.Diff{}
	if err := json.Unmarshal(stdout, &d); err != nil {
		t.Fatal(err)
	}
	if got := changeKeys(&d); !equalStrings(got, want) || !d.Old.Redacted {
		t.Errorf("snapshot side: changes %q, old redacted %v", got, d.Old.Redacted)
	}
	if got := findingRefs(d.Findings.Appeared); !equalStrings(got, wantFindings) {
		t.Errorf("snapshot side: appeared %q", got)
	}
	// A replayed snapshot against itself as a directory: nothing.
	if _, stderr, code := runBinary(t, "diff", snap, snap); code != 0 {
		t.Errorf("snapshot against itself: exit %d: %s", code, stderr)
	}
}

// live against a snapshot of live: nothing got worse.
func TestDiffLive(t *testing.T) {
	snap := filepath.Join(t.TempDir(), "live.tar.gz")
	if _, stderr, code := runBinary(t, "snapshot", "-o", snap); code != 0 {
		t.Fatalf("snapshot: exit %d: %s", code, stderr)
	}
	stdout, stderr, code := runBinary(t, "diff", snap, "live")
	if code != 0 {
		t.Errorf("exit %d: %s\n%s", code, stderr, stdout)
	}
	t.Logf("%s", stdout)
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
