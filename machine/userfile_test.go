package machine

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReadTrustedFileRefusesWhatWouldHang: a FIFO named as --datasheets is
// refused at once, not read forever; a file over the limit is refused; a
// regular file is read.
func TestReadTrustedFileRefusesWhatWouldHang(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	done := make(chan error, 1)
	go func() {
		// Opening a FIFO for reading blocks until a writer comes: open it
		// non-blocking first, as ReadTrustedFile must.
		_, err := ReadTrustedFile(fifo, 1<<20, InvokerOwners())
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("FIFO: error %v", err)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("ReadTrustedFile hangs on a FIFO")
	}
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, make([]byte, 2048), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadTrustedFile(big, 1024, InvokerOwners()); err == nil || !strings.Contains(err.Error(), "larger than 1024 bytes") {
		t.Errorf("over the limit: error %v", err)
	}
	if b, err := ReadTrustedFile(big, 4096, InvokerOwners()); err != nil || len(b) != 2048 {
		t.Errorf("regular file: %d bytes, %v", len(b), err)
	}
}
