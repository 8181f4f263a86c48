// Package apptest holds what the tests of app/ (pipeline, action, config,
// initcmd) and the root package's tests of the binary share: the run's
// environment as a map, the module's root, the example server's build,
// reading a report back, free loopback ports, a fake GitHub API with an
// Action step's files, and protected servers (an echoing one behind
// oauthtest's authorization server, and the real Hydra and oidc-provider
// that .ci/install-deps.sh installs).
//
// It imports testing and is meant for _test.go files only. It sits with
// app/ because it imports what app/ does (report, the fixtures), never
// the other way round.
package apptest

import (
	"encoding/json"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcp-eval/mcp-eval/report"
)

// Env is a getenv that reads m (nil: an empty environment).
func Env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// MustContain reports each of wants that text (what it is) lacks.
func MustContain(t testing.TB, what, text string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(text, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, text)
		}
	}
}

// Root is the module's root directory (the one holding go.mod), found
// from the working directory up.
func Root(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if st, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil && st.Mode().IsRegular() {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the working directory")
		}
		dir = parent
	}
}

// AtRoot makes the module's root the working directory until the test
// ends, for a test that names the repository's files as a user at the
// checkout does (golden/tasks.yaml), and whose assertions quote them so.
func AtRoot(t *testing.T) {
	t.Helper()
	t.Chdir(Root(t))
}

// BuildExampleServer builds examples/weather-server into a temporary
// directory and returns the binary (skipped in -short mode).
func BuildExampleServer(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the example server")
	}
	bin := filepath.Join(t.TempDir(), "weather-server")
	build := exec.Command("go", "build", "-o", bin, "./examples/weather-server")
	build.Dir = Root(t)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build example server: %v\n%s", err, out)
	}
	return bin
}

// LoadReport reads the report.json at path.
func LoadReport(t testing.TB, path string) report.Report {
	t.Helper()
	var r report.Report
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// Sinks reads stdout, stderr and every file under out (by its path
// relative to out): every place a run writes to.
func Sinks(out, stdout, stderr string) map[string]string {
	sinks := map[string]string{"stdout": stdout, "stderr": stderr}
	filepath.WalkDir(out, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(path)
			rel, _ := filepath.Rel(out, path)
			sinks[rel] = string(b)
		}
		return nil
	})
	return sinks
}

// FreePort is a loopback port nothing listens on (at the time of asking).
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// NoServerURL is an MCP endpoint where nothing listens and nothing can
// come to listen while a test runs: port 1 is below every ephemeral port
// range, so no test of this or any other process on the machine is handed
// it (a port FreePort found free may be, the moment it is released).
const NoServerURL = "http://127.0.0.1:1/mcp"

// FreeAddr is a loopback address with a free port (FreePort), for a
// server the test then starts there.
func FreeAddr(t testing.TB) string {
	t.Helper()
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(FreePort(t)))
}

// NoModelCalls is a model endpoint that counts any request and refuses it:
// a dry run makes none.
func NoModelCalls(t testing.TB) (url string, calls *atomic.Int64) {
	calls = &atomic.Int64{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		http.Error(w, "a dry run calls no model", http.StatusTeapot)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, calls
}
