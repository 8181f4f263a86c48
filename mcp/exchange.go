package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/mcp-eval/mcp-eval/internal/clip"
)

// Call is one request before it is sent. Probes may change any part of it.
type Call struct {
	// ID is an int64 or a string; nil sends a notification.
	ID     any
	Method string
	// Params is sent as the params member; for the modern era it holds
	// "_meta" with the required keys (see Meta).
	Params map[string]any
	// Header is the set of MCP headers (HTTP only); Omit removes headers the
	// transport would add.
	Header     http.Header
	Omit       []string
	HTTPMethod string
	// Body, if set, is sent instead of the encoded request.
	Body []byte
}

// Meta returns the call's params._meta map, creating it if needed.
func (cl *Call) Meta() map[string]any {
	if cl.Params == nil {
		cl.Params = map[string]any{}
	}
	m, ok := cl.Params["_meta"].(map[string]any)
	if !ok {
		m = map[string]any{}
		cl.Params["_meta"] = m
	}
	return m
}

// NextID returns a fresh request id.
func (c *Client) NextID() int64 { return c.ids.Add(1) }

// Do sends a call and returns the exchange, under the client's per-request
// timeout.
func (c *Client) Do(ctx context.Context, call *Call) (*Exchange, error) {
	if c.t == nil {
		return nil, ErrClosed
	}
	name, _ := nameOf(call.Method, call.Params)
	body, id, end, err := c.encode(ctx, call, name)
	if err != nil {
		return nil, err
	}
	label := call.Method
	if name != "" {
		label += " " + clip.Bytes(name, 80)
	}
	var hs *health
	if src, ok := c.t.(healthSource); ok {
		hs = src.healthState()
		if err := hs.check(); err != nil {
			return &Exchange{Sent: body}, err
		}
	}
	timeout := c.opts.Timeout
	if d, ok := ctx.Value(startKey{}).(time.Duration); ok {
		timeout = max(timeout, d)
	} else if st, ok := c.t.(*Stdio); ok && st.awaitingFirst() {
		var end func()
		ctx, timeout, end = c.freshWait(ctx, call.Method, timeout) // freshstart.go
		defer end()
	}
	sent := time.Now()
	x, err := c.authorized(ctx, timeout, &Outgoing{
		ID: id, Body: body, Method: call.Method, Name: name,
		HTTPMethod: call.HTTPMethod, Header: call.Header, Omit: call.Omit,
	})
	if hs != nil && call.ID != nil {
		hs.record(label, sent, err)
	}
	if end != nil {
		if err == nil && x.RPCError() != nil {
			end(x.RPCError())
		} else {
			end(err)
		}
	}
	return x, err
}

// encode returns the bytes to send for call (its Body as is, or the
// encoded request, whose traceparent Options.StartRequest may set), its id
// as JSON, and StartRequest's end hook.
func (c *Client) encode(ctx context.Context, call *Call, name string) (body []byte, id json.RawMessage, end func(error), err error) {
	if call.ID != nil {
		if id, err = json.Marshal(call.ID); err != nil {
			return nil, nil, nil, fmt.Errorf("encode id: %w", err)
		}
	}
	if call.Body != nil {
		return call.Body, id, nil, nil
	}
	if meta, ok := call.Params["_meta"].(map[string]any); ok && c.opts.StartRequest != nil {
		var tp string
		if tp, end = c.opts.StartRequest(ctx, call.Method, name); tp != "" {
			meta[MetaTraceParent] = tp
		}
	}
	// MarshalJSON's own bytes, as json.Marshal would return them (it
	// writes compact JSON with HTML escapes already): json.Marshal of the
	// Request would scan them once more to compact them, on every request.
	body, err = (&Request{ID: call.ID, Method: call.Method, Params: call.Params}).MarshalJSON()
	if err != nil {
		if end != nil {
			end(err)
		}
		return nil, nil, nil, fmt.Errorf("encode %s: %w", call.Method, err)
	}
	return body, id, end, nil
}

// ProtocolError describes an answer that is not a usable JSON-RPC response:
// no response, a response with the wrong id, or an HTTP error without a
// JSON-RPC body.
type ProtocolError struct {
	Method string
	Status int
	Detail string
}

func (e *ProtocolError) Error() string {
	if e.Status != 0 {
		return fmt.Sprintf("%s: HTTP %d: %s", e.Method, e.Status, e.Detail)
	}
	return fmt.Sprintf("%s: %s", e.Method, e.Detail)
}

// Result checks that x holds the response to call and returns its result
// member, the JSON-RPC error as *Error, or a *ProtocolError.
func Result(call *Call, x *Exchange) (json.RawMessage, error) {
	if x.Response == nil {
		detail := "no JSON-RPC response"
		if len(x.Invalid) > 0 {
			detail = x.Invalid[0]
		} else if len(x.Body) > 0 {
			detail += ": " + clip.Bytes(string(bytes.TrimSpace(x.Body)), 200)
		}
		return nil, &ProtocolError{Method: call.Method, Status: x.Status, Detail: detail}
	}
	want, _ := json.Marshal(call.ID)
	if !bytes.Equal(bytes.TrimSpace(x.Response.ID), want) && x.Response.Error == nil {
		return nil, &ProtocolError{Method: call.Method, Status: x.Status,
			Detail: fmt.Sprintf("response id %s does not match request id %s", clip.Bytes(string(x.Response.ID), 60), want)}
	}
	if x.Response.Error != nil {
		return nil, x.Response.Error
	}
	if x.Status != 0 && (x.Status < 200 || x.Status > 299) {
		return nil, &ProtocolError{Method: call.Method, Status: x.Status, Detail: "a result with a non-2xx status"}
	}
	return x.Response.Result, nil
}
