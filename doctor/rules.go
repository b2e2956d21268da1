package doctor

import (
	"context"
	"errors"
	"fmt"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/internal/suggest"
	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/rules"
)

// Rules are the built-in rules and the site's own (rules.d) of this
// machine, or of the recorded machine at root; refused are the site rule
// files that are not used (another user could have written them).
func Rules(ctx context.Context, root string) (rs []*rules.Rule, refused []checks.Skipped, err error) {
	if rs, err = rules.Load(); err != nil {
		return nil, nil, err
	}
	host := machine.Live()
	if root != "" {
		if host, err = machine.Recorded(root); err != nil {
			return nil, nil, err
		}
	}
	own, refused, err := rules.LoadSiteRules(ctx, host, rs)
	if err != nil {
		return nil, nil, err
	}
	return append(rs, own...), refused, nil
}

// FindRule is the rule of rs with id, or an error naming the closest id.
func FindRule(rs []*rules.Rule, id string) (*rules.Rule, error) {
	ids := make([]string, 0, len(rs))
	for _, r := range rs {
		if r.ID == id {
			return r, nil
		}
		ids = append(ids, r.ID)
	}
	msg := fmt.Sprintf("no rule %q (see 'diskdoctor rules')", id)
	if s := suggest.Closest(id, ids); s != "" {
		msg += fmt.Sprintf("; did you mean %q?", s)
	}
	return nil, errors.New(msg)
}
