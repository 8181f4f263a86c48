package main

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcp-eval/mcp-eval/internal/mcptest"
	"github.com/mcp-eval/mcp-eval/internal/proc/proctest"
)

// TestMain lets the test binary play an HTTP MCP server for --server-start:
// with MCP_EVAL_TEST_SERVE=ADDR it serves the fixture there until killed.
func TestMain(m *testing.M) {
	if os.Getenv("MCP_EVAL_TEST_HTTP_ON_STDIO") != "" {
		// An HTTP server started as a stdio command: it logs its URL and
		// never reads stdin.
		os.Stderr.WriteString("listening on http://127.0.0.1:9/mcp\n")
		time.Sleep(60 * time.Second)
		os.Exit(0)
	}
	if os.Getenv("MCP_EVAL_TEST_SLEEP") != "" {
		time.Sleep(60 * time.Second)
		os.Exit(0)
	}
	if addr := os.Getenv("MCP_EVAL_TEST_SERVE"); addr != "" {
		if os.Getenv("MCP_EVAL_TEST_SERVE_FAIL") != "" {
			os.Stderr.WriteString("listen: address already in use\n")
			os.Exit(1)
		}
		if os.Getenv("MCP_EVAL_TEST_SETSID") != "" {
			// A child that leaves the process group and holds stdout.
			exe, _ := os.Executable()
			child := exec.Command(exe, "-test.run=^$")
			child.Env = append(os.Environ(), "MCP_EVAL_TEST_SLEEP=1", "MCP_EVAL_TEST_SERVE=")
			child.Stdout = os.Stdout
			proctest.Setsid(child)
			if err := child.Start(); err == nil {
				fmt.Fprintf(os.Stderr, "escapee %d\n", child.Process.Pid)
			}
		}
		if os.Getenv("MCP_EVAL_TEST_FLOOD") != "" {
			line := strings.Repeat("flood ", 1000) + "\n"
			for range 4000 { // 24 MB
				os.Stderr.WriteString(line)
			}
			os.Stderr.WriteString("last line of the flood\n")
		}
		_ = http.ListenAndServe(addr, mcptest.NewHandler(mcptest.Options{}))
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// freeAddr is a loopback address with a free port (freePort).
func freeAddr(t *testing.T) string {
	t.Helper()
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(freePort(t)))
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

// A --server-start server that leaves its process group (setsid) with a
// child holding its stdout: the run still ends promptly, the escapee is
// killed and named; a stderr flood leaves a capped server.log.
func TestServerStartHygiene(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("escapees are found through /proc")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	dir := t.TempDir()
	cmd := "MCP_EVAL_TEST_SETSID=1 MCP_EVAL_TEST_FLOOD=1 MCP_EVAL_TEST_SERVE=" + addr + " '" + exe + "' -test.run=^$"
	start := time.Now()
	code, stdout, stderr := runCLI(t, env(nil), "run", "--server-start", cmd, "--server-url", "http://"+addr+"/mcp",
		"--out", dir, "--runs", "1", "--quiet", "--layers", "conformance")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("run took %v", d)
	}
	log, err := os.ReadFile(filepath.Join(dir, "server.log"))
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	if i := bytes.Index(log, []byte("escapee ")); i < 0 {
		t.Fatalf("no escapee pid in server.log")
	} else {
		fmt.Sscanf(string(log[i:]), "escapee %d", &pid)
	}
	if !strings.Contains(stderr, "outside its process group; killed pid "+fmt.Sprint(pid)) {
		t.Errorf("stderr does not name escapee %d:\n%s", pid, stderr)
	}
	// Killed, it may linger a moment as a zombie until init reaps it.
	for deadline := time.Now().Add(3 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if proctest.State(pid) == "" {
			break
		}
		if time.Now().After(deadline) {
			proctest.Kill(pid)
			t.Errorf("escapee %d still running after the run (state %s)", pid, proctest.State(pid))
			break
		}
	}
	if len(log) > serverLogCap+1024 {
		t.Errorf("server.log is %d bytes, over the %d cap", len(log), serverLogCap)
	}
	if !bytes.Contains(log, []byte("server.log truncated")) || !bytes.Contains(log, []byte("last line of the flood")) {
		t.Errorf("server.log lacks the truncation note or the tail")
	}
}
