package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain re-runs the test binary as a fake stdio server when
// MCP_TEST_SERVER names a behaviour, so that the transport is tested
// against a real subprocess.
func TestMain(m *testing.M) {
	if mode := os.Getenv("MCP_TEST_SERVER"); mode != "" {
		fakeServer(mode)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func fakeServer(mode string) {
	out := bufio.NewWriter(os.Stdout)
	reply := func(id json.RawMessage, result string) {
		fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", id, result)
		out.Flush()
	}
	fail := func(id json.RawMessage, code int) {
		fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":"m"}}`+"\n", id, code)
		out.Flush()
	}
	switch mode {
	case "crash":
		fmt.Fprintln(os.Stderr, "fatal: config file not found")
		os.Exit(4)
	case "stubborn":
		signal.Ignore(syscall.SIGTERM)
		select {}
	}
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	initialized := false
	for {
		line, err := in.ReadBytes('\n')
		if err != nil {
			return
		}
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(line, &req) != nil || req.ID == nil {
			continue
		}
		switch mode {
		case "hang":
			continue
		case "garbage":
			fmt.Fprintln(out, "starting up... not json")
			out.Flush()
		case "huge":
			reply(req.ID, `{"x":"`+strings.Repeat("z", 2<<20)+`"}`)
			continue
		case "exit-on-unknown":
			if req.Method != "initialize" && !initialized {
				os.Exit(1)
			}
		}
		switch req.Method {
		case "server/discover":
			if mode == "legacy" || mode == "exit-on-unknown" {
				fail(req.ID, -32601)
				continue
			}
			reply(req.ID, `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"ttlMs":0,"cacheScope":"public"}`)
		case "initialize":
			initialized = true
			reply(req.ID, `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"fake","version":"1"}}`)
		case "tools/list":
			reply(req.ID, `{"resultType":"complete","tools":[{"name":"t","inputSchema":{"type":"object"}}],"ttlMs":0,"cacheScope":"public"}`)
		default:
			fail(req.ID, -32601)
		}
	}
}

func fakeTarget(t *testing.T, mode string) *CommandTarget {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return &CommandTarget{Command: Command{Argv: []string{exe, "-test.run=^$"}, Env: []string{"MCP_TEST_SERVER=" + mode}, MaxBytes: 1 << 20}}
}

func TestConnectStdio(t *testing.T) {
	tests := []struct {
		mode    string
		wantEra Era
	}{
		{"modern", EraModern},
		{"legacy", EraLegacy},
		// rmcp-style servers exit on an unknown pre-initialize request; the
		// fallback must start a fresh process (go-sdk#1177).
		{"exit-on-unknown", EraLegacy},
		// A server that never answers the probe is legacy on stdio.
		{"hang", EraUnknown},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			t.Parallel()
			c, err := Connect(context.Background(), fakeTarget(t, tt.mode), Options{Timeout: time.Second})
			if err != nil {
				t.Fatalf("Connect: %v", err)
			}
			defer c.Close()
			if c.Era() != tt.wantEra {
				t.Fatalf("era %s, want %s (%s)", c.Era(), tt.wantEra, c.Probe().Reason)
			}
			if tt.wantEra == EraUnknown {
				return
			}
			tools, err := c.ListTools(context.Background())
			if err != nil || len(tools) != 1 {
				t.Fatalf("ListTools = %v, %v", tools, err)
			}
		})
	}
}

func TestStdioBadServers(t *testing.T) {
	t.Run("crash at start is unreachable with the stderr line", func(t *testing.T) {
		_, err := Connect(context.Background(), fakeTarget(t, "crash"), Options{Timeout: 2 * time.Second})
		if !errors.Is(err, ErrUnreachable) {
			t.Fatalf("err = %v, want ErrUnreachable", err)
		}
		if !strings.Contains(err.Error(), "config file not found") {
			t.Errorf("error %q does not quote the server's stderr", err)
		}
	})
	t.Run("command not found", func(t *testing.T) {
		_, err := Connect(context.Background(), &CommandTarget{Command: Command{Argv: []string{"/nonexistent/mcp-server"}}}, Options{})
		if !errors.Is(err, ErrUnreachable) {
			t.Fatalf("err = %v, want ErrUnreachable", err)
		}
	})
	t.Run("non-JSON lines are recorded, answers still arrive", func(t *testing.T) {
		c, err := Connect(context.Background(), fakeTarget(t, "garbage"), Options{Timeout: 2 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if c.Era() != EraModern {
			t.Fatalf("era %s", c.Era())
		}
		if bad := c.Transport().(*Stdio).InvalidLines(); len(bad) == 0 {
			t.Error("garbage line not recorded")
		}
	})
	t.Run("oversized line", func(t *testing.T) {
		tr, err := StartCommand(context.Background(), fakeTarget(t, "huge").Command)
		if err != nil {
			t.Fatal(err)
		}
		defer tr.Close()
		ctx, cancel := WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, err = tr.Exchange(ctx, &Outgoing{ID: []byte("1"), Method: "tools/list", Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)})
		if !errors.Is(err, ErrTooLarge) {
			t.Fatalf("err = %v, want ErrTooLarge", err)
		}
	})
	t.Run("shutdown escalates to SIGKILL", func(t *testing.T) {
		tr, err := StartCommand(context.Background(), fakeTarget(t, "stubborn").Command)
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond) // let it install its signal handler
		start := time.Now()
		if err := tr.Close(); err != nil {
			t.Fatal(err)
		}
		if exited, _ := tr.Exited(); !exited {
			t.Fatal("process still running after Close")
		}
		if d := time.Since(start); d < 3*time.Second || d > 8*time.Second {
			t.Errorf("Close took %v; want stdin close, 2 s, SIGTERM, 2 s, SIGKILL", d)
		}
	})
}
