package mcp

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// paramHeaderCache maps tool names to their x-mcp-header bindings.
type paramHeaderCache struct {
	mu sync.Mutex
	m  map[string][]paramHeader
}

// NewCall builds a request in the client's era: for 2026-07-28, params._meta
// carries the protocol version, client capabilities, client info and a W3C
// traceparent, and the MCP headers mirror the body; for the legacy era the
// negotiated version header only.
func (c *Client) NewCall(method string, params map[string]any) *Call {
	p := make(map[string]any, len(params)+1)
	for k, v := range params {
		p[k] = v
	}
	call := &Call{ID: c.NextID(), Method: method, Params: p, Header: http.Header{}}
	if c.era == EraLegacy {
		if len(p) == 0 {
			call.Params = nil
		}
		call.Header.Set(HeaderProtocolVersion, c.version)
		return call
	}
	meta := call.Meta()
	meta[MetaProtocolVersion] = c.version
	meta[MetaClientCapabilities] = c.capabilities()
	meta[MetaClientInfo] = c.opts.ClientInfo
	meta[MetaTraceParent] = newTraceParent()
	call.Header.Set(HeaderProtocolVersion, c.version)
	call.Header.Set(HeaderMethod, method)
	if name, ok := nameOf(method, p); ok {
		call.Header.Set(HeaderName, EncodeHeaderValue(name))
	}
	if method == "tools/call" {
		c.setParamHeaders(call)
	}
	return call
}

// nameOf returns the value Mcp-Name mirrors for the three methods that
// carry it, and for the tasks extension's methods (tasks.md §Streamable
// HTTP: Routing Headers: the client MUST set Mcp-Name to params.taskId).
func nameOf(method string, params map[string]any) (string, bool) {
	key := ""
	switch method {
	case "tools/call", "prompts/get":
		key = "name"
	case "resources/read":
		key = "uri"
	case "tasks/get", "tasks/update", "tasks/cancel":
		key = "taskId"
	default:
		return "", false
	}
	s, ok := params[key].(string)
	return s, ok
}

// newTraceParent returns a W3C traceparent with random ids (SEP-414: trace
// context travels in _meta).
func newTraceParent() string {
	var b [24]byte
	_, _ = rand.Read(b[:])
	return "00-" + hex.EncodeToString(b[:16]) + "-" + hex.EncodeToString(b[16:]) + "-01"
}

// paramHeader binds a tool argument (a path of property names) to the
// Mcp-Param-{Header} it must be mirrored in.
type paramHeader struct {
	Path   []string
	Header string
}

func (c *Client) learnParamHeaders(tools []Tool) {
	ph := c.paramHeaders
	ph.mu.Lock()
	defer ph.mu.Unlock()
	for _, t := range tools {
		var bindings []paramHeader
		if mayBindHeaders(t.InputSchema) {
			collectParamHeaders(t.InputSchema, nil, &bindings, 0)
		}
		if len(bindings) > 0 {
			ph.m[t.Name] = bindings
		} else {
			delete(ph.m, t.Name)
		}
	}
}

// mayBindHeaders reports whether schema can hold an x-mcp-header key: it
// spells the key, or holds an escape that could spell it. Most schemas do
// neither, and are then not decoded at all.
func mayBindHeaders(schema []byte) bool {
	return bytes.Contains(schema, []byte("x-mcp-header")) || bytes.Contains(schema, []byte(`\u`))
}

// collectParamHeaders walks properties chains only: x-mcp-header is valid
// only on properties reachable from the root through "properties" keys
// (server/tools.mdx §x-mcp-header).
func collectParamHeaders(schema json.RawMessage, path []string, out *[]paramHeader, depth int) {
	if depth > 32 {
		return
	}
	var s struct {
		Header     string                     `json:"x-mcp-header"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return
	}
	if s.Header != "" && len(path) > 0 {
		*out = append(*out, paramHeader{Path: append([]string(nil), path...), Header: s.Header})
	}
	for name, sub := range s.Properties {
		collectParamHeaders(sub, append(path, name), out, depth+1)
	}
}

// setParamHeaders adds Mcp-Param-* headers for arguments bound by
// x-mcp-header, when the argument is present and not null.
func (c *Client) setParamHeaders(call *Call) {
	name, _ := call.Params["name"].(string)
	c.paramHeaders.mu.Lock()
	bindings := c.paramHeaders.m[name]
	c.paramHeaders.mu.Unlock()
	args, _ := call.Params["arguments"].(map[string]any)
	for _, b := range bindings {
		v, ok := lookupPath(args, b.Path)
		if !ok || v == nil {
			continue
		}
		if s, ok := headerScalar(v); ok {
			call.Header.Set(HeaderParamPrefix+b.Header, EncodeHeaderValue(s))
		}
	}
}

func lookupPath(m map[string]any, path []string) (any, bool) {
	var cur any = m
	for _, p := range path {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		cur, ok = mm[p]
		if !ok {
			return nil, false
		}
	}
	return cur, true
}

// headerScalar renders a string, integer or boolean argument as the spec's
// header value: strings as is, integers in decimal, booleans as true/false.
func headerScalar(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case bool:
		return strconv.FormatBool(x), true
	case int:
		return strconv.Itoa(x), true
	case int64:
		return strconv.FormatInt(x, 10), true
	case float64:
		if x == float64(int64(x)) {
			return strconv.FormatInt(int64(x), 10), true
		}
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return strconv.FormatInt(i, 10), true
		}
	}
	return "", false
}

// EncodeHeaderValue encodes a value for Mcp-Name or Mcp-Param-* headers
// (streamable-http.mdx §Value encoding): plain visible ASCII is sent as is;
// anything else — non-ASCII, control characters, leading or trailing
// white space, or a value that itself looks like the sentinel — is sent as
// =?base64?{base64(utf-8)}?=.
func EncodeHeaderValue(v string) string {
	if needsBase64(v) {
		return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(v)) + "?="
	}
	return v
}

// DecodeHeaderValue reverses EncodeHeaderValue; ok is false for a sentinel
// whose payload is not valid base64.
func DecodeHeaderValue(v string) (string, bool) {
	if !strings.HasPrefix(v, "=?base64?") || !strings.HasSuffix(v, "?=") || len(v) < len("=?base64??=") {
		return v, true
	}
	b, err := base64.StdEncoding.DecodeString(v[len("=?base64?") : len(v)-2])
	if err != nil {
		return v, false
	}
	return string(b), true
}

func needsBase64(v string) bool {
	if v == "" {
		return false
	}
	if v[0] == ' ' || v[0] == '\t' || v[len(v)-1] == ' ' || v[len(v)-1] == '\t' {
		return true
	}
	if strings.HasPrefix(v, "=?base64?") && strings.HasSuffix(v, "?=") {
		return true
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c < 0x20 || c > 0x7e {
			return true
		}
	}
	return false
}
