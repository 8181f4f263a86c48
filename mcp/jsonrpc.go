package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/mcp-eval/mcp-eval/internal/clip"
	"github.com/mcp-eval/mcp-eval/internal/jsonscan"
)

// Protocol revisions the client speaks.
const (
	// LatestVersion is the stateless revision the client targets.
	LatestVersion = "2026-07-28"
	// LegacyVersion is the newest revision of the initialize era.
	LegacyVersion = "2025-11-25"
)

// JSON-RPC and MCP error codes (spec basic/index.mdx §Error Codes; schema.ts).
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
	// CodeHeaderMismatch: HTTP headers missing, malformed or disagreeing with
	// the body. Was -32001 in drafts.
	CodeHeaderMismatch = -32020
	// CodeMissingRequiredClientCapability: the request needs a client
	// capability the request did not declare. Was -32003 in drafts.
	CodeMissingRequiredClientCapability = -32021
	// CodeUnsupportedProtocolVersion: the requested revision is not served.
	// Was -32004 in drafts.
	CodeUnsupportedProtocolVersion = -32022
	// CodeLegacyResourceNotFound is the 2025-11-25 resource-not-found code,
	// which 2026-07-28 servers MUST NOT emit (SEP-2164).
	CodeLegacyResourceNotFound = -32002
	// CodeLegacyURLElicitationRequired was removed in 2026-07-28.
	CodeLegacyURLElicitationRequired = -32042
)

// Reserved _meta keys (spec basic/index.mdx §_meta).
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"
	MetaServerInfo         = "io.modelcontextprotocol/serverInfo"
	MetaTraceParent        = "traceparent"
)

// HTTP headers of the Streamable HTTP transport
// (basic/transports/streamable-http.mdx §Request metadata headers).
const (
	HeaderProtocolVersion = "MCP-Protocol-Version"
	HeaderMethod          = "Mcp-Method"
	HeaderName            = "Mcp-Name"
	HeaderSessionID       = "Mcp-Session-Id"
	HeaderParamPrefix     = "Mcp-Param-"
)

// Message is one JSON-RPC message as received. Fields hold the raw JSON of
// the corresponding member; a member that was absent is nil, and one that
// was JSON null is the bytes "null", so checks can tell the two apart.
type Message struct {
	JSONRPC json.RawMessage
	ID      json.RawMessage
	Method  string
	Params  json.RawMessage
	Result  json.RawMessage
	Error   *Error
	// Raw is the whole message as received.
	Raw json.RawMessage

	// parseErr is set on the placeholder stdio hands a request whose answer
	// carried its id but was not a valid JSON-RPC message.
	parseErr error
	// line is the stdout line a stdio message arrived on.
	line int
	// badUTF8 counts the bytes of the message as received that were not
	// UTF-8 (see InvalidUTF8).
	badUTF8 int
	// split holds where the parse found the members of the message and
	// of its result (indices into splitOf), and result the index of the
	// result member among them (-1: none): ResultMembers reads them
	// instead of scanning Result again, as long as Result is still that
	// member's value.
	split   []jsonscan.Member
	splitOf []byte
	result  int
}

// Line returns the stdout line a message arrived on over stdio (1 for the
// first), so that the order of a response and the notifications around it
// can be told; 0 for other transports, whose exchanges keep their
// messages in order.
func (m *Message) Line() int { return m.line }

// IsResponse reports whether m is a response (it has a result or an error).
func (m *Message) IsResponse() bool { return m.Result != nil || m.Error != nil }

// IsRequest reports whether m is a request (a method and an id).
func (m *Message) IsRequest() bool {
	return m.Method != "" && m.ID != nil && !bytes.Equal(m.ID, []byte("null"))
}

// IsNotification reports whether m is a notification (a method, no id).
func (m *Message) IsNotification() bool { return m.Method != "" && m.ID == nil }

// Error is a JSON-RPC error object. It is also a Go error, returned by
// Client.Call when the server answers with one.
type Error struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *Error) Error() string {
	return fmt.Sprintf("server error %d: %s", e.Code, clip.Bytes(e.Message, 300))
}

// errNotObject is returned for JSON that is not a single object.
var errNotObject = errors.New("not a JSON object")

