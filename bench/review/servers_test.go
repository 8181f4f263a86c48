package review

// The hostile servers: in this process over HTTP (a correct fixture,
// internal/mcptest, wrapped by one misbehaviour), and this test binary
// re-executed as a stdio server or as a --server-start HTTP server (a
// role), so that the processes a case starts carry its marker.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-eval/mcp-eval/internal/mcptest"
)

const roleEnv = "MCP_EVAL_REVIEW_ROLE"

func TestMain(m *testing.M) {
	if role := os.Getenv(roleEnv); role != "" {
		serveRole(role)
		os.Exit(0)
	}
	mcptest.ServeStdioIfAsked()
	os.Exit(m.Run())
}

// serve starts h on loopback for the case; it is closed when the case
// ends (without waiting on a handler a hostile case left hanging).
func (c *cc) serve(h http.Handler) string {
	hs := httptest.NewServer(h)
	c.cleanup = append(c.cleanup, func() {
		hs.CloseClientConnections()
		done := make(chan struct{})
		go func() { hs.Close(); close(done) }()
		select {
		case <-done:
		case <-time.After(3 * time.Second):
		}
	})
	return hs.URL
}

// fixture is a correct MCP server over HTTP.
func (c *cc) fixture(o mcptest.Options) string {
	return c.serve(mcptest.NewHandler(o)) + "/mcp"
}

// act is a misbehaviour: it answers one request (method, id as JSON) in
// its own way.
type act func(w http.ResponseWriter, r *http.Request, method, id string)

// hostile is the correct fixture but for the requests pick chooses (by
// default every request with an id but server/discover), which a answers.
func (c *cc) hostile(a act, pick func(method string) bool) string {
	fix := mcptest.NewHandler(mcptest.Options{})
	if pick == nil {
		pick = func(m string) bool { return m != "server/discover" }
	}
	return c.serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 4<<20))
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal(body, &req)
		if r.Method == http.MethodPost && req.ID != nil && pick(req.Method) {
			a(w, r, req.Method, string(req.ID))
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		fix.ServeHTTP(w, r)
	})) + "/mcp"
}

// stdioFixture is the --server-cmd of a correct stdio fixture with o, and
// the environment entry that carries o.
func (c *cc) stdioFixture(o mcptest.Options) (string, string) {
	argv, env := mcptest.StdioCommand(c.t, o)
	return strings.Join(argv, " "), env[0]
}

// role is the --server-cmd (or --server-start) that runs this binary in
// a role, and its environment entry.
func (c *cc) role(role string) (string, string) {
	exe, _ := os.Executable()
	return exe + " -test.run=^$", roleEnv + "=" + role
}

func (c *cc) file(name string, content []byte) string {
	p := filepath.Join(c.dir, "in", name)
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, content, 0o644); err != nil {
		panic(err)
	}
	c.inputs[p] = true
	return p
}

func (c *cc) fifo(name string) string {
	p := filepath.Join(c.dir, "in", name)
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		panic(err)
	}
	return p
}

func (c *cc) symlink(name, to string) string {
	p := filepath.Join(c.dir, "in", name)
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.Symlink(to, p); err != nil {
		panic(err)
	}
	return p
}

func freeAddr() string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// hijack takes the connection over, for answers net/http will not write.
func hijack(w http.ResponseWriter) (net.Conn, *bufio.ReadWriter) {
	conn, rw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(err)
	}
	return conn, rw
}

