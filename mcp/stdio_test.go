package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-eval/mcp-eval/internal/proc"
	"github.com/mcp-eval/mcp-eval/internal/proc/proctest"
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
	case "sleeper":
		time.Sleep(30 * time.Second)
		return
	case "slow-start":
		time.Sleep(1500 * time.Millisecond)
	case "banner":
		fmt.Fprintln(out, "weather server v1.2 starting")
		out.Flush()
	case "latin1":
		os.Stderr.Write([]byte("starting caf\xe9\n"))
	case "http-server":
		fmt.Fprintln(os.Stderr, "listening on http://127.0.0.1:8080/mcp")
		select {}
	case "http-listening":
		// An HTTP server that really listens, given as a stdio command.
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			os.Exit(5)
		}
		fmt.Fprintf(os.Stderr, "MCP server listening on http://%s/mcp.\n", l.Addr())
		_ = http.Serve(l, http.NotFoundHandler())
	case "docs-url":
		// A stdio server that names a URL on stderr and is slow to start.
		fmt.Fprintln(os.Stderr, "docs: https://example.com/weather-server")
		time.Sleep(1500 * time.Millisecond)
	}
	if mode == "legacy-once" {
		// A legacy server whose first process answers and whose later
		// ones never do.
		mode = "legacy"
		if _, err := os.Stat(os.Getenv("MCP_TEST_MARK")); err == nil {
			time.Sleep(time.Hour)
		}
		os.WriteFile(os.Getenv("MCP_TEST_MARK"), nil, 0o600)
	}
	n := 0
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
		n++
		if mode == "wrong-id-all" {
			// Every answer under the request's id + 1000.
			var id int
			_ = json.Unmarshal(req.ID, &id)
			req.ID = json.RawMessage(fmt.Sprint(id + 1000))
		}
		if req.Method != "server/discover" {
			switch mode {
			case "hang-tools":
				continue
			case "notes":
				// Chatter, never an answer.
				go func() {
					for {
						fmt.Fprintln(out, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"tick"}}`)
						out.Flush()
						time.Sleep(10 * time.Millisecond)
					}
				}()
				time.Sleep(time.Hour)
			case "drip":
				// The start of an answer, never ended.
				fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,`, req.ID)
				out.Flush()
				time.Sleep(time.Hour)
			case "orphan":
				fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%d,"result":{}}`+"\n", 1000+n)
				out.Flush()
				continue
			case "duplicate":
				reply(req.ID, `{"tools":[]}`)
			case "unparseable":
				fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"error":{"code":"bad","message":"m"}}`+"\n", req.ID)
				out.Flush()
				continue
			case "close-stdout":
				// Closes stdout and lingers (the spec lets a server shut
				// down by closing stdout; this one never exits).
				os.Stdout.Close()
				time.Sleep(30 * time.Second)
			case "setsid-child":
				// A child that leaves the process group; the server
				// itself answers on.
				exe, _ := os.Executable()
				child := exec.Command(exe, "-test.run=^$")
				child.Env = append(os.Environ(), "MCP_TEST_SERVER=sleeper")
				proctest.Setsid(child)
				if child.Start() == nil {
					fmt.Fprintf(os.Stderr, "child %d\n", child.Process.Pid)
				}
			case "fork-exit":
				// A child inherits stdout and outlives the server.
				exe, _ := os.Executable()
				child := exec.Command(exe, "-test.run=^$")
				child.Env = append(os.Environ(), "MCP_TEST_SERVER=sleeper")
				child.Stdout = os.Stdout
				if err := child.Start(); err != nil {
					os.Exit(9)
				}
				fmt.Fprintf(os.Stderr, "child %d\n", child.Process.Pid)
				os.Exit(3)
			}
		}
		switch mode {
		case "hang":
			continue
		case "deep":
			// Valid JSON, nested deeper than any decoder here reads.
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":%s%s}`+"\n", req.ID, strings.Repeat("[", 50_000), strings.Repeat("]", 50_000))
			out.Flush()
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
			if mode == "legacy" || mode == "exit-on-unknown" || mode == "no-discover" {
				fail(req.ID, -32601)
				continue
			}
			reply(req.ID, `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"ttlMs":0,"cacheScope":"public"}`)
		case "initialize":
			if mode == "no-discover" {
				// A modern server: initialize is a removed method.
				fail(req.ID, -32601)
				continue
			}
			initialized = true
			reply(req.ID, `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"fake","version":"1"}}`)
		case "tools/list":
			if mode == "latin1" {
				reply(req.ID, "{\"resultType\":\"complete\",\"tools\":[{\"name\":\"t\",\"description\":\"caf\xe9\",\"inputSchema\":{\"type\":\"object\"}}],\"ttlMs\":0,\"cacheScope\":\"public\"}")
				continue
			}
			reply(req.ID, `{"resultType":"complete","tools":[{"name":"t","inputSchema":{"type":"object"}}],"ttlMs":0,"cacheScope":"public"}`)
		default:
			fail(req.ID, -32601)
		}
		if mode == "banner" && req.Method == "tools/list" {
			fmt.Fprintln(out, "debug: answered")
			out.Flush()
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
		// A modern server without server/discover refuses initialize with
		// a modern error: modern, as over HTTP.
		{"no-discover", EraModern},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			t.Parallel()
			// The start-up budget covers a process start on a loaded
			// machine (the fallback and no-discover cases start more).
			c, err := Connect(context.Background(), fakeTarget(t, tt.mode), Options{Timeout: time.Second, StartTimeout: 60 * time.Second})
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
		// The lower bound is the assertion (both graces were waited); the
		// upper one is a hang guard, wide for a loaded machine.
		if d, want := time.Since(start), proc.StdinGrace+proc.TermGrace; d < want || d > want+proc.KillWait+30*time.Second {
			t.Errorf("Close took %v; want stdin close, %v, SIGTERM, %v, SIGKILL", d, proc.StdinGrace, proc.TermGrace)
		}
	})
}