// ParseMessage decodes one JSON-RPC message strictly: member names are
// matched exactly (encoding/json alone would accept "ID" for "id"), the id
// must be a string, a number or null, and the error code an integer.
func ParseMessage(raw []byte) (*Message, error) {
	return parseOwned(append([]byte(nil), bytes.TrimSpace(raw)...))
}

// parseOwned is ParseMessage for bytes the caller hands over: m.Raw and
// every member share them (jsonsplit.go) instead of copying a large answer
// once more.
func parseOwned(raw []byte) (*Message, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil, errNotObject
	}
	// One pass checks the message and finds its members and its result's
	// (at 1 000 tools, scanning each answer three times was a tenth of a
	// run).
	split, ok := jsonscan.ValidMembers(raw, nil)
	if !ok {
		// Only now pay for encoding/json's account of what is wrong.
		err := json.Unmarshal(raw, new(map[string]json.RawMessage))
		if err == nil {
			err = errNotObject
		}
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	members, result, err := membersOf(raw, split, -1)
	if err != nil {
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	m := &Message{Raw: raw, split: split, splitOf: raw, result: result}
	m.JSONRPC = members["jsonrpc"]
	if id, ok := members["id"]; ok {
		if !validID(id) {
			return nil, fmt.Errorf("id %s is neither a string, a number nor null", clip.Bytes(string(id), 80))
		}
		m.ID = id
	}
	if meth, ok := members["method"]; ok {
		if err := json.Unmarshal(meth, &m.Method); err != nil {
			return nil, fmt.Errorf("method is not a string")
		}
	}
	m.Params = members["params"]
	m.Result = members["result"]
	if e, ok := members["error"]; ok {
		perr, err := parseError(e)
		if err != nil {
			return nil, err
		}
		m.Error = perr
	}
	return m, nil
}

func parseError(raw json.RawMessage) (*Error, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil || members == nil {
		return nil, fmt.Errorf("error member is not an object")
	}
	e := &Error{Data: members["data"]}
	code, ok := members["code"]
	if !ok {
		return nil, fmt.Errorf("error object has no code")
	}
	n, err := strconv.ParseInt(string(bytes.TrimSpace(code)), 10, 64)
	if err != nil {
		return nil, fmt.Errorf("error code %s is not an integer", clip.Bytes(string(code), 40))
	}
	e.Code = int(n)
	if msg, ok := members["message"]; ok {
		if err := json.Unmarshal(msg, &e.Message); err != nil {
			return nil, fmt.Errorf("error message is not a string")
		}
	}
	return e, nil
}

func validID(id json.RawMessage) bool {
	id = bytes.TrimSpace(id)
	if len(id) == 0 {
		return false
	}
	switch id[0] {
	case '"':
		var s string
		return json.Unmarshal(id, &s) == nil
	case 'n':
		return string(id) == "null"
	default:
		var n json.Number
		return json.Unmarshal(id, &n) == nil
	}
}

// idKey normalises an id for correlation: the string "7" and the number 7
// map to the same key, so a server that changes an id's type is still
// matched to its request (and the check on id echo can see the change).
func idKey(id json.RawMessage) string {
	id = bytes.TrimSpace(id)
	if len(id) > 0 && id[0] == '"' {
		var s string
		if json.Unmarshal(id, &s) == nil {
			return s
		}
	}
	return string(id)
}

// Request is an outgoing JSON-RPC request or notification.
type Request struct {
	// ID is an int64, a string, or nil for a notification.
	ID     any
	Method string
	// Params is sent as given; nil omits the member.
	Params map[string]any
}

// MarshalJSON encodes the request with "jsonrpc":"2.0".
func (r *Request) MarshalJSON() ([]byte, error) {
	type wire struct {
		JSONRPC string         `json:"jsonrpc"`
		ID      any            `json:"id,omitempty"`
		Method  string         `json:"method"`
		Params  map[string]any `json:"params,omitempty"`
	}
	w := wire{JSONRPC: "2.0", ID: r.ID, Method: r.Method, Params: r.Params}
	if r.Params == nil {
		return json.Marshal(struct {
			JSONRPC string `json:"jsonrpc"`
			ID      any    `json:"id,omitempty"`
			Method  string `json:"method"`
		}{w.JSONRPC, w.ID, w.Method})
	}
	return json.Marshal(w)
}
