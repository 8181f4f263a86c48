package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"time"

	"github.com/mcp-eval/mcp-eval/internal/proc"
)

// StartedServer is a Streamable HTTP server that mcp-eval launched itself
// (--server-start), in its own process group.
type StartedServer struct {
	p    *proc.Process
	tail *tailBuffer
}

// pollTimeout bounds each request StartServer sends while it waits for the
// server to answer.
const pollTimeout = time.Second

// elsewhereGrace is how long a started server may answer only at the
// address it printed before that is the error.
var elsewhereGrace = 2 * time.Second

// StartWaiting is told, every few seconds while StartServer waits, how
// long it has waited and the last line of the server's output that names
// an http(s) URL ("" if none): a server listening elsewhere than the URL
// polled says so there.
type StartWaiting func(waited time.Duration, printed string)

// StartServer runs argv (stdout and stderr to log) and polls url, every
// startPoll, until the server answers any HTTP request, the process exits,
// ctx ends or timeout passes, calling waiting (when set) every few seconds
// meanwhile. Whatever the outcome but success, the process is stopped
// before it returns. Errors quote what the server's output says went wrong
// and the URL it printed; on ctx's end the error wraps ctx.Err().
func StartServer(ctx context.Context, argv []string, url string, timeout time.Duration, log io.Writer, waiting StartWaiting) (*StartedServer, error) {
	if len(argv) == 0 {
		return nil, errors.New("empty server command")
	}
	s := &StartedServer{tail: &tailBuffer{max: 4 << 10}}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout = io.MultiWriter(&validWriter{w: log}, s.tail)
	cmd.Stderr = cmd.Stdout
	p, err := proc.Start(cmd)
	if err != nil {
		return nil, err
	}
	s.p = p
	if err := s.awaitAnswer(ctx, url, timeout, waiting); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

// awaitAnswer polls url until something answers there.
func (s *StartedServer) awaitAnswer(ctx context.Context, url string, timeout time.Duration, waiting StartWaiting) error {
	start := time.Now()
	deadline := start.Add(timeout)
	next := waitingEvery
	var nextElsewhere time.Duration
	// A transport of its own, without keep-alive (each poll is one
	// request): http.DefaultTransport is shared with whatever else runs in
	// the process, which may close its connections under it.
	tr := &http.Transport{Proxy: http.ProxyFromEnvironment, DisableKeepAlives: true}
	defer tr.CloseIdleConnections()
	client := &http.Client{Timeout: pollTimeout, Transport: tr}
	for {
		select {
		case <-s.p.Exited():
			return fmt.Errorf("the server exited before answering at %s (%v)%s", url, exitText(s.p.Err()), s.hint(""))
		case <-ctx.Done():
			return fmt.Errorf("interrupted while starting the server: %w", ctx.Err())
		default:
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		if resp, err := client.Do(req); err == nil {
			resp.Body.Close()
			return nil
		}
		if time.Now().After(deadline) {
			el, line := s.elsewhere(url)
			return fmt.Errorf("nothing answered at %s within %v%s%s", url, timeout, el, s.hint(line))
		}
		// The server printed another address and answers there (a wrong
		// port or path host in --server-url): say so now, not after the
		// whole --start-timeout. Tried once a second after a grace, so a
		// server that prints before it listens everywhere is not judged.
		if waited := time.Since(start); waited >= elsewhereGrace && waited >= nextElsewhere {
			nextElsewhere = waited + time.Second
			if _, line := s.elsewhere(url); line != "" {
				if u := printedURL(line); u != "" && answersHTTP(ctx, u) {
					return fmt.Errorf("nothing answers at %s, but the server printed %q and answers at %s: is --server-url %s what you meant?", url, line, u, u)
				}
			}
		}
		if waited := time.Since(start); waiting != nil && waited >= next {
			waiting(waited, urlLine(s.tail.String()))
			next += waitingEvery
		}
		time.Sleep(startPoll)
	}
}

// hint is what the server's output says went wrong, for error messages,
// unless that is the line quoted already.
func (s *StartedServer) hint(quoted string) string {
	if l := s.tail.errorLine(); l != "" && l != quoted {
		return "; its output: " + l
	}
	return ""
}

// elsewhere quotes the server's line naming a URL when it is not the one
// polled (a wrong port in --server-url), for error messages, and returns
// that line.
func (s *StartedServer) elsewhere(url string) (string, string) {
	if l := urlLine(s.tail.String()); l != "" && !strings.Contains(l, strings.TrimSuffix(url, "/")) {
		return fmt.Sprintf("; the server printed %q", l), l
	}
	return "", ""
}

// Stop ends the server with the stdio shutdown sequence less its first
// step (the server's stdin is /dev/null, at EOF from the start): SIGTERM
// to the group, a wait, SIGKILL (proc.Process.Stop). It returns the pids
// of the processes it left outside its group, found by their tag and
// killed.
func (s *StartedServer) Stop() []int {
	_ = s.p.Stop(nil)
	return s.p.Leftovers()
}
