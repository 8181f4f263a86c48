package redact

import (
	"bytes"
	"io"
	"os"
	"slices"
	"sync"
)

// Logs is the process's one way out for what is not this program's own
// output: what the standard library logs through the standard logger (Go's
// HTTP client prints "Unsolicited response received on idle HTTP channel
// starting with …", quoting up to 4 KiB a server sent after its response,
// which may echo the request's credentials), and what a dependency logs
// (OpenTelemetry's error handler and internal logger). main points the
// standard logger at it (log.SetOutput(redact.Logs)); each write, one log
// message, is masked with every secret any redactor handed to MaskLogs
// holds, and written where SetLogOutput says (the run's stderr).
var Logs io.Writer = logs

var logs = &logSink{out: os.Stderr}

type logSink struct {
	mu  sync.Mutex
	out io.Writer
	// red gathers the secrets of every redactor given to MaskLogs, kept
	// for the life of the process: a connection a run left may still log
	// after the run (the bytes a server sends to an idle one).
	red Redactor
}

// SetLogOutput makes Logs write to w (by default os.Stderr).
func SetLogOutput(w io.Writer) {
	logs.mu.Lock()
	logs.out = w
	logs.mu.Unlock()
}

// MaskLogs makes Logs mask every secret r holds, and each one r learns
// later (Add), for the rest of the process.
func MaskLogs(r *Redactor) {
	if r == nil || r == &logs.red {
		return
	}
	r.mu.Lock()
	have := slices.Clone(r.secrets)
	if !slices.Contains(r.follow, &logs.red) {
		r.follow = append(r.follow, &logs.red)
	}
	r.mu.Unlock()
	for _, s := range have {
		_ = logs.red.Add(s) // r refused what is too short
	}
}

// httpUnsolicited is how net/http's Transport starts the line it logs for
// bytes a server sent on an idle connection (after its response); the
// bytes follow, quoted with %q, cut where the buffer ended.
var httpUnsolicited = []byte(`Unsolicited response received on idle HTTP channel starting with "`)

// Write masks p, one log message, and writes it. The bytes quoted in
// net/http's unsolicited-response line start and may end inside a
// secret (the body took the rest): the longest end or start of a
// spelling there is masked too, from 4 bytes on.
func (s *logSink) Write(p []byte) (int, error) {
	b := s.red.Bytes(p)
	if set := s.red.current(); set != nil {
		if i := bytes.Index(b, httpUnsolicited); i >= 0 {
			b = set.maskCutQuote(b, i+len(httpUnsolicited))
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.out.Write(b); err != nil {
		return 0, err
	}
	return len(p), nil
}

// maskCutQuote masks, in the %q-quoted text that starts at b[from], the
// end of a spelling it starts with and the start of a spelling it ends
// with (before the closing quote): text cut out of a longer stream.
func (set *spellingSet) maskCutQuote(b []byte, from int) []byte {
	end := bytes.LastIndex(b, []byte(`"; err=`))
	if end < from {
		return b
	}
	q := b[from:end]
	head, tail := 0, 0
	for _, p := range set.patterns {
		for k := min(len(p)-1, len(q)); k > max(minClipped-1, head); k-- {
			if bytes.Equal(q[:k], p[len(p)-k:]) {
				head = k
				break
			}
		}
		for k := min(len(p)-1, len(q)); k > max(minClipped-1, tail); k-- {
			if bytes.Equal(q[len(q)-k:], p[:k]) {
				tail = k
				break
			}
		}
	}
	if head == 0 && tail == 0 {
		return b
	}
	if head+tail >= len(q) {
		head, tail = len(q), 0
	}
	var out []byte
	out = append(out, b[:from]...)
	if head > 0 {
		out = append(out, Mask...)
	}
	out = append(out, q[head:len(q)-tail]...)
	if tail > 0 {
		out = append(out, Mask...)
	}
	return append(out, b[end:]...)
}
