package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// startedServer is an HTTP server mcp-eval launched with --server-start.
type startedServer struct {
	cmd  *exec.Cmd
	done chan struct{}
	err  error
	tail *tail
}

// startServer runs cmdline through the system shell (so users can write
// `npm start` or `PORT=8080 ./server`), then polls url until the server
// answers any HTTP request, the process exits, or timeout passes.
func startServer(ctx context.Context, cmdline, url string, timeout time.Duration, log io.Writer) (*startedServer, error) {
	cmd, err := serverStartCommand(cmdline, os.Getenv)
	if err != nil {
		return nil, err
	}
	s := &startedServer{cmd: cmd, done: make(chan struct{}), tail: &tail{}}
	cmd.Stdout = io.MultiWriter(log, s.tail)
	cmd.Stderr = io.MultiWriter(log, s.tail)
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

// stop ends the server: SIGTERM to its process group, then SIGKILL after
// five seconds.
func (s *startedServer) stop() {
	select {
	case <-s.done:
		killProcessGroup(s.cmd, false)
		return
	default:
	}
	killProcessGroup(s.cmd, true)
	select {
	case <-s.done:
	case <-time.After(5 * time.Second):
		killProcessGroup(s.cmd, false)
		<-s.done
	}
	killProcessGroup(s.cmd, false)
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
