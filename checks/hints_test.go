package checks

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/machine"
)

// A command that timed out: the hint begins with what to do, as it may be
// the report's first action ("First retry with --probe-timeout 20s; …").
func TestTimeoutHintStartsWithTheAction(t *testing.T) {
	_, hint, _ := explain("hdparm", fmt.Errorf("hdparm -W /dev/sdb: %w", machine.ErrTimeout), 5*time.Second)
	if !strings.HasPrefix(hint, "retry with --probe-timeout 20s") {
		t.Errorf("hint %q: want it to begin with the retry", hint)
	}
}
