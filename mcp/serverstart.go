package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
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

// StartServer runs argv (stdout and stderr to log) and polls url, every
// startPoll, until the server answers any HTTP request, the process exits,
// ctx ends or timeout passes. Whatever the outcome but success, the process
// is stopped before it returns. Errors quote the server's last line of
// output; on ctx's end the error wraps ctx.Err().
func StartServer(ctx context.Context, argv []string, url string, timeout time.Duration, log io.Writer) (*StartedServer, error) {
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
	if err := s.awaitAnswer(ctx, url, timeout); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

// awaitAnswer polls url until something answers there.
func (s *StartedServer) awaitAnswer(ctx context.Context, url string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	client := &http.Client{Timeout: pollTimeout}
	for {
		select {
		case <-s.p.Exited():
			return fmt.Errorf("the server exited before answering at %s (%v)%s", url, exitText(s.p.Err()), s.hint())
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
			return fmt.Errorf("nothing answered at %s within %v%s", url, timeout, s.hint())
		}
		time.Sleep(startPoll)
	}
}

// hint is the server's last line of output, for error messages.
func (s *StartedServer) hint() string {
	if l := s.tail.lastLine(); l != "" {
		return "; last output: " + l
	}
	return ""
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
