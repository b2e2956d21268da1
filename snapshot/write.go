package snapshot

import (
	"errors"
	"io"
	"strings"
	"time"

	"github.com/diskdoctor/diskdoctor/machine/archive"
)

// MaxMemberBytes is the largest member an archive may hold: a recorded
// file is cut to it, so that its own snapshot can be read back.
const MaxMemberBytes = archive.MaxMemberBytes

// ArchiveStats describes a written archive.
type ArchiveStats = archive.Stats

// WriteArchive writes the recording as a gzip-compressed tar in the fixture
// layout, with meta as diskdoctor-snapshot.yaml at its root.
func WriteArchive(w io.Writer, rec *Recording, meta []byte, mtime time.Time) (ArchiveStats, error) {
	return archive.Write(w, rec.members(meta), mtime)
}

// members is the recording's layout (rec.walk) as archive members.
func (rec *Recording) members(meta []byte) archive.Members {
	return func(yield func(archive.Member) error) error {
		return rec.walk(meta, func(e *Entry) error { return yield(e.member()) })
	}
}

// member is the entry as an archive member.
func (e *Entry) member() archive.Member {
	m := archive.Member{Name: e.Path, Data: e.Data, Link: e.Target}
	switch e.Type {
	case EntryDir:
		m.Type = archive.Dir
	case EntryLink:
		m.Type = archive.Symlink
	default:
		m.Type = archive.File
	}
	return m
}

// dropUnreadable leaves out the entries the archive's reader would refuse
// (archive.Check: a name too long or too deep, a link target too long) and
// lists each under Unreadable, once for an entry and everything beneath
// it: a snapshot writes only what --snapshot reads back (issue #26: a
// device 4,096 directories deep made an archive its reader refused).
func (rec *Recording) dropUnreadable() {
	kept, under := rec.Entries[:0], ""
	for _, e := range rec.Entries {
		err := archive.Check(e.member())
		switch {
		case err == nil:
			kept = append(kept, e)
			continue
		case under != "" && strings.HasPrefix(e.Path, under):
			continue
		}
		// Everything deeper than the reader's bound lies beneath its
		// first MaxDepth components: one message for all of it.
		under = e.Path + "/"
		if c := strings.Split(e.Path, "/"); len(c) > archive.MaxDepth {
			under = strings.Join(c[:archive.MaxDepth], "/") + "/"
		}
		var ae *archive.Error
		reason := err.Error()
		if errors.As(err, &ae) {
			reason = ae.Member + ": " + ae.Reason
		}
		rec.Unreadable = append(rec.Unreadable, reason+"; left out with what lies beneath it, since the snapshot's reader would refuse the archive")
	}
	clear(rec.Entries[len(kept):])
	rec.Entries = kept
}