func flush(w http.ResponseWriter) {
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

// wait sleeps d unless the request ends first.
func wait(r *http.Request, d time.Duration) bool {
	select {
	case <-r.Context().Done():
		return false
	case <-time.After(d):
		return true
	}
}

// serveRole runs this process as a hostile server: "stdio:MODE" on
// stdin/stdout, "http:ADDR" the correct fixture over HTTP at ADDR (for
// --server-start), "http-sticky:ADDR" the same with a child that ignores
// SIGTERM.
func serveRole(role string) {
	kind, arg, _ := strings.Cut(role, ":")
	switch kind {
	case "http", "http-sticky":
		if kind == "http-sticky" {
			signal.Ignore(syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
			spawn(false, "sleep", "300")
		}
		srv := &http.Server{Addr: arg, Handler: mcptest.NewHandler(mcptest.Options{}), ReadHeaderTimeout: 5 * time.Second}
		_ = srv.ListenAndServe()
	case "stdio":
		serveStdioMode(arg)
	}
}

// spawn starts a child that inherits this process's stdout (and so holds
// the pipe mcp-eval reads), in this process group or (setsid) a session of
// its own.
func spawn(setsid bool, name string, args ...string) {
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if setsid {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	}
	_ = cmd.Start()
}

const discoverResult = `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{"listChanged":false}},"serverInfo":{"name":"review","version":"1"},"ttlMs":0,"cacheScope":"public"}`

// serveStdioMode is a stdio server, correct or misbehaving by mode. The
// modes that only misbehave as a process (children, signals) serve the
// correct fixture.
func serveStdioMode(mode string) {
	correct := func() {
		_ = mcptest.NewHandler(mcptest.Options{}).ServeStdio(context.Background(), os.Stdin, os.Stdout)
	}
	switch mode {
	case "child-holds-stdout":
		spawn(false, "sleep", "300")
		correct()
		return
	case "exit-child-holds-stdout":
		spawn(false, "sleep", "300")
		return
	case "grandchildren":
		spawn(false, "sh", "-c", "sleep 300 & sleep 300 & (sleep 300 &) ; wait")
		correct()
		return
	case "fifty-children":
		for range 50 {
			spawn(false, "sleep", "300")
		}
		correct()
		return
	case "setsid-child":
		spawn(true, "sleep", "300")
		correct()
		return
	case "setsid-clean-env":
		// A daemon that leaves the session and clears its environment:
		// only its command line still carries the case's marker.
		spawn(true, "env", "-i", "/bin/sh", "-c", "while :; do sleep 1; done; : "+os.Getenv(markEnv))
		correct()
		return
	case "ignore-sigterm":
		signal.Ignore(syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
		correct()
		return
	case "ignore-sigterm-hang":
		signal.Ignore(syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	case "stderr-flood":
		go func() {
			line := bytes.Repeat([]byte("noise on stderr "), 64)
			for i := 0; i < 100000; i++ {
				if _, err := os.Stderr.Write(line); err != nil {
					return
				}
			}
		}()
		correct()
		return
	case "stderr-secrets":
		fmt.Fprintf(os.Stderr, "fatal: cannot connect with key=%s svc=%s (b64 %s)\n", os.Getenv("OPENAI_API_KEY"), os.Getenv("R27_SVC"),
			b64("user:"+os.Getenv("OPENAI_API_KEY")))
		os.Exit(1)
	case "stderr-secrets-serving":
		fmt.Fprintf(os.Stderr, "debug: env OPENAI_API_KEY=%s R27_SVC=%q hex=%x\n", os.Getenv("OPENAI_API_KEY"), os.Getenv("R27_SVC"), os.Getenv("R27_SVC"))
		correct()
		return
	case "exit-1":
		fmt.Fprintln(os.Stderr, "server: configuration missing")
		os.Exit(1)
	case "silent":
		time.Sleep(300 * time.Second)
		return
	case "close-stdout":
		os.Stdout.Close()
		time.Sleep(300 * time.Second)
		return
	case "banner":
		fmt.Println("Weather server v1.2 starting…")
		fmt.Println("Listening on stdio")
		correct()
		return
	case "garbage-first":
		os.Stdout.Write([]byte("\x00\xff\xfe garbage \x1b[31m\n{not json\n"))
	}
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := os.Stdout
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
		id := string(req.ID)
		if req.Method == "server/discover" {
			switch mode {
			case "deep-discover":
				fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":%s%s}`+"\n", id, strings.Repeat("[", 50000), strings.Repeat("]", 50000))
			case "crlf":
				fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":%s}`+"\r\n", id, discoverResult)
			case "bom":
				fmt.Fprintf(out, "\ufeff"+`{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", id, discoverResult)
			case "lsp-framing":
				body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, id, discoverResult)
				fmt.Fprintf(out, "Content-Length: %d\r\n\r\n%s", len(body), body)
			default:
				fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", id, discoverResult)
			}
			continue
		}
		switch mode {
		case "garbage", "garbage-first":
			out.Write([]byte("\x00\xff garbage " + strings.Repeat("#", 100) + "\n"))
		case "no-newline":
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[],"resultType":"complete","ttlMs":0,"cacheScope":"public"}}`, id)
		case "invalid-utf8":
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"t","description":"bad \xff\xfe \xc0\xaf","inputSchema":{"type":"object"}}],"resultType":"complete","ttlMs":0,"cacheScope":"public"}}`+"\n", id)
		case "nul-bytes":
			fmt.Fprintf(out, "\x00\x00"+`{"jsonrpc":"2.0","id":%s,"result":{}}`+"\x00\n", id)
		case "dup-keys":
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[],"resultType":"complete","ttlMs":1e400,"ttlMs":0,"cacheScope":"public"}}`+"\n", id)
		case "control-chars":
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"evil\u001b[2J\u0007\u202etool","description":"clears \u001b]0;pwned\u0007 the screen \u202e","inputSchema":{"type":"object"}}],"resultType":"complete","ttlMs":0,"cacheScope":"public"}}`+"\n", id)
		case "exit-after-discover":
			os.Exit(0)
		case "crlf", "bom", "lsp-framing", "deep-discover":
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}`+"\r\n", id)
		case "ignore-sigterm-hang":
			// no answer, and SIGTERM ignored
		}
	}
}
