package raidctl

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/diskdoctor/diskdoctor/internal/parse"
)

// Patrol read is MegaRAID's background scan of every drive's media
// (Broadcom "StorCLI Reference Manual": show patrolread; MegaCli
// -AdpPR -Info). Neither "/call show all J" nor the MegaCli commands read
// above say whether one is running: "/call show all J" prints only its
// schedule ("Scheduled Tasks": "Patrol Read Reoccurrence", "Next Patrol
// Read launch", fixtures/megaraid-healthy-bbu), so the state is read from
// the patrol read command itself.

// patrolRunning reads the state word: "Active" is a patrol read running
// (storcli "PR Current State: Active 0", MegaCli "Current State:
// Active"); "Stopped" and "Ready" (Dell OpenManage Server Administrator
// User's Guide, "Patrol Read State": Ready, Active, Stopped) are not, nor
// is anything else.
func patrolRunning(state string) bool {
	f := strings.Fields(state)
	return len(f) > 0 && strings.EqualFold(f[0], "active")
}

// ParseStorcliPatrolRead adds a running patrol read, from the JSON of
// "/call show patrolread J" ({"Controllers": [{"Command Status", "Response
// Data": {"Controller Properties": [{"Ctrl_Prop", "Value"}]}}]}), to the
// controllers of inv as a Task of the controller. A nil output (the
// command failed or was not recorded) adds nothing; a controller that
// answered "Failure" (an IR or IT controller without patrol read) says
// nothing. A controller only this output names is added.
func ParseStorcliPatrolRead(inv *Inventory, b []byte) error {
	if b == nil {
		return nil
	}
	entries, err := storcliEntries(b)
	if err != nil {
		return err
	}
	for _, e := range entries {
		id := "/c" + strconv.Itoa(e.num)
		for _, p := range jsonList(e.data["Controller Properties"]) {
			if strings.TrimSpace(jsonText(p["Ctrl_Prop"])) != "PR Current State" {
				continue
			}
			state := strings.TrimSpace(jsonText(p["Value"]))
			if !patrolRunning(state) {
				continue
			}
			c := inventoryController(inv, id)
			if c == nil {
				return fmt.Errorf("%w: more than %d controllers", ErrParse, maxItems)
			}
			l := Line{Text: clip(id + " Controller Properties: PR Current State = " + state)}
			addPatrolRead(c, Task{Kind: TaskPatrolRead, Progress: progressValue(state, Value{Line: l}), Line: l})
		}
	}
	return nil
}

// ParseMegaCliPatrolRead adds a running patrol read, from the output of
// MegaCli -AdpPR -Info -aALL -NoLog ("Adapter 0: Patrol Read
// Information:", then "Current State: Active"), to the controllers of inv
// ("a0"). Line numbers are those of this output.
func ParseMegaCliPatrolRead(inv *Inventory, b []byte) error {
	if b == nil {
		return nil
	}
	if len(b) > MaxMegaCliOutput {
		return ErrMegaCliTooLarge
	}
	adapter := -1
	for _, l := range mcSplit(b) {
		if n, ok := mcAdapter(l); ok {
			adapter = n
			continue
		}
		if adapter < 0 || !l.hasKey || l.key != "current state" || !patrolRunning(l.val) {
			continue
		}
		c := inventoryController(inv, "a"+strconv.Itoa(adapter))
		if c == nil {
			return ErrMegaCliTooMany
		}
		addPatrolRead(c, Task{Kind: TaskPatrolRead, Progress: progressValue(l.val, Value{Line: l.line()}), Line: l.line()})
	}
	return nil
}

// addPatrolRead adds t unless c has a patrol read already: one patrol
// read runs per controller (it is controller-wide), so the first line
// wins and a hostile output repeating it cannot grow the task list.
func addPatrolRead(c *Controller, t Task) {
	for _, have := range c.Tasks {
		if have.Kind == TaskPatrolRead {
			return
		}
	}
	c.Tasks = append(c.Tasks, t)
}

// inventoryController finds the controller id of inv, adding it (in its
// place by number) when no other output named it; nil past maxItems.
func inventoryController(inv *Inventory, id string) *Controller {
	for _, c := range inv.Controllers {
		if c.ID == id {
			return c
		}
	}
	if len(inv.Controllers) >= maxItems {
		return nil
	}
	c := &Controller{ID: id}
	inv.Controllers = append(inv.Controllers, c)
	sort.SliceStable(inv.Controllers, func(i, j int) bool { return parse.NaturalLess(inv.Controllers[i].ID, inv.Controllers[j].ID) })
	return c
}
