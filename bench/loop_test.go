package bench

import (
	"strings"
	"testing"
)

// A loop device's figures are its backing file's through the page cache
// (unless it does direct I/O), and the reading says so instead of calling
// them the host's storage.
func TestLoopReadingNamesThePageCache(t *testing.T) {
	no, yes := false, true
	for _, c := range []struct {
		target   Facts
		want     []string
		unwanted string
	}{
		{Facts{Loop: "loop0"}, []string{"a loop device (loop0)", "through the page cache unless the loop device does direct I/O"}, "host's storage"},
		{Facts{Loop: "loop0", LoopBacking: "/tmp/ddbench-loop.img", LoopDirectIO: &no}, []string{"without direct I/O", "its backing file /tmp/ddbench-loop.img through the page cache", "RAM speed"}, "host's storage"},
		{Facts{Loop: "loop1", LoopDirectIO: &yes}, []string{"a loop device (loop1)", "with direct I/O"}, "page cache"},
		{Facts{}, []string{"a virtual disk: the figures are the host's storage"}, "loop"},
	} {
		o := &Result{Target: c.target, Datasheet: &Datasheet{Class: "virtual"}}
		got := strings.Join(datasheetReading(o), "\n")
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%+v: reading %q lacks %q", c.target, got, w)
			}
		}
		if strings.Contains(got, c.unwanted) {
			t.Errorf("%+v: reading %q says %q", c.target, got, c.unwanted)
		}
	}
}
