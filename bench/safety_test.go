package bench

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/machine"
)

// cannedFio answers every fio call with one recorded output and exits 0,
// as fio does when it refuses a mounted device; it writes nothing.
type cannedFio struct {
	Replay
	out []byte
}

func (c *cannedFio) LookPath(name string) (string, error) { return name, nil }

func (c *cannedFio) Fio(context.Context, string, []string) ([]byte, []byte, error) {
	return c.out, []byte("fio: /dev/loop0 appears mounted, and 'allow_mounted_write' isn't set. Aborting.\n"), nil
}

func (c *cannedFio) RemoveStale(string, bool) ([]string, error) { return nil, nil }

// A fio job that moved no data is a failure: no rows, exit 3.
func TestZeroIOJobFails(t *testing.T) {
	out, err := os.ReadFile("testdata/fio-3.33-mounted-refused.json")
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Profile: "sync", Runtime: time.Second, Size: 16 * mib, Engine: "psync", Fio: "fio", MaxDepth: 1}
	res, err := Run(t.Context(), t.TempDir(), o, Env{Host: machine.Live(), Runner: &cannedFio{out: out}})
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != 3 {
		t.Fatalf("want exit 3, got %v (%v)", err, res)
	}
	if res != nil {
		t.Errorf("a result with rows: %+v", res.Rows)
	}
	if !strings.Contains(err.Error(), "fio did no I/O") {
		t.Errorf("error does not say why: %v", err)
	}
}
