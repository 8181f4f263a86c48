package main

import (
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-eval/mcp-eval/internal/fixture"
)

// TestMain lets the test binary play an HTTP MCP server for --server-start:
// with MCP_EVAL_TEST_SERVE=ADDR it serves the fixture there until killed.
func TestMain(m *testing.M) {
	if addr := os.Getenv("MCP_EVAL_TEST_SERVE"); addr != "" {
		if os.Getenv("MCP_EVAL_TEST_SERVE_FAIL") != "" {
			os.Stderr.WriteString("listen: address already in use\n")
			os.Exit(1)
		}
		_ = http.ListenAndServe(addr, fixture.NewHandler(fixture.Options{}))
		os.Exit(1)
	}
	os.Exit(m.Run())
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func TestServerStart(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Run("starts, evaluates and stops the server", func(t *testing.T) {
		addr := freeAddr(t)
		dir := t.TempDir()
		cmd := "MCP_EVAL_TEST_SERVE=" + addr + " '" + exe + "' -test.run=^$"
		code, stdout, stderr := runCLI(t, env(nil), "run", "--server-start", cmd, "--server-url", "http://"+addr+"/mcp",
			"--out", dir, "--runs", "1", "--quiet")
		if code != 0 {
			t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
		}
		// The server is stopped at the end: nothing listens any more.
		deadline := time.Now().Add(3 * time.Second)
		for {
			c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
			if err != nil {
				break
			}
			c.Close()
			if time.Now().After(deadline) {
				t.Fatal("the started server is still listening after the run")
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
	t.Run("a server that exits is exit 3 with its last line", func(t *testing.T) {
		addr := freeAddr(t)
		cmd := "MCP_EVAL_TEST_SERVE=" + addr + " MCP_EVAL_TEST_SERVE_FAIL=1 '" + exe + "' -test.run=^$"
		code, _, stderr := runCLI(t, env(nil), "run", "--server-start", cmd, "--server-url", "http://"+addr+"/mcp",
			"--out", filepath.Join(t.TempDir(), "o"))
		if code != 3 || !strings.Contains(stderr, "address already in use") {
			t.Errorf("exit %d, want 3 quoting the server; stderr:\n%s", code, stderr)
		}
	})
	t.Run("nothing answers in time", func(t *testing.T) {
		addr := freeAddr(t)
		code, _, stderr := runCLI(t, env(nil), "run", "--server-start", "sleep 30", "--server-url", "http://"+addr+"/mcp",
			"--start-timeout", "500ms", "--out", filepath.Join(t.TempDir(), "o"))
		if code != 3 || !strings.Contains(stderr, "nothing answered") {
			t.Errorf("exit %d, want 3; stderr:\n%s", code, stderr)
		}
	})
}
