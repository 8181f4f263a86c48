//go:build unix

package pipeline_test

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-eval/mcp-eval/app/apptest"
)

// TestOAuthAssertionFileNotRegular: --oauth-assertion-file naming a FIFO
// with no writer is refused at once with exit 2 naming the flag and what
// the path is (before: the read blocked for ever, past SIGTERM).
func TestOAuthAssertionFileNotRegular(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	fifo := filepath.Join(t.TempDir(), "token.jwt")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	type res struct {
		code           int
		stdout, stderr string
	}
	done := make(chan res, 1)
	go func() {
		code, stdout, stderr := runCommand(t, apptest.Env(nil), "conformance", "--out", t.TempDir(), "--server-url", srv.URL, "--oauth-assertion-file", fifo)
		done <- res{code, stdout, stderr}
	}()
	select {
	case r := <-done:
		if r.code != 2 {
			t.Fatalf("exit %d, want 2\n%s\n%s", r.code, r.stdout, r.stderr)
		}
		apptest.MustContain(t, "stderr", r.stderr, "--oauth-assertion-file", fifo, "not a regular file (a named pipe)")
	case <-time.After(2 * time.Minute): // a hang guard
		t.Fatal("the run still reads the FIFO after 2 minutes")
	}
}
