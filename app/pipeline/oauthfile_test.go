//go:build unix

package pipeline_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
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

// TestOAuthAssertionFileNotAJWT: an assertion file that is no JWT (here
// what a symlink to /proc/self/environ gives: the environment, secrets
// and all) is refused at once with exit 2 naming the flag, without
// quoting it, and nothing is sent to the token endpoint.
func TestOAuthAssertionFileNotAJWT(t *testing.T) {
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		http.NotFound(w, r)
	}))
	defer srv.Close()
	const secret = "sk-proj-notajwt0123456789abcdef"
	for _, body := range []string{"OPENAI_API_KEY=" + secret + "\x00PATH=/usr/bin\x00", secret, "a.b", "a.b.c.d", ".b.c", "a.b+/.c"} {
		file := filepath.Join(t.TempDir(), "token.jwt")
		if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := runCommand(t, apptest.Env(nil), "conformance", "--out", t.TempDir(), "--server-url", srv.URL, "--oauth-assertion-file", file)
		if code != 2 {
			t.Fatalf("%q: exit %d, want 2\n%s\n%s", body, code, stdout, stderr)
		}
		apptest.MustContain(t, "stderr", stderr, "--oauth-assertion-file", file, "not a JWT")
		if strings.Contains(stdout+stderr, secret) {
			t.Errorf("%q: the file's content is quoted:\n%s", body, stderr)
		}
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("%d requests reached the server", n)
	}
}
