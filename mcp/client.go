package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/mcp-eval/mcp-eval/internal/jsonscan"
)

// Era says which generation of the protocol a server speaks.
type Era string

// Eras (basic/versioning.mdx §Terminology).
const (
	EraModern  Era = "modern"  // 2026-07-28 and later: per-request _meta
	EraLegacy  Era = "legacy"  // 2025-11-25 and earlier: initialize handshake
	EraUnknown Era = "unknown" // neither probe succeeded
)

// Implementation names a client or server.
type Implementation struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Options configure a Client.
type Options struct {
	// ClientInfo is sent in _meta (modern) or initialize (legacy).
	ClientInfo Implementation
	// Capabilities is the clientCapabilities object sent with every request;
	// nil sends {} (no optional capabilities).
	Capabilities map[string]any
	// Timeout bounds each request; 0 means 10 seconds.
	Timeout time.Duration
	// Version forces a revision: LegacyVersion skips the server/discover
	// probe and uses initialize. Empty means LatestVersion with fallback.
	Version string
	// NoFallback keeps a client on the modern era even when the probe says
	// the server is legacy (conformance reports the probe instead).
	NoFallback bool
	// StartRequest, if set, is called as each modern request is sent: a
	// non-empty traceparent it returns replaces the random one in _meta
	// (SEP-414), so that the server's spans join the caller's trace, and end
	// is called when the exchange is over. Telemetry's OTLP exporter
	// provides it; mcp knows nothing of OpenTelemetry.
	StartRequest func(ctx context.Context, method, name string) (traceparent string, end func(error))
	// StartTimeout bounds the first answer of a stdio server (to the era
	// probe), which includes the server's start-up (`go run` compiling,
	// `npx` installing); the per-request Timeout applies after it. 0 means
	// Timeout.
	StartTimeout time.Duration
	// Waiting, if set, is called every few seconds while that first answer
	// is awaited, with the time waited so far.
	Waiting func(waited time.Duration)
	// Authorizer, if set, supplies the Authorization header of every HTTP
	// request that does not set or omit one itself, and is told of a 401
	// answer to such a request, which it may have re-sent once (auth.go).
	// internal/oauth implements it; mcp knows nothing of OAuth.
	Authorizer Authorizer
	// MaxListTime bounds the time one walk of a list may take; 0 means
	// Timeout, at most the package's MaxListTime (pages.go).
	MaxListTime time.Duration
}

// Client talks to one server in one era. It is safe for concurrent use.
type Client struct {
	target Target
	t      Transport
	opts   Options

	era        Era
	version    string
	discover   *DiscoverResult
	initResult json.RawMessage
	probe      Probe

	ids atomic.Int64
	bg  sync.WaitGroup // transports being closed (closeLater)

	// paramHeaders is shared by the clients WithTransport derives.
	paramHeaders *paramHeaderCache
	// started is the first start of the connection this one was made
	// from (Redial), when its own probe did not measure one.
	started time.Duration
}

// Close closes the transport, and waits for those being closed in the
// background.
func (c *Client) Close() error {
	defer c.bg.Wait()
	if c.t == nil {
		return nil
	}
	return c.t.Close()
}

// Era returns the era the server was found to speak.
func (c *Client) Era() Era { return c.era }

// Version returns the protocol revision in use.
func (c *Client) Version() string { return c.version }

// Discover returns the server/discover result of the probe (modern era).
func (c *Client) Discover() *DiscoverResult { return c.discover }

// InitializeResult returns the raw initialize result (legacy era).
func (c *Client) InitializeResult() json.RawMessage { return c.initResult }

// Probe returns how the era was decided.
func (c *Client) Probe() Probe { return c.probe }

// Anomalies returns the protocol-hygiene findings the transport recorded
// (orphan and duplicate responses, non-JSON lines or events, unparseable
// answers), oldest first.
func (c *Client) Anomalies() []Anomaly {
	if src, ok := c.t.(anomalySource); ok {
		return src.Anomalies()
	}
	return nil
}

// Unresponsive returns the *UnresponsiveError requests now fail with, or
// nil while the server answers.
func (c *Client) Unresponsive() error {
	if src, ok := c.t.(healthSource); ok {
		return src.healthState().check()
	}
	return nil
}

