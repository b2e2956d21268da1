package buildinfo

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionFromBuildInfo(t *testing.T) {
	for _, c := range []struct {
		set  string
		bi   *debug.BuildInfo
		want string
	}{
		{"0.3.0+git20261130.5.a050807", &debug.BuildInfo{Main: debug.Module{Version: "v0.3.0"}}, "0.3.0+git20261130.5.a050807"},
		{"", &debug.BuildInfo{Main: debug.Module{Version: "v0.3.0"}}, "0.3.0"},
		{"", &debug.BuildInfo{Main: debug.Module{Version: "v0.3.1-0.20261130120000-a050807b1c2d+dirty"}}, "0.3.1-0.20261130120000-a050807b1c2d+dirty"},
		{"", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, Devel},
		{"", &debug.BuildInfo{}, Devel},
		{"", nil, Devel},
	} {
		if got := version(c.set, c.bi); got != c.want {
			t.Errorf("version(%q, %+v) = %q, want %q", c.set, c.bi, got, c.want)
		}
	}
}

// TestVersionScript runs packaging/version.sh, the one source of the
// version make build, make dist and the packages carry, in the places it is
// run from: a git checkout without a tag, on a tag, after it, on a release
// candidate, with uncommitted changes, a source tarball (VERSION, no .git),
// a tarball unpacked inside another repository, and neither.
func TestVersionScript(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	script, err := os.ReadFile("../../packaging/version.sh")
	if err != nil {
		t.Fatal(err)
	}
	// tree makes dir/packaging/version.sh, as in the repository.
	tree := func(dir string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(dir, "packaging"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "packaging", "version.sh"), script, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env := append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null",
		"GIT_AUTHOR_NAME=test", "GIT_AUTHOR_EMAIL=test@example.org", "GIT_COMMITTER_NAME=test", "GIT_COMMITTER_EMAIL=test@example.org")
	git := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	run := func(dir string) (string, error) {
		cmd := exec.Command("sh", filepath.Join(dir, "packaging", "version.sh"))
		cmd.Env = env
		out, err := cmd.Output()
		return strings.TrimSpace(string(out)), err
	}
	want := func(what, dir, pattern string) string {
		t.Helper()
		got, err := run(dir)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if !regexp.MustCompile("^" + pattern + "$").MatchString(got) {
			t.Errorf("%s: %q, want %s", what, got, pattern)
		}
		return got
	}

	repo := filepath.Join(t.TempDir(), "repo")
	tree(repo)
	git(repo, "init", "-q")
	git(repo, "add", ".")
	git(repo, "commit", "-q", "-m", "first")
	v0 := want("no tag", repo, `0\.0\.0~git[0-9]{8}\.[0-9a-f]{7}`)
	git(repo, "tag", "v0.3.0")
	v1 := want("on v0.3.0", repo, `0\.3\.0`)
	git(repo, "commit", "-q", "--allow-empty", "-m", "next")
	v2 := want("a commit after v0.3.0", repo, `0\.3\.0\+git[0-9]{8}\.1\.[0-9a-f]{7}`)
	git(repo, "tag", "v1.0.0-rc1")
	v3 := want("on v1.0.0-rc1", repo, `1\.0\.0~rc1`)
	if err := os.WriteFile(filepath.Join(repo, "packaging", "version.sh"), append(script, '\n'), 0o755); err != nil {
		t.Fatal(err)
	}
	want("uncommitted changes", repo, `1\.0\.0~rc1\.dirty`)
	// dpkg's order (rpm's is the same for ~ and +): before a tag, the tag,
	// after it; a release candidate before its release.
	if _, err := exec.LookPath("dpkg"); err == nil {
		for _, p := range [][2]string{{v0, v1}, {v1, v2}, {v3, "1.0.0"}} {
			if err := exec.Command("dpkg", "--compare-versions", p[0], "lt", p[1]).Run(); err != nil {
				t.Errorf("dpkg does not sort %s before %s", p[0], p[1])
			}
		}
	}

	tarball := filepath.Join(t.TempDir(), "diskdoctor-0.3.0")
	tree(tarball)
	if _, err := run(tarball); err == nil {
		t.Error("neither git nor VERSION: want a failure")
	}
	if err := os.WriteFile(filepath.Join(tarball, "VERSION"), []byte("0.3.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want("a tarball", tarball, `0\.3\.0`)
	// The same tarball unpacked inside the repository (untracked): its
	// VERSION, not the repository's describe.
	inner := filepath.Join(repo, "diskdoctor-0.3.0")
	tree(inner)
	if err := os.WriteFile(filepath.Join(inner, "VERSION"), []byte("0.3.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want("a tarball inside another repository", inner, `0\.3\.0`)
}
