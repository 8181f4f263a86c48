package pipeline_test

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcp-eval/mcp-eval/app/apptest"
	"github.com/mcp-eval/mcp-eval/app/pipeline"
	"github.com/mcp-eval/mcp-eval/internal/proc/proctest"
)

func TestServerStart(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Run("starts, evaluates and stops the server", func(t *testing.T) {
		addr := apptest.FreeAddr(t)
		dir := t.TempDir()
		cmd := "MCP_EVAL_TEST_SERVE=" + addr + " '" + exe + "' -test.run=^$"
		code, stdout, stderr := runCommand(t, apptest.Env(nil), "run", "--server-start", cmd, "--server-url", "http://"+addr+"/mcp",
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
		addr := apptest.FreeAddr(t)
		cmd := "MCP_EVAL_TEST_SERVE=" + addr + " MCP_EVAL_TEST_SERVE_FAIL=1 '" + exe + "' -test.run=^$"
		code, _, stderr := runCommand(t, apptest.Env(nil), "run", "--server-start", cmd, "--server-url", "http://"+addr+"/mcp",
			"--out", filepath.Join(t.TempDir(), "o"))
		if code != 3 || !strings.Contains(stderr, "address already in use") {
			t.Errorf("exit %d, want 3 quoting the server; stderr:\n%s", code, stderr)
		}
	})
	t.Run("nothing answers in time", func(t *testing.T) {
		addr := apptest.FreeAddr(t)
		code, _, stderr := runCommand(t, apptest.Env(nil), "run", "--server-start", "sleep 30", "--server-url", "http://"+addr+"/mcp",
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
	addr := apptest.FreeAddr(t)
	dir := t.TempDir()
	cmd := "MCP_EVAL_TEST_SETSID=1 MCP_EVAL_TEST_FLOOD=1 MCP_EVAL_TEST_SERVE=" + addr + " '" + exe + "' -test.run=^$"
	start := time.Now()
	code, stdout, stderr := runCommand(t, apptest.Env(nil), "run", "--server-start", cmd, "--server-url", "http://"+addr+"/mcp",
		"--out", dir, "--runs", "1", "--quiet", "--layers", "conformance")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	// A hang guard (the escapee holding stdout would keep the run for
	// ever); the suite must pass on a loaded machine.
	if d := time.Since(start); d > 120*time.Second {
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
	if !strings.Contains(stderr, "outside its process group; killed pid "+fmt.Sprint(pid)+" ("+exe+" -test.run=^$)") {
		t.Errorf("stderr does not name escapee %d and its command:\n%s", pid, stderr)
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
	if len(log) > pipeline.ServerLogCap+1024 {
		t.Errorf("server.log is %d bytes, over the %d cap", len(log), pipeline.ServerLogCap)
	}
	if !bytes.Contains(log, []byte("server.log truncated")) || !bytes.Contains(log, []byte("last line of the flood")) {
		t.Errorf("server.log lacks the truncation note or the tail")
	}
}
