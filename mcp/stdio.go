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
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcp-eval/mcp-eval/internal/clip"
	"github.com/mcp-eval/mcp-eval/internal/proc"
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
	// Leftovers, if set, is called once the process is stopped with the
	// pids of the processes it had left outside its process group (setsid
	// escapees, found by their tag and killed), when there were any.
	Leftovers func(pids []int)
}

func (c Command) String() string { return strings.Join(c.Argv, " ") }

// Stdio is the stdio transport (basic/transports/stdio.mdx): the server is a
// subprocess, and each message is one line of UTF-8 JSON on its stdin or
// stdout. Requests are correlated with responses by id, so several may be in
// flight at once.
type Stdio struct {
	proc     *proc.Process
	stdin    io.WriteCloser
	observer Observer
	stderr   *tailBuffer
	health   health
	anomalies

	writeMu sync.Mutex

	mu       sync.Mutex
	pending  map[string]chan *Message
	answered map[string]bool // ids answered, for duplicate detection
	gaveUp   map[string]bool // ids whose request timed out or was cancelled
	orphans  []*Message
	requests []*Message // server-to-client requests (a method and an id)
	notes    []*Message // notifications from the server
	invalid  []string
	lines    int // stdout lines read
	answers  int // JSON-RPC messages read
	sent     int // requests registered
	replies  int // responses delivered to a request
	// pairing is set once the server answered the process's first request,
	// the only one in flight, under an id it was never sent: from then on
	// requests go one at a time (serial), so that each answer, whatever
	// its id, is the answer to the one request in flight, as an HTTP
	// answer is to its POST.
	pairing bool
	serial  chan struct{}
	// streams are the requests in flight whose answer ends a stream
	// (subscriptions/listen). Before pairing they are never paired. Once
	// pairing holds, a stream being opened holds serial like any request
	// until its first message (the acknowledgement, or its answer), or
	// openBound, so that the refusal of a listen is told apart from the
	// answer to another request; after that it is established and is no
	// longer a candidate for an answer under an unknown id.
	streams     map[string]bool
	established map[string]bool
	opening     string // the stream holding serial until it is established
	openRelease func() // gives serial back, once
	closing     bool
	exitErr     error
	done        chan struct{} // closed when the process is reaped
	readDone    chan struct{} // closed when the stdout reader has read its last line
	closeMu     sync.Mutex
	closeErr    error
	closed      bool
	first       atomic.Bool   // no JSON-RPC message yet, and alive (freshstart.go)
	chatter     atomic.Int64  // messages from the server that are no response
	unfinished  atomic.Int64  // bytes of the stdout line being read, not yet ended
	grace       time.Duration // drainGrace when the process started
	onLeft      func([]int)   // Command.Leftovers
}

var _ Transport = (*Stdio)(nil)

// maxKept bounds the orphans and invalid lines remembered.
const maxKept = 256

// drainGrace is how long answers already written to stdout may still be
// read after the process exited (a server may answer and exit at once); a
// variable for the tests. The shutdown timings are internal/proc's (basic/transports/stdio.mdx
// §Shutdown).
var drainGrace = 200 * time.Millisecond

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
	s := &Stdio{
		observer:    c.Observer,
		stderr:      &tailBuffer{max: 4 << 10},
		pending:     map[string]chan *Message{},
		answered:    map[string]bool{},
		gaveUp:      map[string]bool{},
		done:        make(chan struct{}),
		readDone:    make(chan struct{}),
		serial:      make(chan struct{}, 1),
		streams:     map[string]bool{},
		established: map[string]bool{},
		grace:       drainGrace,
		onLeft:      c.Leftovers,
	}
	if c.Stderr != nil {
		cmd.Stderr = io.MultiWriter(s.stderr, &validWriter{w: c.Stderr})
	} else {
		cmd.Stderr = s.stderr
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("server command: %w", err)
	}
	// stdout is an os.Pipe handed to the process as is, not cmd.StdoutPipe:
	// the process's exit is then seen by Wait even while a child it forked
	// keeps stdout open (which would otherwise look like a live server).
	stdoutR, stdoutW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("server command: %w", err)
	}
	cmd.Stdout = stdoutW
	s.stdin = stdin
	p, err := proc.Start(cmd)
	if err != nil {
		stdoutR.Close()
		stdoutW.Close()
		return nil, fmt.Errorf("%w: start %q: %v", ErrUnreachable, c.Argv[0], err)
	}
	s.proc = p
	s.first.Store(true)
	starting.Add(1) // until its first message, or its end (freshstart.go)
	stdoutW.Close()
	limit := c.MaxBytes
	if limit <= 0 {
		limit = DefaultMaxMessageBytes
	}
	go s.readLoop(&lineTally{r: stdoutR, n: &s.unfinished}, limit)
	go s.waitLoop(stdoutR)
	return s, nil
}

