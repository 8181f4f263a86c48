package mcptest

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Echo makes the fixture repeat text back the way a server that reflects
// its input, or logs its request headers, does: the secrets tests put a
// secret in every spelling there and look for it in every output.
type Echo struct {
	// Texts are appended, as text, to the serverInfo name, to the text of
	// every tool result, and to the name of one extra tool (which then
	// fails lint/tool-name-pattern, quoting it).
	Texts []string `json:",omitempty"`
	// Wire are appended to the same strings as JSON string content on the
	// wire, as it is (every character as \uXXXX, say): a client decodes
	// them.
	Wire []string `json:",omitempty"`
	// SSE are sent over HTTP in a notification event before each
	// tools/call answer, each split over two data: lines of the event in
	// its middle. A client joins the lines with "\n" (the event is then no
	// JSON: jsonrpc/only-messages quotes it).
	SSE []string `json:",omitempty"`
	// Split are sent over HTTP cut in two in their middle, each half the
	// data of a notifications/message event of its own, one after the
	// other, before each tools/call answer: two adjacent messages of one
	// answer stream.
	Split []string `json:",omitempty"`
}

// echoToolName names the extra tool of Echo before the echo is appended.
const echoToolName = "mcp-eval-echo"

func (e *Echo) on() bool { return e != nil && len(e.Texts)+len(e.Wire) > 0 }

// echoTools is the extra tool Echo adds to every listing.
func echoTools(e *Echo) []map[string]any {
	if !e.on() {
		return nil
	}
	return []map[string]any{{
		"name": echoToolName, "description": "Repeats what it was sent.",
		"inputSchema": map[string]any{"type": "object", "properties": map[string]any{}, "additionalProperties": false},
	}}
}

// echoBody appends the echo to the strings of an encoded answer that
// Echo names.
func (s *Server) echoBody(b []byte) []byte {
	e := s.opts.Echo
	if !e.on() {
		return b
	}
	var add bytes.Buffer
	for _, t := range e.Texts {
		enc, _ := json.Marshal(t)
		add.WriteByte(' ')
		add.Write(enc[1 : len(enc)-1])
	}
	for _, w := range e.Wire {
		add.WriteString(" " + w)
	}
	for _, at := range []string{`"name":"` + ServerName, `"name":"` + echoToolName, `{"type":"text","text":"`} {
		b = bytes.ReplaceAll(b, []byte(at), append([]byte(at), add.Bytes()...))
	}
	return b
}

// echoSSE is the events Echo.SSE sends before a tools/call answer: a
// notification for each text, cut over two data: lines in its middle.
func (s *Server) echoSSE() [][]byte {
	if s.opts.Echo == nil {
		return nil
	}
	var evs [][]byte
	for _, t := range s.opts.Echo.SSE {
		enc, _ := json.Marshal(t)
		inner := string(enc[1 : len(enc)-1])
		half := len(inner) / 2
		for half > 0 && strings.Contains(inner[max(0, half-6):half], `\`) {
			half-- // not inside an escape
		}
		evs = append(evs, []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"`+
			inner[:half]+"\ndata: "+inner[half:]+`"}}`))
	}
	for _, t := range s.opts.Echo.Split {
		half := len(t) / 2
		for _, part := range []string{t[:half], t[half:]} {
			enc, _ := json.Marshal(part)
			evs = append(evs, []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":`+string(enc)+`}}`))
		}
	}
	return evs
}
