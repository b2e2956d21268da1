package machine

import (
	"flag"
)

// update is accepted by every package so that `go test ./... -update`
// works; this package has no golden files.
var _ = flag.Bool("update", false, "rewrite golden files")