func (s *Stdio) readLoop(stdout io.Reader, limit int64) {
	br := bufio.NewReaderSize(stdout, 64<<10)
	for {
		// The line being read is charged to the shared answer budget; the
		// parsed message is the waiting request's once delivered.
		g := &grant{ctx: context.Background(), limit: limit}
		line, err := readStdioLine(br, limit, g)
		if len(bytes.TrimSpace(line)) > 0 {
			s.deliver(line)
		}
		g.done()
		if err != nil {
			if errors.Is(err, errLimit) {
				tooLarge := fmt.Errorf("%w: a line on stdout exceeds %d bytes", ErrTooLarge, limit)
				s.mu.Lock()
				s.invalid = appendCapped(s.invalid, tooLarge.Error())
				if s.exitErr == nil {
					s.exitErr = tooLarge
				}
				s.mu.Unlock()
				// The framing is lost: nothing after this can be trusted.
				s.proc.Kill()
				close(s.readDone)
				return
			}
			// Everything stdout held has been delivered: say so before
			// waiting on the exit, which waits on this (waitLoop), or the
			// two would wait out each other's grace at every close.
			close(s.readDone)
			s.stdoutEnded()
			return
		}
	}
}

// stdoutEnded fails what is pending once stdout is closed: no answer can
// come any more. A server that closes stdout usually exits at once, and its
// exit says more (waitLoop), so it gets a moment to.
func (s *Stdio) stdoutEnded() {
	select {
	case <-s.done:
		return
	case <-time.After(2 * s.grace):
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.exitErr == nil {
		s.exitErr = fmt.Errorf("%w: the server closed its stdout and is still running", ErrClosed)
	}
	for k, ch := range s.pending {
		close(ch)
		delete(s.pending, k)
	}
}

// waitLoop waits for the process to be reaped and fails what is still
// pending.
func (s *Stdio) waitLoop(stdout *os.File) {
	<-s.proc.Exited()
	s.started() // no longer starting, having ended
	waitErr := s.proc.Err()
	// Answers written just before the exit are still in the pipe.
	select {
	case <-s.readDone:
	case <-time.After(s.grace):
	}
	// A descendant may still hold stdout; the server itself is gone, and so
	// is anything it left in its process group or outside it.
	s.proc.Kill()
	stdout.Close()
	s.mu.Lock()
	switch {
	case s.exitErr != nil: // too large, or stdout closed before the exit
	case s.closing:
		s.exitErr = ErrClosed
	default:
		s.exitErr = &ExitError{State: exitText(waitErr), Stderr: s.stderr.errorLine()}
	}
	for k, ch := range s.pending {
		close(ch)
		delete(s.pending, k)
	}
	s.mu.Unlock()
	close(s.done)
}

// started marks the process as no longer awaiting its first message, once.
func (s *Stdio) started() {
	if s.first.CompareAndSwap(true, false) {
		starting.Add(-1)
	}
}

// awaitingFirst reports whether the process is alive and has written no
// JSON-RPC message yet: its next answer includes its start-up.
func (s *Stdio) awaitingFirst() bool { return s.first.Load() }

// exitText says how the server process ended. exec.ErrWaitDelay is Wait's
// word for a process that exited with status 0 while a process it started
// still held its stdout or stderr open past proc.PipeGrace (that holder is
// then killed with the rest): said so plainly, not as exec's message.
func exitText(err error) string {
	switch {
	case err == nil:
		return "exit status 0"
	case errors.Is(err, exec.ErrWaitDelay):
		return "exit status 0, but a process it started kept its output open (killed)"
	}
	return err.Error()
}

func appendCapped[T any](xs []T, x T) []T {
	if len(xs) >= maxKept {
		return xs
	}
	return append(xs, x)
}

// maxOrphanBytes is the largest orphan kept whole; a bigger one keeps its
// id and error and an excerpt, so that orphans cannot pile up memory.
const maxOrphanBytes = 64 << 10

func shrink(m *Message) *Message {
	if len(m.Raw) <= maxOrphanBytes {
		return m
	}
	c := *m
	c.Raw = append(json.RawMessage(nil), m.Raw[:excerptBytes]...)
	if c.Result != nil {
		c.Result = json.RawMessage(`"(not kept)"`)
	}
	c.Params = nil
	return &c
}

// deliver hands one stdout line to the request it answers, or records it:
// a server request or notification, an orphan, or a line that is no
// JSON-RPC message.
func (s *Stdio) deliver(line []byte) {
	s.mu.Lock()
	s.lines++
	lineNo, answers := s.lines, s.answers
	s.mu.Unlock()
	orig := line
	line, bad := validUTF8(line)
	if bad > 0 {
		s.record(invalidUTF8("stdout line "+strconv.Itoa(lineNo), orig, bad))
	}
	m, err := parseOwned(line)
	if err != nil {
		s.deliverInvalid(line, err, lineNo, answers == 0)
		return
	}
	m.line = lineNo
	m.badUTF8 = bad
	if !s.deliverMessage(m) {
		// Outside any exchange: finish never sees it.
		if mo, ok := s.observer.(MessageObserver); ok {
			mo.MessageReceived(nil, m)
		}
	}
}

// deliverMessage hands m to the request it answers and reports true, or
// records it (a server request or notification, an orphan) and reports
// false.
func (s *Stdio) deliverMessage(m *Message) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.answers++
	s.started()
	if !m.IsResponse() {
		// Not a sign of life for the breaker: a server that talks but
		// answers nothing (a log notification a second, for ever) is as
		// unresponsive as a silent one, and would otherwise make every
		// request wait its whole timeout.
		s.chatter.Add(1)
		// Requests from the server are kept for the checks (2026-07-28 has
		// none); request-scoped notifications (progress, log) are not used
		// by any layer yet and are dropped.
		if m.IsRequest() {
			s.requests = appendCapped(s.requests, m)
		}
		if m.IsNotification() {
			s.notes = appendCapped(s.notes, m)
			if m.Method == "notifications/subscriptions/acknowledged" {
				if release := s.takeOpening(""); release != nil {
					release() // serial is full: this does not block
				}
			}
		}
		return false
	}
	key := idKey(m.ID)
	if ch, ok := s.pending[key]; ok && m.ID != nil {
		s.answer(key, ch, m)
		return true
	}
	s.health.alive()
	if k, ch, ok := s.soleRequest(m, key); ok {
		s.pairing = true
		s.record(Anomaly{Kind: AnomalyOrphan, Evidence: clip.Bytes(string(m.Raw), 200),
			Detail: "the answer to id " + clip.Bytes(k, 60) + ", the only request in flight, carries id " + orAbsentID(m.ID) + ", which was never sent"})
		s.answer(k, ch, m)
		return true
	}
	s.orphans = appendCapped(s.orphans, shrink(m))
	s.recordOrphan(m, key)
	return false
}

