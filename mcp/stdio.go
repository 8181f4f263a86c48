package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// Command describes a server to launch as a subprocess speaking stdio.
type Command struct {
	// Argv is the program and its arguments.
	Argv []string
	// Env is added to the environment the server inherits.
	Env []string
	// Dir is the working directory; empty means the current one.
	Dir string
	// Stderr receives the server's stderr (free-form logging, which the spec
	// says does not imply an error); nil discards it.
	Stderr io.Writer
	// MaxBytes caps one line on stdout; 0 means DefaultMaxMessageBytes.
	MaxBytes int64
	// Observer, if set, is told about every exchange.
	Observer Observer
}

func (c Command) String() string { return strings.Join(c.Argv, " ") }

// Stdio is the stdio transport (basic/transports/stdio.mdx): the server is a
// subprocess, and each message is one line of UTF-8 JSON on its stdin or
// stdout. Requests are correlated with responses by id, so several may be in
// flight at once.
type Stdio struct {
	cmd      *exec.Cmd
	stdin    io.WriteCloser
	observer Observer
	stderr   *tailBuffer

	writeMu sync.Mutex

	mu       sync.Mutex
	pending  map[string]chan *Message
	orphans  []*Message
	requests []*Message // server-to-client requests (a method and an id)
	notes    []*Message // notifications from the server
	invalid  []string
	closing  bool
	exitErr  error
	done     chan struct{} // closed when stdout ends and the process is reaped
	closeMu  sync.Mutex
	closeErr error
	closed   bool
}

var _ Transport = (*Stdio)(nil)

// maxKept bounds the orphans and invalid lines remembered.
const maxKept = 256

