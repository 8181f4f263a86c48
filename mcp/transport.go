package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/mcp-eval/mcp-eval/internal/clip"
)

// DefaultMaxMessageBytes caps one answer (a JSON body, an SSE stream or a
// stdio line) unless Options say otherwise.
const DefaultMaxMessageBytes = 16 << 20

// Transport carries one exchange at a time per call; implementations are
// safe for concurrent use.
type Transport interface {
	// Exchange sends out and returns what the server answered. An error means
	// no usable answer arrived: the transport failed, the context ended, or the
	// answer was too large or could not be framed. A JSON-RPC error is not a
	// Go error here: it is in Exchange.Response.
	Exchange(ctx context.Context, out *Outgoing) (*Exchange, error)
	// Close releases the transport (for stdio: shuts the server down).
	Close() error
}

// Outgoing is one message to send, as bytes, with the transport details a
// conformance probe may want to control.
type Outgoing struct {
	// ID is the request id the answer must carry; nil for a notification or a
	// raw body that has none.
	ID json.RawMessage
	// Body is the exact bytes to send (one line on stdio).
	Body []byte
	// Method and Name label the exchange for observers and errors.
	Method, Name string
	// HTTP only: the request method (default POST), headers to set, and
	// headers to leave out even though the transport would add them.
	HTTPMethod string
	Header     http.Header
	Omit       []string
}

// Exchange is one message sent and everything the server answered to it.
type Exchange struct {
	Sent       []byte
	SentHeader http.Header // HTTP only
	// Status is the HTTP status; 0 on stdio.
	Status int
	Header http.Header
	// ContentType is the media type of the HTTP answer, without parameters.
	ContentType string
	// Body is the raw HTTP body (for an SSE answer, the bytes read until the
	// response arrived). Empty on stdio.
	Body []byte
	// Messages are all JSON-RPC messages received for this request in order
	// (notifications before the response, on SSE or stdio).
	Messages []*Message
	// Response is the message answering the request (matched by id), or nil.
	Response *Message
	// Dropped counts messages of an SSE stream received but not kept in
	// Messages (beyond the first 1000).
	Dropped int
	// Invalid lists frames that were not JSON-RPC messages, with the reason.
	Invalid  []string
	Duration time.Duration
	// Retried is the exchange this one repeated: the 401 that made the
	// Options.Authorizer obtain a credential and send the request again.
	Retried *Exchange
}

// RPCError returns the JSON-RPC error of the response, or nil.
func (x *Exchange) RPCError() *Error {
	if x == nil || x.Response == nil {
		return nil
	}
	return x.Response.Error
}

// ErrUnreachable wraps failures to reach the server at all: a refused
// connection, a DNS failure, a server command that does not start.
var ErrUnreachable = errors.New("server unreachable")

// ErrTooLarge is returned when an answer exceeds the size limit.
var ErrTooLarge = errors.New("answer exceeds the size limit")

// ErrClosed is returned when the server closed the transport (a stdio
// process that exited) before answering.
var ErrClosed = errors.New("server closed the connection")

// ErrUnresponsive is wrapped by *UnresponsiveError: the server stopped
// answering, and the client now fails requests at once instead of letting
// each wait its full timeout.
var ErrUnresponsive = errors.New("server unresponsive")

// ErrUnauthorized is wrapped by *UnauthorizedError.
var ErrUnauthorized = errors.New("unauthorized")

// ExitError reports that a stdio server process ended. errors.Is(err,
// ErrClosed) holds for it.
type ExitError struct {
	// State is how the process ended ("exit status 1", "signal: killed").
	State string
	// Stderr is what the server's stderr says went wrong: its first line
	// that names an error, else its last lines ("" when it wrote none).
	Stderr string
}

func (e *ExitError) Error() string {
	s := "server process exited (" + e.State + ")"
	if e.Stderr != "" {
		s += "; stderr: " + e.Stderr
	}
	return ErrClosed.Error() + ": " + s
}

// Unwrap makes errors.Is(err, ErrClosed) true.
func (e *ExitError) Unwrap() error { return ErrClosed }

// UnresponsiveError is returned, without sending anything, for every request
// after the server stopped answering: Threshold requests in a row got no
// answer in time (the first of them was Since), or the process died.
type UnresponsiveError struct {
	// Since names the first request of the run of failures ("tools/list",
	// "tools/call get_weather").
	Since string
	// Cause is the error that made the client give up.
	Cause error
}

func (e *UnresponsiveError) Error() string {
	return fmt.Sprintf("server unresponsive since %s (%v)", e.Since, e.Cause)
}

// Unwrap makes errors.Is(err, ErrUnresponsive) true.
func (e *UnresponsiveError) Unwrap() error { return ErrUnresponsive }

// UnauthorizedError is the answer 401 or 403 to the first probe: the server
// wants credentials the run did not send (or rejected those it sent).
type UnauthorizedError struct {
	Status int
	// Challenge is the WWW-Authenticate header, if any.
	Challenge string
	// Authorized says the request carried the Options.Authorizer's
	// credential, obtained for this run, and the server refused it.
	Authorized bool
	// Body is the start of the answer's body on one line ("" if none): a
	// 403 is not always about scope ("invalid Host header").
	Body string
	// Expired is when the bearer token of the run's --header expired, for
	// a JWT whose exp had passed when it was refused; zero otherwise.
	Expired time.Time
}

