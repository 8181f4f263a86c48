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