// answer hands m to the request in flight under key. Called with s.mu
// held.
func (s *Stdio) answer(key string, ch chan *Message, m *Message) {
	delete(s.pending, key)
	delete(s.streams, key)
	delete(s.established, key)
	if len(s.answered) < 100_000 {
		s.answered[key] = true
	}
	s.replies++
	ch <- m
}

// soleRequest returns the request a response m under an unknown id (key)
// answers: the only request in flight, when it is the first the process
// was sent and nothing has answered yet (start-up: the era probe), or
// once pairing holds. A late answer, a second one or an id-less error is
// no such answer. Called with s.mu held.
func (s *Stdio) soleRequest(m *Message, key string) (string, chan *Message, bool) {
	if m.ID == nil || idlessError(m) || s.answered[key] || s.gaveUp[key] {
		return "", nil, false
	}
	if !s.pairing {
		if s.sent != 1 || s.replies != 0 || len(s.pending)-len(s.streams) != 1 {
			return "", nil, false
		}
		for k, ch := range s.pending {
			if !s.streams[k] {
				return k, ch, true
			}
		}
		return "", nil, false
	}
	// Pairing: the one request in flight that is no established stream.
	var sole string
	for k := range s.pending {
		if s.established[k] {
			continue
		}
		if sole != "" {
			return "", nil, false
		}
		sole = k
	}
	if sole == "" {
		return "", nil, false
	}
	return sole, s.pending[sole], true
}

