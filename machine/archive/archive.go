// Package archive writes a recorded machine as a snapshot archive (a
// gzip-compressed tar in the fixture layout) and reads one back, whatever
// it holds: contained in a directory the caller owns, bounded in size,
// members and expansion, and refused whole when any part of it is corrupt.
//
// The format is the POSIX tar archive (IEEE Std 1003.1, pax utility:
// "ustar Interchange Format" and "pax Extended Header") in a gzip stream
// (RFC 1952). The writer produces only directories, regular files and
// symbolic links; the reader accepts only those.
package archive

import "fmt"

// Limits of what a snapshot archive may hold. A real snapshot is far
// below them; the caps only stop hostile or broken archives.
const (
	MaxMemberBytes = 64 << 20  // one member's content
	MaxTotalBytes  = 512 << 20 // all members' content
	MaxMembers     = 1_000_000 // members of one archive
	// MaxNameBytes is the longest member name: PATH_MAX (limits.h, 4096
	// on Linux), so that every name can be opened on the machine that
	// replays it.
	MaxNameBytes = 4096
	// MaxDepth bounds the components of a member's name. The deepest
	// sysfs paths a probe reads (a disk behind a SAS expander, its
	// partition's holders) have about 25; the bound makes every member's
	// cost (its parents resolved one component at a time, beneath the
	// unpack directory) a constant, and opening an archive linear in its
	// members.
	MaxDepth = 128
	// MaxRatio is the largest expansion of the compressed input tolerated
	// once more than ratioFloor bytes have been unpacked: a real snapshot
	// (small text files, tar headers) expands by a small fraction of it,
	// an archive bomb (zeros) by several times more.
	MaxRatio   = 200
	ratioFloor = 16 << 20
)

// Limits cap what Read and Verify accept; zero fields take the defaults.
type Limits struct {
	MaxMember  int64
	MaxTotal   int64
	MaxMembers int
	MaxRatio   float64
}

func (l Limits) withDefaults() Limits {
	if l.MaxMember <= 0 {
		l.MaxMember = MaxMemberBytes
	}
	if l.MaxTotal <= 0 {
		l.MaxTotal = MaxTotalBytes
	}
	if l.MaxMembers <= 0 {
		l.MaxMembers = MaxMembers
	}
	if l.MaxRatio <= 0 {
		l.MaxRatio = MaxRatio
	}
	return l
}

// maxQuoted is how many bytes of a bad name a refusal quotes.
const maxQuoted = 96

// Error is a refused archive, or a refused member of one.
type Error struct {
	Member string // at most maxQuoted bytes of the member's name
	Reason string
}

func (e *Error) Error() string {
	if e.Member == "" {
		return "snapshot archive: " + e.Reason
	}
	return fmt.Sprintf("snapshot archive: member %q: %s", e.Member, e.Reason)
}

func refuse(member, format string, args ...any) error {
	return &Error{Member: short(member), Reason: fmt.Sprintf(format, args...)}
}

// short is at most maxQuoted bytes of s (a hostile name can be megabytes).
func short(s string) string {
	if len(s) <= maxQuoted {
		return s
	}
	return s[:maxQuoted] + "…"
}
