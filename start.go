package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcp-eval/mcp-eval/mcp"
)

// startedServer is an HTTP server mcp-eval launched with --server-start.
type startedServer struct {
	cmd  *exec.Cmd
	tag  string // mcp.NewProcessTag: finds what leaves the process group
	done chan struct{}
	err  error
	tail *tail
}

// Stop timings for --server-start: SIGTERM to the group, a bounded wait,
// SIGKILL, a bounded wait; WaitDelay so that a descendant holding the
// output pipes never keeps Wait (and so the run) from ending.
const (
	startTermGrace = 2 * time.Second
	startKillWait  = 2 * time.Second
	startPipeGrace = 500 * time.Millisecond
)

// startServer runs cmdline through the system shell (so users can write
// `npm start` or `PORT=8080 ./server`), then polls url until the server
// answers any HTTP request, the process exits, or timeout passes.
func startServer(ctx context.Context, cmdline, url string, timeout time.Duration, log io.Writer) (*startedServer, error) {
	cmd, err := serverStartCommand(cmdline, os.Getenv)
	if err != nil {
		return nil, err
	}
	tag, tagEnv := mcp.NewProcessTag()
	s := &startedServer{cmd: cmd, tag: tag, done: make(chan struct{}), tail: &tail{}}
	cmd.Env = append(os.Environ(), tagEnv)
	cmd.Stdout = io.MultiWriter(log, s.tail)
	cmd.Stderr = io.MultiWriter(log, s.tail)
	cmd.WaitDelay = startPipeGrace
	setProcessGroup(cmd)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("--server-start: %v", err)
	}
	go func() { s.err = cmd.Wait(); close(s.done) }()

	deadline := time.Now().Add(timeout)
	client := &http.Client{Timeout: time.Second}
	for {
		select {
		case <-s.done:
			return nil, fmt.Errorf("--server-start: the server exited before answering at %s (%v)%s", url, s.err, s.tail.hint())
		case <-ctx.Done():
			s.stop()
			return nil, errors.New("interrupted while starting the server")
		default:
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if resp, err := client.Do(req); err == nil {
			resp.Body.Close()
			return s, nil
		}
		if time.Now().After(deadline) {
			s.stop()
			return nil, fmt.Errorf("--server-start: nothing answered at %s within %v%s", url, timeout, s.tail.hint())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// stop ends the server: SIGTERM to its process group, SIGKILL after
// startTermGrace, then whatever still carries its tag outside the group (a
// child that called setsid). It returns the pids of those escapees.
func (s *startedServer) stop() []int {
	select {
	case <-s.done:
	default:
		killProcessGroup(s.cmd, true)
		select {
		case <-s.done:
		case <-time.After(startTermGrace):
		}
	}
	killProcessGroup(s.cmd, false)
	select {
	case <-s.done:
	case <-time.After(startKillWait):
	}
	return mcp.KillTagged(s.tag, s.cmd.Process.Pid)
}

// stopAndReport stops the server and names on w the processes it had left
// outside its process group.
func (s *startedServer) stopAndReport(w io.Writer) {
	if left := s.stop(); len(left) > 0 {
		fmt.Fprintf(w, "mcp-eval: warning: the --server-start server left %d process(es) outside its process group; killed pid %s\n",
			len(left), joinInts(left))
	}
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}

// tail keeps the last lines a started server printed, for error messages.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 4096 {
		t.buf = t.buf[len(t.buf)-4096:]
	}
	return len(p), nil
}

func (t *tail) hint() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := strings.TrimSpace(string(t.buf))
	if s == "" {
		return ""
	}
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return "; last output: " + s
}