// deliverInvalid records stdout line lineNo, which is no JSON-RPC message
// (err says why): a banner when no message came before it.
func (s *Stdio) deliverInvalid(line []byte, err error, lineNo int, first bool) {
	excerpt := clip.Bytes(string(line), 200)
	s.mu.Lock()
	s.invalid = appendCapped(s.invalid, fmt.Sprintf("stdout line is not a JSON-RPC message (%v): %s", err, excerpt))
	s.mu.Unlock()
	kind, what := AnomalyNonJSON, "stdout line "+strconv.Itoa(lineNo)+" is not a JSON-RPC message: "+err.Error()
	if first {
		kind, what = AnomalyBanner, "stdout line "+strconv.Itoa(lineNo)+", before the first JSON-RPC message, is not one: "+err.Error()
	}
	// A line that is JSON with an id of a request in flight is that
	// request's answer, unparseable: say so now rather than time out.
	if id := lenientID(line); id != nil {
		s.mu.Lock()
		ch, ok := s.pending[idKey(id)]
		if ok {
			delete(s.pending, idKey(id))
			delete(s.streams, idKey(id))
		}
		s.mu.Unlock()
		if ok {
			s.record(Anomaly{Kind: AnomalyUnparseable, Evidence: excerpt,
				Detail: "the answer to id " + clip.Bytes(string(id), 60) + " is not a valid JSON-RPC message: " + err.Error()})
			ch <- &Message{ID: id, Raw: append(json.RawMessage(nil), line[:min(len(line), excerptBytes)]...), parseErr: err}
			return
		}
	}
	s.record(Anomaly{Kind: kind, Detail: what, Evidence: excerpt})
}

// recordOrphan records a response that no request in flight waits for,
// by why: a duplicate, a late answer, or an orphan. Called with s.mu held.
func (s *Stdio) recordOrphan(m *Message, key string) {
	excerpt := clip.Bytes(string(m.Raw), 200)
	switch {
	case m.ID != nil && s.answered[key]:
		s.record(Anomaly{Kind: AnomalyDuplicate, Detail: "a second response to id " + clip.Bytes(string(m.ID), 60), Evidence: excerpt})
	case m.ID != nil && s.gaveUp[key]:
		delete(s.gaveUp, key)
		s.record(Anomaly{Kind: AnomalyLate, Detail: "a response to id " + clip.Bytes(string(m.ID), 60) + " after the request timed out or was cancelled", Evidence: excerpt})
	case m.Error != nil && (m.ID == nil || string(m.ID) == "null"):
		// An error for a request whose id could not be read (JSON-RPC 2.0
		// §5: id null): kept in Orphans, not an anomaly.
	default:
		s.record(Anomaly{Kind: AnomalyOrphan, Detail: "a response to id " + orAbsentID(m.ID) + ", which no request in flight has", Evidence: excerpt})
	}
}

// Exchange implements Transport. A notification (out.ID nil) returns as
// soon as it is written.
func (s *Stdio) Exchange(ctx context.Context, out *Outgoing) (x *Exchange, err error) {
	start := time.Now()
	x = &Exchange{Sent: out.Body}
	defer func() {
		n := 0
		if x.Response != nil {
			n = len(x.Response.Raw)
		}
		finish(s.observer, out, x, start, n, err)
	}()
	if bytes.ContainsAny(out.Body, "\n\r") {
		// Messages MUST NOT contain embedded newlines on stdio; JSON encoding
		// never produces raw ones, so only a hand-made probe could.
		return x, errors.New("stdio message contains a newline")
	}
	var ch chan *Message
	if out.ID != nil {
		if s.isPairing() {
			// One request at a time, so that its answer can be told by
			// being the only one (see pairing); a stream only until it is
			// established (see streams).
			select {
			case s.serial <- struct{}{}:
			case <-ctx.Done():
				return x, ctxError(ctx, out.Method)
			}
			if isStream(out.Method) {
				defer s.holdUntilOpened(idKey(out.ID))()
			} else {
				defer func() { <-s.serial }()
			}
		}
		if ch, err = s.register(out.ID, out.Method); err != nil {
			return x, err
		}
	}
	if err := s.write(ctx, out.Body); err != nil {
		s.forget(out.ID)
		return x, err
	}
	if ch == nil {
		return x, nil
	}
	return x, s.await(ctx, out, ch, x)
}

