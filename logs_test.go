package main

import (
	"bufio"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"go.opentelemetry.io/otel"

	"github.com/mcp-eval/mcp-eval/app/apptest"
)

// charLengthServer answers every request with a JSON-RPC error that quotes
// the request's header values after accented text, its Content-Length
// counted in characters (as a server that measures a string, not its
// UTF-8 bytes, does): the client reads that many bytes, and the rest (the
// quoted headers) arrives on the connection after the response. Go's HTTP
// client logs those bytes ("Unsolicited response received on idle HTTP
// channel starting with …") through the standard logger.
func charLengthServer(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() {
				defer c.Close()
				br := bufio.NewReader(c)
				for {
					c.SetDeadline(time.Now().Add(30 * time.Second))
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					req.Body.Close()
					var echo []string
					for _, k := range slices.Sorted(func(yield func(string) bool) {
						for k := range req.Header {
							if !yield(k) {
								return
							}
						}
					}) {
						echo = append(echo, k+": "+req.Header.Get(k))
					}
					quoted := strings.Join(echo, "; ")
					body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"méthode inconnue %s reçu: %s"}}`,
						strings.Repeat("é", len(quoted)+8), quoted)
					fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", utf8.RuneCountInString(body), body)
				}
			})
		}
	})
	return "http://" + ln.Addr().String()
}

// lockedBuffer is stderr for a run whose HTTP connections may still log
// after it returned.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestGoLogsAreMasked: what net/http logs of a server's bytes after its
// response reaches stderr, and masked, for every source of a secret that
// a request carries: each run is made twice, with the value declared a
// secret and with the same value undeclared (the control, where stderr
// must show it, so that the test cannot pass by the log never arriving).
func TestGoLogsAreMasked(t *testing.T) {
	if testing.Short() {
		t.Skip("runs mcp-eval against a misframing server")
	}
	defer routeLogs(os.Stderr, nil)
	srv := charLengthServer(t)
	golden := filepath.Join(t.TempDir(), "tasks.yaml")
	if err := os.WriteFile(golden, []byte("- id: a\n  prompt: hi\n  expect_tool: null\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mcpArgs := []string{"conformance", "--server-url", srv + "/mcp", "--timeout", "5s"}
	modelArgs := []string{"run", "--layers", "behavior", "--models", "openai:echo", "--golden", golden, "--server-url", srv + "/mcp", "--timeout", "5s"}
	// Each case has a value of its own, and its control runs first: the
	// log sink masks every secret it was told of for the rest of the
	// process (a connection may log after its run).
	now := time.Now().UnixNano() // and of its own in each -count
	v1, v2, v3 := fmt.Sprintf("sk-live-Zq7x9Lm%d-1", now), fmt.Sprintf("sk-live-Zq7x9Lm%d-2", now), fmt.Sprintf("sk-live-Zq7x9Lm%d-3", now)
	cases := []struct {
		name              string
		args              []string
		v                 string
		masked            string            // what the declared run's log line shows
		declare, control  map[string]string // environment
		declArgs, ctlArgs []string
	}{
		{name: "--header Authorization: Bearer $VAR", args: mcpArgs, v: v1, masked: "Authorization: ***",
			declare: map[string]string{"T_TOKEN": v1}, declArgs: []string{"--header", "Authorization: Bearer $T_TOKEN"},
			control: map[string]string{"T_TOKEN": v1}, ctlArgs: []string{"--header", "X-Trace: Bearer " + v1}},
		{name: "--header X-Api-Key", args: mcpArgs, v: v2, masked: "X-Api-Key: ***",
			declArgs: []string{"--header", "X-Api-Key: " + v2}, ctlArgs: []string{"--header", "X-Trace: " + v2}},
		// The key is a secret whatever is done: no control run, the
		// masked echo in the line shows that it arrived.
		{name: "OPENAI_API_KEY", args: modelArgs, v: v3, masked: "Authorization: Bearer ***",
			declare: map[string]string{"OPENAI_API_KEY": v3, "OPENAI_BASE_URL": srv + "/v1"}},
	}
	for _, c := range cases {
		v := c.v
		for _, declared := range []bool{false, true} {
			if !declared && c.ctlArgs == nil {
				continue
			}
			name := c.name + map[bool]string{true: "/declared", false: "/control"}[declared]
			t.Run(name, func(t *testing.T) {
				env, args := c.control, append(slices.Clone(c.args), c.ctlArgs...)
				if declared {
					env, args = c.declare, append(slices.Clone(c.args), c.declArgs...)
				}
				// net/http logs the bytes only when its connection's read
				// loop looks at them while the connection is idle. Once the
				// response's body is read, the caller's next request can
				// take that idle connection first (the read loop then reads
				// the bytes as that request's malformed response, and logs
				// nothing): a race inside net/http's Transport that load
				// decides. A run that lost it is made again, a few times.
				var got string
				for attempt := 1; attempt <= 5; attempt++ {
					out := append(slices.Clone(args), "--out", filepath.Join(t.TempDir(), "out"))
					var stdout, stderr lockedBuffer
					run(t.Context(), out, apptest.Env(env), &stdout, &stderr)
					// The client logs from its connection's goroutine: wait for
					// the line (a bound for a log that never comes, not a speed).
					for deadline := time.Now().Add(10 * time.Second); !strings.Contains(stderr.String(), "Unsolicited response") && time.Now().Before(deadline); {
						time.Sleep(20 * time.Millisecond)
					}
					got = stderr.String()
					if strings.Contains(got, "Unsolicited response") {
						break
					}
					t.Logf("attempt %d: net/http logged nothing (its read loop lost the race for the idle connection)", attempt)
				}
				if !strings.Contains(got, "mcp-eval: log: Unsolicited response received on idle HTTP channel") {
					t.Fatalf("net/http logged nothing on stderr, so this tests nothing:\n%s", got)
				}
				if declared && (strings.Contains(got, v) || strings.Contains(got, v[len(v)/2:]) || !strings.Contains(got, c.masked)) {
					t.Errorf("stderr holds the secret:\n%s", got)
				}
				if !declared && !strings.Contains(got, v) {
					t.Errorf("control: the echo never reached stderr:\n%s", got)
				}
			})
		}
	}
}

// TestDependencyLogsAreMasked: the standard logger, and OpenTelemetry's
// error handler (which logs through it), write to the run's stderr,
// masked.
func TestDependencyLogsAreMasked(t *testing.T) {
	defer routeLogs(os.Stderr, nil)
	var stderr lockedBuffer
	v := fmt.Sprintf("sk-live-dependency-%d", time.Now().UnixNano())
	run(t.Context(), []string{"version"}, apptest.Env(map[string]string{"OPENAI_API_KEY": v}), &lockedBuffer{}, &stderr)
	log.Printf("a dependency says %s", v)
	otel.Handle(fmt.Errorf("export to https://collector.example failed: %q", "Bearer "+v))
	want := "mcp-eval: log: a dependency says ***\nmcp-eval: log: export to https://collector.example failed: \"Bearer ***\"\n"
	if got := stderr.String(); got != want {
		t.Errorf("stderr = %q, want %q", got, want)
	}
}