func connectFake(t *testing.T, mode string, opts Options) *Client {
	t.Helper()
	if opts.StartTimeout == 0 {
		// Starting the test binary under -race on a loaded machine can
		// take longer than the short timeouts the tests use.
		opts.StartTimeout = 20 * time.Second
	}
	c, err := Connect(context.Background(), fakeTarget(t, mode), opts)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func kinds(as []Anomaly) map[string]int {
	m := map[string]int{}
	for _, a := range as {
		m[a.Kind]++
	}
	return m
}

// A hung server costs a few timeouts in all: after unresponsiveAfter
// timeouts in a row every request fails at once, naming the first.
func TestStdioUnresponsive(t *testing.T) {
	const timeout = 300 * time.Millisecond
	t.Run("orphans are signs of life", func(t *testing.T) {
		t.Parallel()
		// A server answering with wrong ids still talks: each request
		// times out (never hangs) and every answer is recorded.
		c := connectFake(t, "orphan", Options{Timeout: timeout})
		for i := range 4 {
			_, err := c.ListTools(context.Background())
			var te *TimeoutError
			if !errors.As(err, &te) {
				t.Errorf("request %d: %v, want a timeout", i, err)
			}
		}
		waitFor(t, func() bool { return kinds(c.Anomalies())[AnomalyOrphan] == 4 })
		if a := c.Anomalies()[0]; !strings.Contains(a.Detail, "a response to id 1002") {
			t.Errorf("orphan detail %q", a.Detail)
		}
		if err := c.Unresponsive(); err != nil {
			t.Errorf("Unresponsive() = %v for a server that answers", err)
		}
	})
	for _, mode := range []string{"hang-tools"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			c := connectFake(t, mode, Options{Timeout: timeout})
			var errs []error
			for range 10 {
				_, err := c.ListTools(context.Background())
				errs = append(errs, err)
			}
			// No time bound (the suite must pass on a loaded machine): the
			// ErrUnresponsive answers below are given before anything is
			// sent, so only the first unresponsiveAfter requests waited.
			for i, err := range errs {
				var te *TimeoutError
				if i < unresponsiveAfter && !errors.As(err, &te) {
					t.Errorf("request %d: %v, want a timeout", i, err)
				}
				if i >= unresponsiveAfter && !errors.Is(err, ErrUnresponsive) {
					t.Errorf("request %d: %v, want ErrUnresponsive", i, err)
				}
			}
			if err := c.Unresponsive(); err == nil || !strings.Contains(err.Error(), "server unresponsive since tools/list") {
				t.Errorf("Unresponsive() = %v", err)
			}
		})
	}
}