// register makes id a request in flight, whose answer deliver sends on
// the channel returned.
func (s *Stdio) register(id json.RawMessage, method string) (chan *Message, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.exitErr != nil {
		return nil, s.exitErr
	}
	key := idKey(id)
	if _, dup := s.pending[key]; dup {
		return nil, fmt.Errorf("id %s is already in flight", id)
	}
	ch := make(chan *Message, 1)
	s.pending[key] = ch
	if isStream(method) {
		s.streams[key] = true
	}
	s.sent++
	return ch, nil
}

// openBound is how long a stream being opened in pairing mode holds
// serial without a message from the server; then it counts as established
// (a server that acknowledges later may have that message taken for
// another request's answer, a price only a server that answers under
// wrong ids pays).
var openBound = time.Second

// holdUntilOpened makes the stream key the one being opened, which holds
// serial until its first message or openBound, and returns what settles
// it at the latest (when its answer came).
func (s *Stdio) holdUntilOpened(key string) (settle func()) {
	s.mu.Lock()
	s.opening, s.openRelease = key, sync.OnceFunc(func() { <-s.serial })
	s.mu.Unlock()
	t := time.AfterFunc(openBound, func() { s.settleOpening(key) })
	return func() {
		t.Stop()
		s.settleOpening(key)
	}
}

// settleOpening ends the opening of stream key, if it is still the one
// being opened: it is established, and serial is given back.
func (s *Stdio) settleOpening(key string) {
	s.mu.Lock()
	release := s.takeOpening(key)
	s.mu.Unlock()
	if release != nil {
		release()
	}
}

// takeOpening marks the stream key established and returns the release of
// serial, when key is the stream being opened ("" for whichever is).
// Called with s.mu held.
func (s *Stdio) takeOpening(key string) func() {
	if s.opening == "" || (key != "" && key != s.opening) {
		return nil
	}
	if _, ok := s.pending[s.opening]; ok {
		s.established[s.opening] = true
	}
	release := s.openRelease
	s.opening, s.openRelease = "", nil
	return release
}

// isStream reports whether a request's answer comes only when the stream
// it opens ends (basic/patterns/subscriptions.mdx).
func isStream(method string) bool { return method == "subscriptions/listen" }

func (s *Stdio) isPairing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pairing
}

// await waits for the answer to out on ch, the end of ctx or of the
// process, and fills x with the answer.
func (s *Stdio) await(ctx context.Context, out *Outgoing, ch chan *Message, x *Exchange) error {
	chatter := s.chatter.Load()
	select {
	case m, ok := <-ch:
		if !ok {
			return s.exitError()
		}
		if m.parseErr != nil {
			x.Invalid = []string{"the answer is not a JSON-RPC message: " + m.parseErr.Error()}
			return &ProtocolError{Method: out.Method, Detail: "unparseable answer: " + m.parseErr.Error() + ": " + clip.Bytes(string(m.Raw), 200)}
		}
		x.Messages = []*Message{m}
		x.Response = m
		return nil
	case <-ctx.Done():
		s.forget(out.ID)
		// On stdio the client MUST send notifications/cancelled for a request
		// it gives up on (basic/patterns/cancellation.mdx).
		go s.cancel(out.ID)
		err := ctxError(ctx, out.Method)
		if te, ok := err.(*TimeoutError); ok {
			te.Seen = s.seen(chatter)
		}
		return err
	case <-s.done:
		return s.exitError()
	}
}

// ctxError is the error of a request to method whose ctx ended: an
// interruption by the run, or a timeout.
func ctxError(ctx context.Context, method string) error {
	if te, ok := errors.AsType[*TimeoutError](context.Cause(ctx)); ok {
		// The wait for a new process's first answer ended (freshWait).
		return &TimeoutError{Method: method, After: te.After}
	}
	if errors.Is(ctx.Err(), context.Canceled) {
		return fmt.Errorf("%s: %w", method, context.Canceled)
	}
	return &TimeoutError{Method: method, After: deadlineSpan(ctx)}
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
	if _, ok := s.pending[idKey(id)]; ok && len(s.gaveUp) < 100_000 {
		s.gaveUp[idKey(id)] = true
	}
	delete(s.pending, idKey(id))
	delete(s.streams, idKey(id))
	delete(s.established, idKey(id))
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

// silent reports whether the server has written nothing on stdout yet.
func (s *Stdio) silent() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lines == 0
}

