package pipeline_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcp-eval/mcp-eval/app/apptest"
)

// Nothing MCP to evaluate is exit 3 with one line saying what came back,
// and no check list.
func TestNothingToEvaluate(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	html := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, "<!doctype html><title>404 Not Found</title>")
	}))
	defer html.Close()
	auth := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="x"`)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer auth.Close()
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"wrong URL path", []string{"--server-url", html.URL + "/wrong"},
			[]string{"no MCP server at the target", "HTTP 404, text/html", "<!doctype html>", "check the path of --server-url"}},
		{"credentials wanted", []string{"--server-url", auth.URL},
			[]string{"unauthorized: the server wants credentials (see --header, --oauth-client-id or --oauth-federation): HTTP 401"}},
		{"an HTTP server given as --server-cmd", []string{"--server-cmd", "'" + exe + "' -test.run=^$", "--timeout", "300ms"},
			[]string{"the process printed \"listening on http://127.0.0.1:9/mcp\" on stderr", "did you mean --server-start"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("MCP_EVAL_TEST_HTTP_ON_STDIO", "1")
			args := append([]string{"conformance", "--out", filepath.Join(t.TempDir(), "o")}, tt.args...)
			code, stdout, stderr := runCommand(t, apptest.Env(nil), args...)
			if code != 3 {
				t.Fatalf("exit %d, want 3\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			// The progress line a slow connection earns ("connecting to
			// the server: 3s elapsed", measured under load) is not a
			// second message.
			if lines := len(messageLines(stderr)); lines != 1 {
				t.Errorf("stderr has %d lines besides progress, want one:\n%s", lines, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout is not empty (a check list?):\n%s", stdout)
			}
		})
	}
}

// progressLine is the status line internal/progress prints on a log after
// a silence: "mcp-eval: PHASE: [N/M unit (P%), ]Ds elapsed[, ≈ Ls left]".
var progressLine = regexp.MustCompile(`^mcp-eval: [^:]+: (\d+/\d+ [a-z ]+ \(\d+%\), )?[0-9hms.]+ elapsed(, ≈ [0-9hms.]+ left)?$`)

// messageLines is stderr's lines, the progress lines left out.
func messageLines(stderr string) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
		if !progressLine.MatchString(l) {
			out = append(out, l)
		}
	}
	return out
}