// Transport returns the transport in use (for raw probes).
func (c *Client) Transport() Transport { return c.t }

// Target returns the target the client was connected to.
func (c *Client) Target() Target { return c.target }

// Timeout returns the per-request timeout.
func (c *Client) Timeout() time.Duration { return c.opts.Timeout }

// StartTimeout returns the start-up budget of a stdio process's first
// answer (Options.StartTimeout), for a connection made anew on the same
// settings.
func (c *Client) StartTimeout() time.Duration { return c.opts.StartTimeout }

// WithTransport returns a client sharing c's era and settings over another
// transport (for example HTTP.Fresh).
func (c *Client) WithTransport(t Transport) *Client {
	c2 := &Client{target: c.target, t: t, opts: c.opts, era: c.era, version: c.version,
		discover: c.discover, initResult: c.initResult, probe: c.probe, paramHeaders: c.paramHeaders, started: c.started}
	c2.ids.Store(c.ids.Load() + 1_000_000)
	return c2
}

func (c *Client) capabilities() map[string]any {
	if c.opts.Capabilities == nil {
		return map[string]any{}
	}
	return c.opts.Capabilities
}

// Call sends method with params and decodes the result into out (which may
// be nil). A JSON-RPC error is returned as *Error.
func (c *Client) Call(ctx context.Context, method string, params map[string]any, out any) error {
	call := c.NewCall(method, params)
	x, err := c.Do(ctx, call)
	if err != nil {
		return err
	}
	res, err := Result(call, x)
	if err != nil {
		return err
	}
	if out != nil {
		if err := json.Unmarshal(res, out); err != nil {
			return fmt.Errorf("%s: decode result: %w", method, err)
		}
	}
	return nil
}

// Tool is one entry of tools/list.
type Tool struct {
	Name         string           `json:"name"`
	Title        string           `json:"title,omitempty"`
	Description  string           `json:"description,omitempty"`
	InputSchema  json.RawMessage  `json:"inputSchema"`
	OutputSchema json.RawMessage  `json:"outputSchema,omitempty"`
	Annotations  *ToolAnnotations `json:"annotations,omitempty"`
	Raw          json.RawMessage  `json:"-"`
}

// ToolAnnotations are the behaviour hints of a tool. They are hints from an
// untrusted server; mcp-eval uses readOnlyHint only to decide what a probe
// may call.
type ToolAnnotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// ReadOnly reports whether the tool declares readOnlyHint: true.
func (t Tool) ReadOnly() bool {
	return t.Annotations != nil && t.Annotations.ReadOnlyHint != nil && *t.Annotations.ReadOnlyHint
}

// ListTools returns every tool over all pages and remembers the tools'
// x-mcp-header bindings for later tools/call requests.
func (c *Client) ListTools(ctx context.Context) ([]Tool, error) {
	raws, err := c.ListAll(ctx, "tools/list", "tools")
	tools := make([]Tool, 0, len(raws))
	for _, r := range raws {
		if t, ok := DecodeTool(r); ok {
			tools = append(tools, t)
		}
	}
	c.learnParamHeaders(tools)
	return tools, err
}

// DecodeTool decodes one tools/list entry as encoding/json would into a
// Tool (ok is false where it would fail), with Raw set to raw and the
// schemas sub-slices of it rather than copies: a big server's schemas are
// most of its list, held once.
func DecodeTool(raw json.RawMessage) (Tool, bool) {
	if t, ok, sure := decodeToolDirect(raw); sure {
		return t, ok
	}
	var t Tool
	if json.Unmarshal(raw, &t) != nil {
		return Tool{}, false
	}
	t.Raw = raw
	// Valid JSON, since it decoded: split it without checking again.
	if m, err := splitObject(bytes.TrimSpace(raw)); err == nil {
		// The same bytes as decoded (encoding/json also takes a key in
		// another case), shared.
		if s := m["inputSchema"]; bytes.Equal(s, t.InputSchema) {
			t.InputSchema = s
		}
		if s := m["outputSchema"]; bytes.Equal(s, t.OutputSchema) {
			t.OutputSchema = s
		}
	}
	return t, true
}