func TestStdioHygiene(t *testing.T) {
	t.Run("duplicate response", func(t *testing.T) {
		c := connectFake(t, "duplicate", Options{Timeout: 2 * time.Second})
		if _, err := c.ListTools(context.Background()); err != nil {
			t.Fatal(err)
		}
		waitFor(t, func() bool { return kinds(c.Anomalies())[AnomalyDuplicate] == 1 })
	})
	t.Run("banner before the first answer, noise after", func(t *testing.T) {
		c := connectFake(t, "banner", Options{Timeout: 2 * time.Second})
		if _, err := c.ListTools(context.Background()); err != nil {
			t.Fatal(err)
		}
		waitFor(t, func() bool { k := kinds(c.Anomalies()); return k[AnomalyBanner] == 1 && k[AnomalyNonJSON] == 1 })
		if a := c.Anomalies()[0]; !strings.Contains(a.Evidence, "weather server v1.2") {
			t.Errorf("banner evidence %q", a.Evidence)
		}
	})
	t.Run("unparseable answer is not a timeout", func(t *testing.T) {
		// A timeout far longer than the answer can take even on a loaded
		// machine, so that waiting for it is told from answering.
		c := connectFake(t, "unparseable", Options{Timeout: 60 * time.Second})
		start := time.Now()
		_, err := c.ListTools(context.Background())
		var pe *ProtocolError
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), "unparseable answer") {
			t.Fatalf("err = %v, want an unparseable-answer ProtocolError", err)
		}
		if time.Since(start) > 30*time.Second {
			t.Errorf("took %v: waited for a timeout", time.Since(start))
		}
		if kinds(c.Anomalies())[AnomalyUnparseable] != 1 {
			t.Errorf("anomalies %v", c.Anomalies())
		}
	})
}

