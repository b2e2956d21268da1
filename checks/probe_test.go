package checks

import (
	"context"
	"sync"
	"testing"
	"time"
)

// Twice as many hung per-device commands as there are slots (smartctl on
// sixteen dying disks) end within one probe timeout plus slotHold, not in
// rounds of one timeout each; a command that answers keeps its slot only
// while it runs.
func TestHungCommandsGiveUpTheirSlots(t *testing.T) {
	const timeout = 500 * time.Millisecond
	env := newEnv(nil, Options{ProbeTimeout: timeout})
	hung := func(ctx context.Context) (int, error) {
		<-ctx.Done()
		return 0, ctx.Err()
	}
	start := time.Now()
	var wg sync.WaitGroup
	for range 2 * maxCommands {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := RunCommand(t.Context(), env, hung); err == nil {
				t.Error("a hung command answered")
			}
		}()
	}
	wg.Wait()
	if d := time.Since(start); d > timeout+slotHold+time.Second/2 {
		t.Errorf("%d hung commands took %s (probe timeout %s, slot hold %s)", 2*maxCommands, d, timeout, slotHold)
	}
	if len(env.cmdSlots) != 0 {
		t.Errorf("%d slots still held after every command ended", len(env.cmdSlots))
	}
	if v, err := RunCommand(t.Context(), env, func(context.Context) (int, error) { return 7, nil }); v != 7 || err != nil {
		t.Errorf("a command after them: %v, %v", v, err)
	}
}
