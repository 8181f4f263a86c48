// Package proc starts a server process in its own process group and stops
// it, with everything it started, the way the MCP stdio transport says a
// client ends a server. The stdio transport (mcp.StartCommand) and
// --server-start both use it, so every server mcp-eval launches ends the
// same way. It imports only the standard library.
package proc

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"slices"
	"sync"
	"time"
)

// The shutdown sequence of
// https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/stdio
// (Shutdown), in summary: "The client closes stdin, waits, then escalates
// SIGTERM → SIGKILL (or TerminateProcess on Windows). The server SHOULD
// exit on stdin EOF." Each wait is bounded and short, so stopping a hung
// server costs at most StdinGrace + TermGrace before SIGKILL, never a sum
// of request timeouts. Signals go to the whole process group, so that
// wrappers such as `go run`, `npx` or `sh -c` do not leave the real server
// behind.
const (
	// StdinGrace is how long a server may take to exit after its stdin
	// closes.
	StdinGrace = 1 * time.Second
	// TermGrace is how long it may take after SIGTERM.
	TermGrace = 1 * time.Second
	// KillWait bounds the wait for the process to be reaped after SIGKILL.
	KillWait = 2 * time.Second
	// PipeGrace is exec.Cmd.WaitDelay: once the process has exited, a
	// descendant still holding one of its output pipes does not keep Wait
	// (and so the run) from ending.
	PipeGrace = 500 * time.Millisecond
)

// ErrNoExit is Stop's error for a process still running after SIGKILL
// and KillWait.
var ErrNoExit = errors.New("server process did not exit after SIGKILL")

// Process is a started process, the leader of its own process group, whose
// environment carries a tag that its descendants inherit (see tag.go).
type Process struct {
	cmd    *exec.Cmd
	tag    string
	exited chan struct{}
	err    error // Wait's; read after exited is closed

	mu   sync.Mutex
	left []int // tagged escapees killed so far
}

// Start starts cmd in a new process group, with a fresh tag added to its
// environment (os.Environ() when cmd.Env is nil) and PipeGrace as its
// WaitDelay, and reaps it in the background.
func Start(cmd *exec.Cmd) (*Process, error) {
	tag, tagEnv := newTag()
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Env = append(cmd.Env, tagEnv)
	cmd.WaitDelay = PipeGrace
	setGroup(cmd)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &Process{cmd: cmd, tag: tag, exited: make(chan struct{})}
	track(p) // until Kill finds it exited (live.go)
	go func() { p.err = cmd.Wait(); close(p.exited) }()
	return p, nil
}

// Pid is the process's pid, which is also its process group's id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Exited is closed once the process has been reaped.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// Err is what Wait returned (nil for exit status 0); call it only after
// Exited is closed.
func (p *Process) Err() error { return p.err }

// Kill sends SIGKILL to the process group (TerminateProcess to the process
// where there are no groups), then kills every process outside the group
// that still carries the tag (a child that called setsid), and returns
// those escapees' pids. Leftovers keeps them all.
func (p *Process) Kill() []int {
	signalGroup(p.cmd, false)
	left := killTagged(p.tag, p.Pid())
	p.mu.Lock()
	for _, pid := range left {
		if !slices.Contains(p.left, pid) {
			p.left = append(p.left, pid)
		}
	}
	p.mu.Unlock()
	select {
	case <-p.exited:
		// Reaped, and its group killed: nothing of it is left for
		// KillAll, whose kill of the group id could otherwise reach a new
		// group that reused the number.
		untrack(p)
	default:
	}
	return left
}

// Leftovers returns the pids of every escapee Kill has killed.
func (p *Process) Leftovers() []int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.left)
}

// Stop runs the shutdown sequence: close stdin (nil when the process has
// no stdin pipe, as --server-start's reads /dev/null: it has seen EOF from
// the start, and the first wait is skipped), wait StdinGrace, SIGTERM to
// the group, wait TermGrace, SIGKILL, wait KillWait. Whenever the leader
// has exited, the rest of its group and its tagged escapees are killed
// (Kill), so that nothing it started outlives it. Stop returns ErrNoExit
// when the process survived SIGKILL.
func (p *Process) Stop(stdin io.Closer) error {
	defer p.Kill()
	if stdin != nil {
		stdin.Close()
		if p.wait(StdinGrace) {
			return nil
		}
	}
	signalGroup(p.cmd, true)
	if p.wait(TermGrace) {
		return nil
	}
	signalGroup(p.cmd, false)
	if !p.wait(KillWait) {
		return ErrNoExit
	}
	return nil
}

// wait reports whether the process exits within d.
func (p *Process) wait(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.exited:
		return true
	case <-t.C:
		return false
	}
}