// Leftovers returns the pids of processes the server left running outside
// its process group (found by their tag and killed when it exited).
func (s *Stdio) Leftovers() []int { return s.proc.Leftovers() }

// StderrTail returns the last few KiB the server wrote to stderr.
func (s *Stdio) StderrTail() string { return s.stderr.String() }

// Close shuts the server down the way the spec describes
// (basic/transports/stdio.mdx §Shutdown): close its stdin, wait, SIGTERM,
// wait, SIGKILL, to the whole process group (proc.Process.Stop, whose
// waits are named constants there). Once the server has exited, what it
// left in its group or outside it is killed too.
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
	if s.closeErr = s.proc.Stop(s.stdin); s.closeErr == nil {
		// The process is reaped: waitLoop fails what is pending and ends
		// within drainGrace.
		<-s.done
	}
	if left := s.proc.Leftovers(); len(left) > 0 && s.onLeft != nil {
		s.onLeft(left)
	}
	return s.closeErr
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
	return validString(string(t.buf))
}

// errorLine is what a process's output says went wrong, for error
// messages: the first line that names an error ("Error: ENOENT: …",
// "ModuleNotFoundError: …", "panic: …"), which runtimes print before a
// stack trace and a closing line such as "Node.js v20.20.2"; else its
// last lines.
func (t *tailBuffer) errorLine() string {
	var lines []string
	for _, l := range strings.Split(t.String(), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	for _, l := range lines {
		if namesError.MatchString(l) {
			return clip.Bytes(l, 300)
		}
	}
	return clip.Bytes(strings.Join(lines[max(0, len(lines)-lastLines):], " / "), 300)
}

// lastLines is how many of the last lines errorLine quotes when none
// names an error.
const lastLines = 3

// namesError matches a line that begins with an error's name: a
// JavaScript, Python or Java exception ("TypeError: …", "Error: …",
// "java.io.IOException: …"), Go's "panic:" and "fatal error:", and the
// "error:"/"fatal:" prefixes of most command-line tools.
var namesError = regexp.MustCompile(`^(?:[\w$.]*(?:Error|Exception)\b|panic:|fatal( error)?:|(?i:error)[:\[ ])`)

// readStdioLine reads one newline-terminated line (a trailing \r is
// dropped), refusing lines longer than limit. bufio.Scanner is avoided on
// purpose: its default 64 KiB token limit stops on a large tool result in a
// way that looks like a hung server.
func readStdioLine(br *bufio.Reader, limit int64, g *grant) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if int64(len(line)+len(chunk)) > limit+1 {
			// Skipping the rest of the line is impossible to do safely on
			// an endless line; report and stop.
			n := cap(line)
			line = nil
			refusedBig(n)
			return nil, errLimit
		}
		n := len(line) + len(chunk)
		if gerr := g.need(int64(n)); gerr != nil {
			return nil, gerr
		}
		if n > cap(line) && n > freeAnswerBytes {
			// Size a large line for the limit once rather than doubling.
			line = append(make([]byte, 0, limit+1), line...)
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

// seen says what the server wrote on stdout while a request waited in
// vain, for its TimeoutError: messages that answered nothing since the
// chatter count was chatter, and a line begun but never ended (a server
// that trickles its answer a byte at a time).
func (s *Stdio) seen(chatter int64) string {
	var parts []string
	if n := s.chatter.Load() - chatter; n > 0 {
		parts = append(parts, fmt.Sprintf("%d notifications or requests from the server, no response", n))
	}
	if n := s.unfinished.Load(); n > 0 {
		parts = append(parts, fmt.Sprintf("%d bytes of a stdout line never ended", n))
	}
	return strings.Join(parts, "; ")
}

// lineTally counts into n the bytes read since the last newline.
type lineTally struct {
	r io.Reader
	n *atomic.Int64
}

func (t *lineTally) Read(p []byte) (int, error) {
	k, err := t.r.Read(p)
	if i := bytes.LastIndexByte(p[:k], '\n'); i >= 0 {
		t.n.Store(int64(k - i - 1))
	} else {
		t.n.Add(int64(k))
	}
	return k, err
}
