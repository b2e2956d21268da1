package rules

import (
	"errors"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/machine"
)

// refused records a datasheets file that was not used because someone
// other than root (or, for --datasheets, the person who ran the doctor)
// could have written it (machine.ReadTrusted): the run goes on with the
// other tables, and the report's skipped entry names the file and the
// commands that make it trusted. It reports whether err was such a
// refusal.
func (ds *Datasheets) refused(err error) bool {
	var u *machine.UntrustedError
	if !errors.As(err, &u) {
		return false
	}
	ds.Refused = append(ds.Refused, checks.Skipped{
		Check:  "datasheets",
		Reason: u.Error() + ": not used, another user could have written it",
		Hint:   "make it writable by root alone: " + u.Fix,
	})
	return true
}

// refusedFiles are the skipped entries of refused datasheets files.
type refusedFiles = []checks.Skipped
