package check

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/mcp-eval/mcp-eval/internal/clip"
	"github.com/mcp-eval/mcp-eval/internal/jsonscan"
	"github.com/mcp-eval/mcp-eval/mcp"
)

// Evidence says how much of an exchange a failing run shows. The two
// layers quote differently: a conformance failure is about the exact
// message, so it keeps valid JSON as JSON and shows the MCP headers; a
// resilience probe sends deliberately odd or huge bodies, so it quotes a
// short cut of the request with its full size.
type Evidence struct {
	// Request, Message and Body are the most bytes quoted of the request
	// body, the JSON-RPC answer and an answer body that is no message.
	Request, Message, Body int
	// RawJSON keeps a request body or answer that is valid JSON, and
	// within its limit, as JSON rather than as a string.
	RawJSON bool
	// Headers adds the request's MCP headers and Origin, and the answer's
	// Mcp-Session-Id. User headers such as Authorization are never shown.
	Headers bool
	// Sizes adds the size of a request body that was cut.
	Sizes bool
}

// Protocol is how conformance checks quote an exchange.
var Protocol = Evidence{Request: 4000, Message: 4000, Body: 1000, RawJSON: true, Headers: true}

// Probe is how resilience probes quote an exchange.
var Probe = Evidence{Request: 600, Message: 2000, Body: 1000, Sizes: true}

// Of renders an exchange for the report: the request (body, and headers
// when asked) and the answer (status, media type, the JSON-RPC message or
// the start of the body, and what could not be read). It returns nil for
// no exchange.
func (l Evidence) Of(x *mcp.Exchange) map[string]any {
	if x == nil {
		return nil
	}
	req := map[string]any{}
	if len(x.Sent) > 0 {
		req["body"] = l.quote(x.Sent, l.Request)
		if l.Sizes && len(x.Sent) > l.Request {
			req["bytes"] = len(x.Sent)
		}
	}
	if l.Headers && x.SentHeader != nil {
		h := map[string]string{}
		for k, vs := range x.SentHeader {
			if isMCPHeader(k) || strings.EqualFold(k, "Origin") {
				h[k] = strings.Join(vs, ", ")
			}
		}
		req["headers"] = h
	}
	resp := map[string]any{}
	if x.Status != 0 {
		resp["status"] = x.Status
		if x.ContentType != "" {
			resp["contentType"] = x.ContentType
		}
		if sid := x.Header.Get(mcp.HeaderSessionID); l.Headers && sid != "" {
			resp["mcpSessionId"] = sid
		}
	}
	switch {
	case x.Response != nil:
		resp["message"] = l.quote(x.Response.Raw, l.Message)
		if n := x.Response.InvalidUTF8(); n > 0 {
			resp["invalidUTF8"] = fmt.Sprintf("%d byte(s) of the message were not UTF-8; each is shown as U+FFFD", n)
		}
	case len(x.Body) > 0:
		resp["body"] = clip.BytesOf(x.Body, l.Body)
	}
	if len(x.Invalid) > 0 {
		resp["invalid"] = x.Invalid
	}
	return map[string]any{"request": req, "response": resp}
}

// quote keeps valid JSON as JSON when l.RawJSON says so, and anything else
// as a string cut to max bytes.
func (l Evidence) quote(b []byte, max int) any {
	if l.RawJSON && len(b) <= max && jsonscan.Valid(b) {
		return json.RawMessage(b)
	}
	return clip.BytesOf(b, max)
}

func isMCPHeader(k string) bool {
	return strings.HasPrefix(http.CanonicalHeaderKey(k), "Mcp-")
}

// With sets ev[k] = v, making ev if it is nil.
func With(ev map[string]any, k string, v any) map[string]any {
	if ev == nil {
		ev = map[string]any{}
	}
	ev[k] = v
	return ev
}

// WithError adds a transport error to evidence.
func WithError(ev map[string]any, err error) map[string]any {
	if err == nil {
		if ev == nil {
			ev = map[string]any{}
		}
		return ev
	}
	return With(ev, "error", err.Error())
}