func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	for range 100 {
		if ok() {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("condition not met within 2 s")
}

// A server that exits while a child it forked holds stdout is seen as
// exited at once (from the process, not from stdout closing), with a typed
// ExitError, and the child is killed with the process group.
func TestStdioExitWithChildHoldingStdout(t *testing.T) {
	c := connectFake(t, "fork-exit", Options{Timeout: 60 * time.Second}) // far over the exit's time, even loaded
	start := time.Now()
	_, err := c.ListTools(context.Background())
	var ee *ExitError
	if !errors.As(err, &ee) || !errors.Is(err, ErrClosed) {
		t.Fatalf("err = %v, want *ExitError", err)
	}
	if ee.State != "exit status 3" {
		t.Errorf("State = %q", ee.State)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("exit seen after %v; the child holding stdout hid it", d)
	}
	var pid int
	if _, err := fmt.Sscanf(c.Transport().(*Stdio).StderrTail(), "child %d", &pid); err != nil {
		t.Fatalf("no child pid in stderr %q", c.Transport().(*Stdio).StderrTail())
	}
	waitFor(t, func() bool { return proctest.Gone(pid) })
}

// Start-up is not answer time: a server slower to start than --timeout is
// given --start-timeout for its first answer, with progress reports.
func TestStdioStartTimeout(t *testing.T) {
	var waits []time.Duration
	var mu sync.Mutex
	old := waitingEvery
	waitingEvery = 200 * time.Millisecond
	defer func() { waitingEvery = old }()
	c := connectFake(t, "slow-start", Options{Timeout: 300 * time.Millisecond, StartTimeout: 10 * time.Second,
		Waiting: func(d time.Duration) { mu.Lock(); waits = append(waits, d); mu.Unlock() }})
	if c.Era() != EraModern {
		t.Fatalf("era %s (%s)", c.Era(), c.Probe().Reason)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(waits) < 3 {
		t.Errorf("Waiting called %d times, want progress every 200ms over 1.5 s", len(waits))
	}
	// Later requests have the ordinary timeout again.
	if c.Timeout() != 300*time.Millisecond {
		t.Errorf("Timeout() = %v", c.Timeout())
	}
}

// Nothing MCP at the target is one typed error, saying what came back.
func TestStdioNotMCP(t *testing.T) {
	_, err := Connect(context.Background(), fakeTarget(t, "http-server"), Options{Timeout: 300 * time.Millisecond, StartTimeout: 20 * time.Second})
	var nm *NotMCPError
	if !errors.As(err, &nm) {
		t.Fatalf("err = %v, want *NotMCPError", err)
	}
	if !strings.Contains(nm.Stderr, "listening on http://127.0.0.1:8080/mcp") {
		t.Errorf("NotMCPError.Stderr = %q, want the line naming the URL", nm.Stderr)
	}
	_, err = Connect(context.Background(), fakeTarget(t, "hang"), Options{Timeout: 300 * time.Millisecond})
	if !errors.As(err, &nm) || !strings.Contains(err.Error(), "no answer within 300ms") {
		t.Fatalf("err = %v, want *NotMCPError naming the timeouts", err)
	}
}

// An HTTP server given as a stdio command is told at once, not after the
// request timeout, when it answers HTTP at the loopback URL it printed,
// and the error quotes that URL (measured before the fix: a full --timeout, then the
// legacy fallback's another); a stdio server that names a URL elsewhere
// and is slow to answer is still waited for.
func TestStdioHTTPServerToldEarly(t *testing.T) {
	t.Run("listening", func(t *testing.T) {
		start := time.Now()
		_, err := Connect(context.Background(), fakeTarget(t, "http-listening"), Options{Timeout: 10 * time.Second, StartTimeout: 60 * time.Second})
		var nm *NotMCPError
		if !errors.As(err, &nm) || !strings.HasPrefix(nm.URL, "http://127.0.0.1:") || !strings.HasSuffix(nm.URL, "/mcp") {
			t.Fatalf("err = %v (%+v), want *NotMCPError with the printed URL", err, nm)
		}
		// Told by the probe of the printed URL, not by the 10 s of silence
		// (which say "wrote nothing on stdout within"): no time bound, so
		// that a loaded machine cannot fail it.
		if !strings.Contains(nm.Got, "an HTTP server answers at") {
			t.Errorf("told by %q after %v, want by the HTTP server's answer", nm.Got, time.Since(start))
		}
	})
	t.Run("docs url", func(t *testing.T) {
		c := connectFake(t, "docs-url", Options{Timeout: 5 * time.Second})
		if c.Era() != EraModern {
			t.Errorf("era %s (%s)", c.Era(), c.Probe().Reason)
		}
	})
}

func TestPrintedURL(t *testing.T) {
	for line, want := range map[string]string{
		"listening on http://127.0.0.1:3000/mcp":             "http://127.0.0.1:3000/mcp",
		"Server running at http://localhost:8080/.":          "http://localhost:8080/",
		"ready (http://[::1]:9000/mcp)":                      "http://[::1]:9000/mcp",
		"see https://example.com/docs, or http://0.0.0.0:1/": "http://0.0.0.0:1/",
		"no url here": "",
	} {
		if got := printedURL(line); got != want {
			t.Errorf("printedURL(%q) = %q, want %q", line, got, want)
		}
	}
}

// Cancelling the context (SIGINT) ends a request at once, not as a timeout.
func TestStdioCancel(t *testing.T) {
	c := connectFake(t, "hang-tools", Options{Timeout: 30 * time.Second})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	_, err := c.ListTools(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if time.Since(start) > 15*time.Second { // a hang guard, under the 30 s timeout
		t.Errorf("cancel took %v", time.Since(start))
	}
	if c.Unresponsive() != nil {
		t.Error("a cancellation counted against the server")
	}
}

// A child that leaves the process group (setsid) is still found at
// shutdown, by the tag it inherited, killed and named.
func TestStdioSetsidEscapee(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("processes are listed from /proc")
	}
	var mu sync.Mutex
	var named []int
	target := fakeTarget(t, "setsid-child")
	target.Command.Leftovers = func(pids []int) { mu.Lock(); named = append(named, pids...); mu.Unlock() }
	c, err := Connect(context.Background(), target, Options{Timeout: 5 * time.Second, StartTimeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListTools(context.Background()); err != nil {
		t.Fatal(err)
	}
	st := c.Transport().(*Stdio)
	var pid int
	waitFor(t, func() bool { _, err := fmt.Sscanf(st.StderrTail(), "child %d", &pid); return err == nil })
	if proctest.Gone(pid) {
		t.Fatalf("child %d not running before Close", pid)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if got := st.Leftovers(); len(got) != 1 || got[0] != pid {
		t.Errorf("Leftovers() = %v, want [%d]", got, pid)
	}
	mu.Lock()
	if len(named) != 1 || named[0] != pid {
		t.Errorf("Command.Leftovers was told %v, want [%d]", named, pid)
	}
	mu.Unlock()
	waitFor(t, func() bool { return proctest.State(pid) == "" })
}

// A server that closes stdout cannot answer any more: pending and later
// requests fail at once, not at their timeout.
func TestStdioClosedStdout(t *testing.T) {
	c := connectFake(t, "close-stdout", Options{Timeout: 60 * time.Second}) // far over the answer's time, even loaded
	start := time.Now()
	_, err := c.ListTools(context.Background())
	if !errors.Is(err, ErrClosed) || !strings.Contains(err.Error(), "closed its stdout") {
		t.Fatalf("err = %v, want ErrClosed naming stdout", err)
	}
	if _, err := c.ListTools(context.Background()); !errors.Is(err, ErrClosed) {
		t.Errorf("second request: %v", err)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("took %v", d)
	}
}

// Close of a server that exits on stdin EOF returns once it has exited:
// the stdout reader and the exit watcher do not wait out each other's
// grace (measured before the fix: a circular wait cost a fixed 200 ms at every close).
func TestStdioCloseWaitsNoGrace(t *testing.T) {
	old := drainGrace
	drainGrace = 60 * time.Second // what a circular wait would cost: far over a loaded machine's Close
	defer func() { drainGrace = old }()
	c := connectFake(t, "modern", Options{Timeout: 5 * time.Second})
	if _, err := c.ListTools(context.Background()); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > drainGrace/2 {
		t.Errorf("Close took %v for a server that exits on stdin EOF; want no wait for drainGrace (%v)", d, drainGrace)
	}
}

// A server that answers everything under a wrong id is judged, not waited
// for: its answer to the start-up probe, the only request in flight, is
// that request's answer (as an HTTP answer is to its POST), named as such,
// and from then on requests go one at a time so each answer is paired the
// same way (measured before the fix: the whole start-up budget was waited, then "the
// process wrote no JSON-RPC message on stdout").
func TestStdioWrongIDAtStart(t *testing.T) {
	start := time.Now()
	c := connectFake(t, "wrong-id-all", Options{Timeout: 60 * time.Second, StartTimeout: 60 * time.Second}) // far over the answers' time, even loaded
	if c.Era() != EraModern {
		t.Fatalf("era %s (%s)", c.Era(), c.Probe().Reason)
	}
	if r := c.Probe().Reason; !strings.Contains(r, "under id 1001, not the request's id 1") {
		t.Errorf("probe reason %q does not name the ids", r)
	}
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() { defer wg.Done(); _, errs[i] = c.ListTools(context.Background()) }()
	}
	wg.Wait()
	for i, err := range errs {
		var pe *ProtocolError
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), "does not match request id") {
			t.Errorf("request %d: %v, want the id mismatch", i, err)
		}
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("took %v; want the answers judged at once, not timed out", d)
	}
	if n := kinds(c.Anomalies())[AnomalyOrphan]; n != 5 {
		t.Errorf("%d orphans recorded, want 5 (the probe and four requests): %v", n, c.Anomalies())
	}
	if a := c.Anomalies()[0]; !strings.Contains(a.Detail, "the answer to id 1, the only request in flight, carries id 1001") {
		t.Errorf("first anomaly %q", a.Detail)
	}
}

// Pairing is for the start-up alone: a server that answers its first
// request correctly and then writes a response under an unknown id has
// that response recorded as an orphan, and the request in flight waits
// for its own answer.
func TestStdioOrphanAfterStartIsNoAnswer(t *testing.T) {
	c := connectFake(t, "orphan", Options{Timeout: 300 * time.Millisecond})
	_, err := c.ListTools(context.Background())
	var te *TimeoutError
	if !errors.As(err, &te) {
		t.Fatalf("err = %v, want a timeout (the orphan is no answer)", err)
	}
}

// What a crashed server's stderr says: the line naming the error, not the
// runtime's closing line (measured before the fix: "last stderr line: Node.js v20.20.2").
func TestStderrErrorLine(t *testing.T) {
	for _, tt := range []struct{ name, stderr, want string }{
		{"node", "node:fs:573\n  return binding.open(\n                 ^\n\nError: ENOENT: no such file or directory, open '/x/config.json'\n    at Object.openSync (node:fs:573:18)\n  code: 'ENOENT'\n}\n\nNode.js v20.20.2\n",
			"Error: ENOENT: no such file or directory, open '/x/config.json'"},
		{"node type error", "file:///s.mjs:3\nfoo.bar();\n    ^\n\nTypeError: foo.bar is not a function\n    at file:///s.mjs:3:5\n\nNode.js v22.1.0\n", "TypeError: foo.bar is not a function"},
		{"python", "Traceback (most recent call last):\n  File \"/s.py\", line 1, in <module>\n    import mcpx\nModuleNotFoundError: No module named 'mcpx'\n", "ModuleNotFoundError: No module named 'mcpx'"},
		{"go panic", "panic: runtime error: index out of range [3] with length 0\n\ngoroutine 1 [running]:\nmain.main()\n", "panic: runtime error: index out of range [3] with length 0"},
		{"tool", "loading\nfatal: config file not found\n", "fatal: config file not found"},
		{"no error named", "one\ntwo\nthree\nfour\n", "two / three / four"},
		{"nothing", "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tb := &tailBuffer{max: 4 << 10}
			tb.Write([]byte(tt.stderr))
			if got := tb.errorLine(); got != tt.want {
				t.Errorf("errorLine() = %q, want %q", got, tt.want)
			}
		})
	}
}

// A forced legacy connection (--protocol-version 2025-11-25) sends
// initialize first, so its answer is the process's start-up and gets
// --start-timeout too (before: --timeout, and a server slower to start was
// reported as no MCP server).
func TestStdioStartTimeoutForcedLegacy(t *testing.T) {
	c := connectFake(t, "slow-start", Options{Timeout: 300 * time.Millisecond, StartTimeout: 20 * time.Second, Version: LegacyVersion})
	if c.Era() != EraLegacy {
		t.Fatalf("era %s, want legacy", c.Era())
	}
	if c.Timeout() != 300*time.Millisecond {
		t.Errorf("Timeout() = %v after the handshake, want the ordinary one", c.Timeout())
	}
}
