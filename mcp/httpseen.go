package mcp

import (
	"errors"
	"fmt"
	"io"
	"net/http/httptrace"
	"net/textproto"
	"sync/atomic"
)

// maxInterim bounds the interim (1xx) responses read before a request's
// final response. RFC 9110 §15.2 lets a server send any number of them
// (https://www.rfc-editor.org/rfc/rfc9110#section-15.2), and net/http reads
// on for as long as a ClientTrace looks at them; a server that floods them
// fast is cut here, one that sends them slowly by the request's deadline.
const maxInterim = 1000

var errInterim = errors.New("too many interim responses")

// httpSeen is what the server sent for one HTTP request so far: the
// interim responses, the final status and the body bytes read. A request
// cut by its deadline says it (TimeoutError.Seen), so that a verdict names
// what the server did, not only that no answer came.
type httpSeen struct {
	// interim and interimCode are written by net/http's connection reader,
	// which may read on after the request has given up.
	interim, interimCode atomic.Int64
	status               int
	sse                  bool
	body                 int64
	messages             int  // SSE events parsed as JSON-RPC messages
	response             bool // one of them was a response, to another id
}

// trace counts the interim responses.
func (s *httpSeen) trace() *httptrace.ClientTrace {
	return &httptrace.ClientTrace{Got1xxResponse: func(code int, _ textproto.MIMEHeader) error {
		s.interimCode.Store(int64(code))
		if s.interim.Add(1) >= maxInterim {
			return errInterim
		}
		return nil
	}}
}

// reader returns r counting into s.body.
func (s *httpSeen) reader(r io.Reader) io.Reader { return &seenReader{r: r, s: s} }

type seenReader struct {
	r io.Reader
	s *httpSeen
}

func (r *seenReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	r.s.body += int64(n)
	return n, err
}

// fail returns err as the request's error: a timeout says what arrived
// before it, and a flood of interim responses is the server's answer,
// wrong.
func (s *httpSeen) fail(method string, x *Exchange, err error) error {
	if errors.Is(err, errInterim) {
		return &ProtocolError{Method: method, Detail: fmt.Sprintf("%d interim responses (the last HTTP %d) and no final one; mcp-eval reads at most %d (RFC 9110 §15.2)", s.interim.Load(), s.interimCode.Load(), maxInterim)}
	}
	var te *TimeoutError
	if errors.As(err, &te) {
		if x != nil {
			s.messages = len(x.Messages) + x.Dropped
			s.response = x.Response != nil
		}
		te.Seen = s.String()
	}
	return err
}

func (s *httpSeen) String() string {
	interim := s.interim.Load()
	switch {
	case s.status == 0 && interim > 0:
		return fmt.Sprintf("%d interim responses (the last HTTP %d), no final one", interim, s.interimCode.Load())
	case s.status == 0:
		return ""
	case s.sse && s.messages > 0:
		none := "none a response"
		if s.response {
			none = "none the response to this request"
		}
		return fmt.Sprintf("HTTP %d and an SSE stream of %d bytes that never ended: %d messages, %s", s.status, s.body, s.messages, none)
	case s.sse && s.body > 0:
		return fmt.Sprintf("HTTP %d and an SSE stream of %d bytes that never ended, no complete message", s.status, s.body)
	case s.sse:
		return fmt.Sprintf("HTTP %d, then an SSE stream that sent nothing", s.status)
	case s.body > 0:
		return fmt.Sprintf("HTTP %d and %d bytes of a body that never ended", s.status, s.body)
	}
	return fmt.Sprintf("HTTP %d headers, then no body", s.status)
}

// floodError is an SSE stream that reached the size limit before the
// response came: the server sent only other messages (notifications, as
// fast as it could). It is too large, and it answered nothing, so the
// breaker counts it as it counts a timeout (health.go): a server that
// floods every stream costs a few limits in all, not one per request.
type floodError struct {
	method   string
	limit    int64
	messages int
}

func (e *floodError) Error() string {
	return fmt.Sprintf("%s: %v (%d bytes): an SSE stream of %d messages, none the response", e.method, ErrTooLarge, e.limit, e.messages)
}

func (e *floodError) Unwrap() error { return ErrTooLarge }
