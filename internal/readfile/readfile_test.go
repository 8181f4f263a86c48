//go:build unix

package readfile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRead: a regular file comes back whole; what is not one (a FIFO with
// no writer, a device that never ends, a directory) and a file over the
// bound are refused at once, before a byte is read.
func TestRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "f.yaml")
	if err := os.WriteFile(file, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty.yaml")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path  string
		limit int64
		want  string // "" = the content
	}{
		{file, 10, ""},
		{empty, 10, ""},
		{file, 9, "larger than 9 bytes (10 bytes)"},
		{fifo, 10, "not a regular file (a named pipe)"},
		{"/dev/zero", 10, "not a regular file (a device)"},
		{dir, 10, "not a regular file (a directory)"},
		{filepath.Join(dir, "missing"), 10, "no such file or directory"},
	}
	for _, tt := range tests {
		start := time.Now()
		b, err := Read(tt.path, tt.limit)
		if d := time.Since(start); d > 30*time.Second { // a hang guard: a FIFO's read would block for ever
			t.Errorf("%s: %v to answer", tt.path, d)
		}
		if tt.want == "" {
			want, _ := os.ReadFile(tt.path)
			if err != nil || string(b) != string(want) {
				t.Errorf("%s: %q, %v", tt.path, b, err)
			}
			continue
		}
		if err == nil || !strings.Contains(Reason(err), tt.want) || strings.Contains(Reason(err), dir) {
			t.Errorf("%s: error %v, want %q without the path", tt.path, err, tt.want)
		}
	}
}

func TestSize(t *testing.T) {
	t.Parallel()
	for n, want := range map[int64]string{100: "100 bytes", 1 << 10: "1 KiB", 1536: "1.5 KiB", 8 << 20: "8 MiB", 9<<20 + 1<<19: "9.5 MiB"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestReadBlocked: a file whose read blocks (here a pipe no one writes, as
// /proc/kmsg is a "regular" file that does) is given up after Deadline with
// a message saying so, and a read in progress ends when CancelOn's channel
// closes (SIGINT, SIGTERM). Before: Read blocked for ever.
func TestReadBlocked(t *testing.T) {
	old := Deadline
	Deadline = 200 * time.Millisecond
	defer func() { Deadline = old }()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := readWithin(r, 0, 10); err == nil || !strings.Contains(err.Error(), "its read blocked for 200ms") {
		t.Errorf("blocked read: %v, want it given up", err)
	}

	Deadline = time.Hour
	r2, w2, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Close()
	done := make(chan struct{})
	CancelOn(done)
	defer interrupt.Store(nil)
	errc := make(chan error, 1)
	go func() { _, err := readWithin(r2, 0, 10); errc <- err }()
	close(done)
	select {
	case err := <-errc:
		if err == nil || !strings.Contains(err.Error(), "interrupted") {
			t.Errorf("interrupted read: %v", err)
		}
	case <-time.After(time.Minute): // a hang guard
		t.Fatal("the read did not end when interrupted")
	}
}

// TestReadSymlinkToKernelFile: a path that is a symlink to a kernel file
// whose read blocks is refused within Deadline. /proc/kmsg is readable by
// root alone, and reading it takes messages from the kernel's log, so the
// test runs only when asked (MCP_EVAL_TEST_KMSG=1).
func TestReadSymlinkToKernelFile(t *testing.T) {
	if os.Getenv("MCP_EVAL_TEST_KMSG") != "1" {
		t.Skip("reads /proc/kmsg (root, and it consumes the kernel log): set MCP_EVAL_TEST_KMSG=1")
	}
	link := filepath.Join(t.TempDir(), "golden.yaml")
	if err := os.Symlink("/proc/kmsg", link); err != nil {
		t.Fatal(err)
	}
	old := Deadline
	Deadline = time.Second
	defer func() { Deadline = old }()
	// The log may hold messages: the first read returns them, a later one
	// blocks.
	for range 3 {
		if _, err := Read(link, 1<<20); err != nil {
			if !strings.Contains(err.Error(), "its read blocked") {
				t.Errorf("error %v, want the blocked read named", err)
			}
			return
		}
	}
	t.Error("three reads of /proc/kmsg returned; want a blocked read given up")
}