func (e *UnauthorizedError) Error() string {
	s := fmt.Sprintf("unauthorized: the server wants credentials (see --header, --oauth-client-id or --oauth-federation): HTTP %d", e.Status)
	scope := strings.Contains(e.Challenge, "insufficient_scope")
	switch {
	case !e.Expired.IsZero() && e.Status == http.StatusUnauthorized:
		s = fmt.Sprintf("unauthorized: the bearer token of --header Authorization expired at %s: HTTP 401", e.Expired.UTC().Format(time.RFC3339))
	case e.Status == http.StatusForbidden && scope && e.Authorized:
		s = "forbidden: the server refused the OAuth access token for lack of scope (see --oauth-scope): HTTP 403"
	case e.Status == http.StatusForbidden && scope:
		s = "forbidden: the server refused the token for lack of scope: HTTP 403"
	case e.Status == http.StatusForbidden && e.Authorized:
		s = "forbidden: the server refused the request carrying the OAuth access token obtained for it: HTTP 403"
	case e.Status == http.StatusForbidden:
		s = "forbidden: the server refused the request: HTTP 403"
	case e.Authorized:
		s = fmt.Sprintf("unauthorized: the server refused the OAuth access token obtained for it: HTTP %d", e.Status)
	}
	if e.Challenge != "" {
		s += "; WWW-Authenticate: " + clip.Bytes(e.Challenge, 200)
	}
	if e.Body != "" {
		s += "; body: " + strconv.Quote(e.Body)
	}
	return s
}

// Unwrap makes errors.Is(err, ErrUnauthorized) true.
func (e *UnauthorizedError) Unwrap() error { return ErrUnauthorized }

// NotMCPError reports that neither era's probe got a JSON-RPC answer: what
// is at the target is not an MCP server (a wrong URL path, another service,
// an HTTP server given as a stdio command). There is nothing to evaluate.
type NotMCPError struct {
	// Got says what came back, in one line (status, content type, first
	// bytes; or that a process printed nothing on stdout).
	Got string
	// Hint says what to check, if mcp-eval has a guess.
	Hint string
	// Stderr is, for a stdio command, a line of its stderr that names an
	// http(s) URL: an HTTP server given where a stdio command was expected.
	Stderr string
	// URL is the URL in Stderr.
	URL string
	// Lead, when set, opens the message instead of "no MCP server at the
	// target": an answer that says why there was no MCP answer (rate
	// limited, redirected) is not evidence that no MCP server is there.
	Lead string
}

func (e *NotMCPError) Error() string {
	lead := "no MCP server at the target"
	if e.Lead != "" {
		lead = e.Lead
	}
	s := lead + ": neither server/discover nor initialize got a JSON-RPC answer; " + e.Got
	if e.Stderr != "" {
		s += "; the process printed " + strconv.Quote(e.Stderr) + " on stderr"
	}
	if e.Hint != "" {
		s += " — " + e.Hint
	}
	return s
}

// TimeoutError reports a request that got no answer within its deadline.
// The deadline bounds the whole answer, however it arrives: bytes that
// trickle in, an SSE stream of notifications, interim (1xx) responses or
// chatter on stdout never extend it.
type TimeoutError struct {
	Method string
	After  time.Duration
	// Seen says what the server sent for the request before the deadline
	// cut it ("HTTP 200 and 4 bytes of a body that never ended"), said
	// after "got"; empty when it sent nothing.
	Seen string
}

func (e *TimeoutError) Error() string {
	s := fmt.Sprintf("%s: no answer within %v", e.Method, e.After.Round(time.Millisecond))
	if e.Seen != "" {
		s += "; got " + e.Seen
	}
	return s
}

// finish ends a transport's Exchange: it sets x's duration since start
// and tells o, if set, about the exchange (bytesIn received, err) and,
// when o is a MessageObserver, about each message the exchange received.
func finish(o Observer, out *Outgoing, x *Exchange, start time.Time, bytesIn int, err error) {
	x.Duration = time.Since(start)
	if o == nil {
		return
	}
	o.RequestDone(out.Method, out.Name, x.Duration, bytesIn, err)
	if mo, ok := o.(MessageObserver); ok {
		for _, m := range x.Messages {
			mo.MessageReceived(out, m)
		}
	}
}

// Observer receives request timings; telemetry implements it so that this
// package need not import it. Methods must be safe for concurrent use.
type Observer interface {
	// RequestDone is called after every exchange: the JSON-RPC method, the
	// tool, prompt or resource name where there is one, the time taken, the
	// bytes received, and the transport error if any.
	RequestDone(method, name string, d time.Duration, bytesIn int, err error)
}

// MessageObserver is what an Observer may also implement to be told about
// every JSON-RPC message a transport receives: those of an exchange with
// the request sent (notifications before the response, the response), and
// on stdio those outside any exchange (notifications, server requests,
// orphans) with sent nil. Whole-message validation (engine/wire)
// implements it, so this package needs no JSON Schema. m must not be
// modified; the method is called from the transports' goroutines and
// must be safe for concurrent use.
type MessageObserver interface {
	MessageReceived(sent *Outgoing, m *Message)
}