// StartCommand launches the server. The context bounds only the start; the
// process lives until Close.
func StartCommand(ctx context.Context, c Command) (*Stdio, error) {
	if len(c.Argv) == 0 {
		return nil, errors.New("empty server command")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	cmd := exec.Command(c.Argv[0], c.Argv[1:]...)
	cmd.Dir = c.Dir
	cmd.Env = append(os.Environ(), c.Env...)
	setProcessGroup(cmd)
	s := &Stdio{
		cmd:      cmd,
		observer: c.Observer,
		stderr:   &tailBuffer{max: 4 << 10},
		pending:  map[string]chan *Message{},
		done:     make(chan struct{}),
	}
	if c.Stderr != nil {
		cmd.Stderr = io.MultiWriter(s.stderr, c.Stderr)
	} else {
		cmd.Stderr = s.stderr
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("server command: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("server command: %w", err)
	}
	s.stdin = stdin
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%w: start %q: %v", ErrUnreachable, c.Argv[0], err)
	}
	limit := c.MaxBytes
	if limit <= 0 {
		limit = DefaultMaxMessageBytes
	}
	go s.readLoop(stdout, limit)
	return s, nil
}

func (s *Stdio) readLoop(stdout io.Reader, limit int64) {
	br := bufio.NewReaderSize(stdout, 64<<10)
	var readErr error
	for {
		line, err := readStdioLine(br, limit)
		if len(bytes.TrimSpace(line)) > 0 {
			s.deliver(line)
		}
		if err != nil {
			if errors.Is(err, errLimit) {
				readErr = fmt.Errorf("%w: a line on stdout exceeds %d bytes", ErrTooLarge, limit)
				s.note(func() { s.invalid = appendCapped(s.invalid, readErr.Error()) })
				// The framing is lost: nothing after this can be trusted.
				s.killGroup()
			}
			break
		}
	}
	// Drain so the process is not blocked on a full pipe while we reap it.
	go io.Copy(io.Discard, stdout) //nolint:errcheck
	waitErr := s.cmd.Wait()
	s.mu.Lock()
	switch {
	case readErr != nil:
		s.exitErr = readErr
	case s.closing:
		s.exitErr = ErrClosed
	default:
		s.exitErr = fmt.Errorf("%w: server process exited (%v)%s", ErrClosed, exitText(waitErr), s.stderr.hint())
	}
	for k, ch := range s.pending {
		close(ch)
		delete(s.pending, k)
	}
	s.mu.Unlock()
	close(s.done)
}

func exitText(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}

func (s *Stdio) note(f func()) {
	s.mu.Lock()
	f()
	s.mu.Unlock()
}

func appendCapped[T any](xs []T, x T) []T {
	if len(xs) >= maxKept {
		return xs
	}
	return append(xs, x)
}

func (s *Stdio) deliver(line []byte) {
	m, err := ParseMessage(line)
	if err != nil {
		s.note(func() {
			s.invalid = appendCapped(s.invalid, fmt.Sprintf("stdout line is not a JSON-RPC message (%v): %s", err, truncate(string(line), 200)))
		})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !m.IsResponse() {
		// Requests from the server are kept for the checks (2026-07-28 has
		// none); request-scoped notifications (progress, log) are not used
		// by any layer yet and are dropped.
		if m.IsRequest() {
			s.requests = appendCapped(s.requests, m)
		}
		if m.IsNotification() {
			s.notes = appendCapped(s.notes, m)
		}
		return
	}
	key := idKey(m.ID)
	if ch, ok := s.pending[key]; ok && m.ID != nil {
		delete(s.pending, key)
		ch <- m
		return
	}
	s.orphans = appendCapped(s.orphans, m)
}

// Exchange implements Transport. A notification (out.ID nil) returns as
// soon as it is written.
func (s *Stdio) Exchange(ctx context.Context, out *Outgoing) (x *Exchange, err error) {
	start := time.Now()
	x = &Exchange{Sent: out.Body}
	defer func() {
		x.Duration = time.Since(start)
		if s.observer != nil {
			n := 0
			if x.Response != nil {
				n = len(x.Response.Raw)
			}
			s.observer.RequestDone(out.Method, out.Name, x.Duration, n, err)
		}
	}()
	if bytes.ContainsAny(out.Body, "\n\r") {
		// Messages MUST NOT contain embedded newlines on stdio; JSON encoding
		// never produces raw ones, so only a hand-made probe could.
		return x, errors.New("stdio message contains a newline")
	}
	var ch chan *Message
	if out.ID != nil {
		ch = make(chan *Message, 1)
		key := idKey(out.ID)
		s.mu.Lock()
		if s.exitErr != nil {
			err := s.exitErr
			s.mu.Unlock()
			return x, err
		}
		if _, dup := s.pending[key]; dup {
			s.mu.Unlock()
			return x, fmt.Errorf("id %s is already in flight", out.ID)
		}
		s.pending[key] = ch
		s.mu.Unlock()
	}
	if err := s.write(ctx, out.Body); err != nil {
		s.forget(out.ID)
		return x, err
	}
	if ch == nil {
		return x, nil
	}
	select {
	case m, ok := <-ch:
		if !ok {
			return x, s.exitError()
		}
		x.Messages = []*Message{m}
		x.Response = m
		return x, nil
	case <-ctx.Done():
		s.forget(out.ID)
		// On stdio the client MUST send notifications/cancelled for a request
		// it gives up on (basic/patterns/cancellation.mdx).
		go s.cancel(out.ID)
		return x, &TimeoutError{Method: out.Method, After: deadlineSpan(ctx)}
	case <-s.done:
		return x, s.exitError()
	}
}

func (s *Stdio) exitError() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.exitErr != nil {
		return s.exitErr
	}
	return ErrClosed
}

func (s *Stdio) forget(id json.RawMessage) {
	if id == nil {
		return
	}
	s.mu.Lock()
	delete(s.pending, idKey(id))
	s.mu.Unlock()
}

func (s *Stdio) cancel(id json.RawMessage) {
	body, err := json.Marshal(map[string]any{
		"jsonrpc": "2.0",
		"method":  "notifications/cancelled",
		"params":  map[string]any{"requestId": id, "reason": "timed out"},
	})
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = s.write(ctx, body)
}

// write sends one line. A server that stops reading its stdin would block
// the pipe forever, so the write runs under the context's deadline.
func (s *Stdio) write(ctx context.Context, body []byte) error {
	line := make([]byte, 0, len(body)+1)
	line = append(append(line, body...), '\n')
	errc := make(chan error, 1)
	go func() {
		s.writeMu.Lock()
		defer s.writeMu.Unlock()
		_, err := s.stdin.Write(line)
		errc <- err
	}()
	select {
	case err := <-errc:
		if err != nil {
			if e := s.exitErrIfDone(); e != nil {
				return e
			}
			return fmt.Errorf("%w: write to server stdin: %v", ErrClosed, err)
		}
		return nil
	case <-ctx.Done():
		return &TimeoutError{Method: "write", After: deadlineSpan(ctx)}
	case <-s.done:
		return s.exitError()
	}
}

func (s *Stdio) exitErrIfDone() error {
	select {
	case <-s.done:
		return s.exitError()
	default:
		return nil
	}
}

// Requests returns the requests the server sent (a method and an id), in
// the order they arrived (capped like Orphans).
func (s *Stdio) Requests() []*Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Message(nil), s.requests...)
}

