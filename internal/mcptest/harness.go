package mcptest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"testing"
)

// HTTP is a fixture served over Streamable HTTP for one test.
type HTTP struct {
	*Server
	// URL is the test server's base URL; every path serves the MCP
	// endpoint, so URL and URL+"/mcp" both work.
	URL string
	hs  *httptest.Server
}

// Close stops the server before the test ends (it is closed then anyway),
// for tests that prove nothing is contacted afterwards.
func (h *HTTP) Close() { h.hs.Close() }

// Serve starts the fixture with o on a loopback httptest server that is
// closed when the test ends.
func Serve(t testing.TB, o Options) *HTTP {
	t.Helper()
	s := NewHandler(o)
	hs := httptest.NewServer(s)
	t.Cleanup(hs.Close)
	return &HTTP{Server: s, URL: hs.URL, hs: hs}
}

// stdioEnv carries a stdio fixture's options (as JSON) from StdioCommand
// to the re-executed test binary's ServeStdioIfAsked.
const stdioEnv = "MCP_EVAL_MCPTEST_STDIO"

// StdioCommand returns the argv and environment that re-run the current
// test binary as a stdio MCP server with options o. The test binary's
// TestMain must call ServeStdioIfAsked first. Each process is one
// connection; a StateDir (a fresh temporary one when o has none) lets the
// processes of one test tell a first connection from a later one.
func StdioCommand(t testing.TB, o Options) (argv, env []string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatalf("mcptest: the test binary: %v", err)
	}
	if o.StateDir == "" {
		o.StateDir = t.TempDir()
	}
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatalf("mcptest: options: %v", err)
	}
	return []string{exe, "-test.run=^$"}, []string{stdioEnv + "=" + string(b)}
}

// Main is the TestMain of a package whose tests use StdioCommand: it
// serves the fixture when this process is one StdioCommand started, and
// otherwise runs the tests.
func Main(m *testing.M) {
	ServeStdioIfAsked()
	os.Exit(m.Run())
}

// ServeStdioIfAsked serves the fixture on stdin/stdout and exits when this
// process was started by StdioCommand; otherwise it returns at once. Call
// it first in TestMain.
func ServeStdioIfAsked() {
	spec, ok := os.LookupEnv(stdioEnv)
	if !ok {
		return
	}
	var o Options
	if err := json.Unmarshal([]byte(spec), &o); err != nil {
		fmt.Fprintf(os.Stderr, "mcptest: %s: %v\n", stdioEnv, err)
		os.Exit(2)
	}
	if err := NewHandler(o).ServeStdio(context.Background(), os.Stdin, os.Stdout); err != nil && !errors.Is(err, context.Canceled) {
		os.Exit(1)
	}
	os.Exit(0)
}
