package snapshot

import (
	"io"
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
		return rec.walk(meta, func(e *Entry) error {
			m := archive.Member{Name: e.Path, Data: e.Data, Link: e.Target}
			switch e.Type {
			case EntryDir:
				m.Type = archive.Dir
			case EntryLink:
				m.Type = archive.Symlink
			default:
				m.Type = archive.File
			}
			return yield(m)
		})
	}
}