// decodeToolDirect is DecodeTool without reflection, for the entries it
// is sure to decode as encoding/json does (sure is false for any other,
// which encoding/json then decodes): a JSON object whose members each
// appear once and are named exactly as a field of Tool, or in ASCII and as
// no field in any case (encoding/json matches names without regard to
// case); a null schema is left to encoding/json. Decoding each of a big
// server's tools by reflection was 4% of a run at 1 000 tools;
// FuzzDecodeTool holds this to encoding/json.
func decodeToolDirect(raw []byte) (t Tool, ok, sure bool) {
	in := jsonscan.TrimSpace(raw)
	if len(in) < 2 || in[0] != '{' || in[len(in)-1] != '}' || !jsonscan.Valid(in) {
		return Tool{}, false, false
	}
	var seen [6]bool
	ok, sure = true, true
	str := func(dst *string, v []byte) {
		if string(v) == "null" {
			return // encoding/json leaves the field as it is
		}
		if len(v) == 0 || v[0] != '"' {
			ok = false // not a string: encoding/json fails
			return
		}
		s, valid := jsonString(v)
		if !valid {
			sure = false
			return
		}
		*dst = string(s)
	}
	eachMember(in, func(name []byte, v json.RawMessage) {
		if !sure {
			return
		}
		i := toolField(string(name))
		if i < 0 {
			sure = !foldsToToolField(name)
			return
		}
		if seen[i] {
			sure = false // a repeated member: encoding/json's merging rules
			return
		}
		seen[i] = true
		switch i {
		case 0:
			str(&t.Name, v)
		case 1:
			str(&t.Title, v)
		case 2:
			str(&t.Description, v)
		case 3, 4:
			if string(v) == "null" {
				sure = false
			} else if i == 3 {
				t.InputSchema = v
			} else {
				t.OutputSchema = v
			}
		case 5:
			if json.Unmarshal(v, &t.Annotations) != nil {
				ok = false
			}
		}
	})
	if !sure || !ok {
		return Tool{}, false, sure
	}
	t.Raw = raw
	return t, true, true
}

// toolFields are Tool's JSON names, in decodeToolDirect's order.
var toolFields = [...]string{"name", "title", "description", "inputSchema", "outputSchema", "annotations"}

func toolField(name string) int {
	for i, f := range toolFields {
		if name == f {
			return i
		}
	}
	return -1
}

// foldsToToolField reports whether encoding/json might take name for one
// of Tool's fields: it is not ASCII, or it equals one in another case.
func foldsToToolField(name []byte) bool {
	for _, c := range name {
		if c >= utf8.RuneSelf {
			return true
		}
	}
	for _, f := range toolFields {
		if strings.EqualFold(string(name), f) {
			return true
		}
	}
	return false
}

// CallToolResult is the result of tools/call, or an input_required result.
type CallToolResult struct {
	ResultType        string                     `json:"resultType"`
	Content           []json.RawMessage          `json:"content"`
	StructuredContent json.RawMessage            `json:"structuredContent,omitempty"`
	IsError           bool                       `json:"isError,omitempty"`
	InputRequests     map[string]json.RawMessage `json:"inputRequests,omitempty"`
	RequestState      *string                    `json:"requestState,omitempty"`
	Raw               json.RawMessage            `json:"-"`
}

// CallTool calls a tool. extra is merged into params (for inputResponses
// and requestState on a multi round-trip retry).
func (c *Client) CallTool(ctx context.Context, name string, args map[string]any, extra map[string]any) (*CallToolResult, error) {
	params := map[string]any{"name": name}
	if args != nil {
		params["arguments"] = args
	}
	for k, v := range extra {
		params[k] = v
	}
	var raw json.RawMessage
	if err := c.Call(ctx, "tools/call", params, &raw); err != nil {
		return nil, err
	}
	var res CallToolResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("tools/call %s: decode result: %w", name, err)
	}
	res.Raw = raw
	return &res, nil
}

// AsModern returns a copy of c that sends the 2026-07-28 envelope on the
// same transport whatever era the probe found: conformance uses it to show
// what a legacy server answers to modern requests.
func (c *Client) AsModern() *Client {
	c2 := c.WithTransport(c.t)
	c2.era, c2.version = EraModern, LatestVersion
	return c2
}