// Notifications returns the notifications the server wrote, in order
// (capped like Orphans).
func (s *Stdio) Notifications() []*Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Message(nil), s.notes...)
}

// Orphans returns responses whose id matched no request in flight (answers
// to notifications, duplicates, or answers after a timeout).
func (s *Stdio) Orphans() []*Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Message(nil), s.orphans...)
}

// InvalidLines returns stdout lines that were not JSON-RPC messages.
func (s *Stdio) InvalidLines() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.invalid...)
}

// Exited reports whether the server process has ended, and why.
func (s *Stdio) Exited() (bool, error) {
	select {
	case <-s.done:
		return true, s.exitError()
	default:
		return false, nil
	}
}

// StderrTail returns the last few KiB the server wrote to stderr.
func (s *Stdio) StderrTail() string { return s.stderr.String() }

// Close shuts the server down the way the spec describes
// (basic/transports/stdio.mdx §Shutdown): close its stdin, wait for it to
// exit, then SIGTERM, wait, then SIGKILL — to the whole process group, so
// that wrappers such as `go run` or `npx` do not leave the real server
// behind.
func (s *Stdio) Close() error {
	s.closeMu.Lock()
	defer s.closeMu.Unlock()
	if s.closed {
		return s.closeErr
	}
	s.closed = true
	s.mu.Lock()
	s.closing = true
	s.mu.Unlock()
	s.stdin.Close()
	// Once the server itself has exited, the group is killed anyway: a
	// wrapper such as `go run` may have left the real server behind.
	if s.waitDone(2 * time.Second) {
		s.killGroup()
		return nil
	}
	s.signalGroup(termSignal)
	if s.waitDone(2 * time.Second) {
		s.killGroup()
		return nil
	}
	s.killGroup()
	if !s.waitDone(5 * time.Second) {
		s.closeErr = errors.New("server process did not exit after SIGKILL")
	}
	return s.closeErr
}

func (s *Stdio) waitDone(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-s.done:
		return true
	case <-t.C:
		return false
	}
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// hint returns the last stderr line, for error messages.
func (t *tailBuffer) hint() string {
	s := strings.TrimSpace(t.String())
	if s == "" {
		return ""
	}
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return "; last stderr line: " + truncate(s, 300)
}

// readStdioLine reads one newline-terminated line (a trailing \r is
// dropped), refusing lines longer than limit. bufio.Scanner is avoided on
// purpose: its default 64 KiB token limit stops on a large tool result in a
// way that looks like a hung server.
func readStdioLine(br *bufio.Reader, limit int64) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if int64(len(line)+len(chunk)) > limit+1 {
			// Skip the rest of this line is impossible to do safely on an
			// endless line; report and stop.
			return nil, errLimit
		}
		line = append(line, chunk...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			return line, err
		}
		line = bytes.TrimSuffix(line[:len(line)-1], []byte("\r"))
		return line, nil
	}
}
