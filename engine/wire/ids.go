package wire

import (
	"bytes"
	"encoding/json"
	"sort"

	"github.com/mcp-eval/mcp-eval/internal/canon"
	"github.com/mcp-eval/mcp-eval/mcp"
)

// IDEcho is what a Recorder saw of the ids that answers carry, on every
// request the observed transports sent: basic/index.mdx §Responses, a
// response "MUST include the same ID as the request it corresponds to",
// and JSON-RPC 2.0 §5, the id "MUST be the same as the value of the id
// member in the Request Object" — the same JSON value, of the same type
// (compared as values: "\u00fc" is "ü"). A client that keys pending
// requests by the id's text (7 and "7" alike) pairs a retyped answer
// anyway, so only this comparison shows it.
type IDEcho struct {
	// Answers counts the responses paired with a request that had an id:
	// those whose id has the request id's text, whatever its type. Error
	// responses without an id (to a request the server could not read) are
	// jsonrpc/error-id-echo's, and answers under another id altogether are
	// orphans (mcp.Anomaly); neither is counted.
	Answers int
	// Methods are the methods answered, sorted.
	Methods []string
	// Mismatches are the answers whose id differs from the request's, one
	// per method (the first seen, with a count), in the order first seen.
	Mismatches []IDMismatch
}

// IDMismatch is a method whose answers changed the request's id.
type IDMismatch struct {
	Method string `json:"method"`
	Sent   string `json:"sent"`
	Got    string `json:"got"`
	Count  int    `json:"count"`
}

// idTally accumulates IDEcho; guarded by the Recorder's mu.
type idTally struct {
	answers  int
	methods  map[string]bool
	bad      map[string]*IDMismatch
	badOrder []string
}

// noteID compares m's id with the id sent. Called with r.mu held.
func (t *idTally) note(sent *mcp.Outgoing, m *mcp.Message) {
	if sent == nil || sent.ID == nil || !m.IsResponse() {
		return
	}
	got := bytes.TrimSpace(m.ID)
	if m.Error != nil && (len(got) == 0 || string(got) == "null") {
		return
	}
	want := bytes.TrimSpace(sent.ID)
	if idText(got) != idText(want) {
		// Another id altogether: an answer to a request never sent, which
		// the transports record as an orphan (jsonrpc/one-response-per-request).
		return
	}
	if t.methods == nil {
		t.methods, t.bad = map[string]bool{}, map[string]*IDMismatch{}
	}
	t.answers++
	t.methods[sent.Method] = true
	if bytes.Equal(got, want) || canon.EqualJSON(got, want) {
		return
	}
	if b := t.bad[sent.Method]; b != nil {
		b.Count++
		return
	}
	shown := string(got)
	if len(got) == 0 {
		shown = "(none)"
	}
	t.bad[sent.Method] = &IDMismatch{Method: sent.Method, Sent: clip(want, 80), Got: clip([]byte(shown), 80), Count: 1}
	t.badOrder = append(t.badOrder, sent.Method)
}

// idText is an id's text as a client that keys requests by it sees it: a
// string's contents, else the JSON text (7 and "7" alike).
func idText(id []byte) string {
	if len(id) > 0 && id[0] == '"' {
		var s string
		if json.Unmarshal(id, &s) == nil {
			return s
		}
	}
	return string(id)
}

func (t *idTally) summary() IDEcho {
	s := IDEcho{Answers: t.answers}
	for m := range t.methods {
		s.Methods = append(s.Methods, m)
	}
	sort.Strings(s.Methods)
	for _, m := range t.badOrder {
		s.Mismatches = append(s.Mismatches, *t.bad[m])
	}
	return s
}
