package report

import (
	"bytes"
	"os"
	"testing"
	"time"
)

func TestTerminalOfAPipe(t *testing.T) {
	var b bytes.Buffer
	if IsTerminal(&b) || TerminalWidth(&b) != 0 {
		t.Error("a buffer is not a terminal and has no width")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	t.Setenv("COLUMNS", "132")
	if IsTerminal(w) || TerminalWidth(w) != 0 {
		t.Error("a pipe is not a terminal: COLUMNS must not give it a width")
	}
}

func TestColorWanted(t *testing.T) {
	var b bytes.Buffer
	t.Setenv("NO_COLOR", "")
	for mode, want := range map[string]bool{"always": true, "never": false, "auto": false} {
		if got := ColorWanted(mode, &b); got != want {
			t.Errorf("ColorWanted(%q, a buffer) = %v, want %v", mode, got, want)
		}
	}
}

func TestSampleProgress(t *testing.T) {
	var b bytes.Buffer
	p := SampleProgress(&b, 5*time.Second)
	p(3*time.Second + 420*time.Millisecond)
	want := "\r\033[Ksampling /proc/diskstats, /proc/pressure, /proc/*/io: 1.6s left of 5s"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
	b.Reset()
	p(6 * time.Second)
	if want := "\r\033[Ksampling /proc/diskstats, /proc/pressure, /proc/*/io: 0s left of 5s"; b.String() != want {
		t.Errorf("past the window: got %q", b.String())
	}
}
