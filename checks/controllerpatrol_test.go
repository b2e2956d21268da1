package checks_test

import (
	"context"
	"os"
	"slices"
	"testing"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/machine"
)

// patrolRunner answers storcli's patrol read command with a capture file
// instead of the recording's.
type patrolRunner struct {
	machine.Runner
	out []byte
}

func (p *patrolRunner) Run(ctx context.Context, argv []string) (machine.CmdResult, error) {
	if slices.Equal(argv, []string{"storcli64", "/call", "show", "patrolread", "J"}) {
		return machine.CmdResult{Stdout: p.out}, nil
	}
	return p.Runner.Run(ctx, argv)
}

// A running patrol read is background work of the controller, with the
// patrol read command and its state member as evidence; the same machine
// with a stopped patrol read (a real Stopped capture) has none.
func TestControllerPatrolRead(t *testing.T) {
	stopped, err := os.ReadFile("../probes/raidctl/testdata/patrolread/puppet-storcli-PERC-H710-Mini.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		out   []byte // nil: the recording's own (Active 0)
		tasks []string
	}{
		{"running", nil, []string{"patrol-read on /c0"}},
		{"stopped", stopped, []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := machine.Recorded("../fixtures/megaraid-patrol-read-running")
			if err != nil {
				t.Fatal(err)
			}
			if tc.out != nil {
				h = h.WrapRunner(func(r machine.Runner) machine.Runner { return &patrolRunner{Runner: r, out: tc.out} })
			}
			res, err := checks.Run(t.Context(), h, checks.Options{})
			if err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(res.Observations, func(o *checks.Observation) bool { return o.Check == "controller" && o.Subject == "/c0" })
			if i < 0 {
				t.Fatal("no observation of /c0")
			}
			o := res.Observations[i]
			got, _ := o.Get("ctl_tasks").([]string)
			if !slices.Equal(got, tc.tasks) {
				t.Fatalf("ctl_tasks %v, want %v", o.Get("ctl_tasks"), tc.tasks)
			}
			if len(tc.tasks) == 0 {
				return
			}
			want := checks.Evidence{Source: "storcli64 /call show patrolread J", Value: "/c0 Controller Properties: PR Current State = Active 0"}
			if ev := o.EvidenceOf("ctl_tasks"); !slices.Contains(ev, want) {
				t.Errorf("evidence %+v, want %+v", ev, want)
			}
		})
	}
}
