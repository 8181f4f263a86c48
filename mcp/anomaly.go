package mcp

import (
	"bytes"
	"encoding/json"
	"maps"
	"strings"
	"sync"
	"time"

	"github.com/mcp-eval/mcp-eval/internal/clip"
	"github.com/mcp-eval/mcp-eval/internal/jsonscan"
)

// Anomaly kinds: protocol-hygiene findings the transports record as they
// read, for a check to report with the evidence (JSON-RPC 2.0 §5: exactly
// one response per request, with the request's id; stdio.mdx: the server
// MUST NOT write anything to stdout that is not a valid MCP message).
const (
	// AnomalyOrphan is a response whose id matches no request in flight
	// (never sent, or already given up on).
	AnomalyOrphan = "orphan"
	// AnomalyLate is a response to a request the client gave up on (timed
	// out, then notifications/cancelled): a slow server, not a wrong one.
	AnomalyLate = "late"
	// AnomalyDuplicate is a second response to an id already answered.
	AnomalyDuplicate = "duplicate"
	// AnomalyBanner is a non-JSON-RPC stdout line before the first message
	// (a start-up banner): a warning.
	AnomalyBanner = "banner"
	// AnomalyNonJSON is a non-JSON-RPC stdout line (or SSE event) after the
	// first message: a failure.
	AnomalyNonJSON = "non-json"
	// AnomalyUnparseable is an answer that carries a request's id but is not
	// a valid JSON-RPC message; the request failed with a ProtocolError.
	AnomalyUnparseable = "unparseable"
	// AnomalyInvalidUTF8 is a stdout line, an answer body or an SSE event
	// holding bytes that are not UTF-8 (utf8.go); what was kept of it has
	// them replaced by U+FFFD.
	AnomalyInvalidUTF8 = "invalid-utf8"
)

// Anomaly is one protocol-hygiene finding.
type Anomaly struct {
	Kind string
	// Detail says what happened, in one sentence.
	Detail string
	// Evidence is an excerpt (at most ~200 bytes) of what was received.
	Evidence string
	// At is when it was seen.
	At time.Time
}

// maxAnomalies bounds what a transport remembers; Count keeps counting.
const maxAnomalies = 256

type anomalies struct {
	amu   sync.Mutex
	list  []Anomaly
	count map[string]int
}

func (a *anomalies) record(x Anomaly) {
	if x.At.IsZero() {
		x.At = time.Now()
	}
	a.amu.Lock()
	defer a.amu.Unlock()
	if a.count == nil {
		a.count = map[string]int{}
	}
	a.count[x.Kind]++
	if len(a.list) < maxAnomalies {
		a.list = append(a.list, x)
	}
}

// Anomalies returns what the transport recorded so far, oldest first (at
// most 256; AnomalyCounts has the totals).
func (a *anomalies) Anomalies() []Anomaly {
	a.amu.Lock()
	defer a.amu.Unlock()
	return append([]Anomaly(nil), a.list...)
}

// AnomalyCounts returns how many anomalies of each kind were seen.
func (a *anomalies) AnomalyCounts() map[string]int {
	a.amu.Lock()
	defer a.amu.Unlock()
	return maps.Clone(a.count)
}

// anomalySource is implemented by the transports of this package.
type anomalySource interface {
	Anomalies() []Anomaly
	AnomalyCounts() map[string]int
}

// lenientID returns the id member of a line that is a JSON object but not
// a valid JSON-RPC message, or nil.
func lenientID(line []byte) json.RawMessage {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' {
		return nil
	}
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal(line, &m); err != nil {
		// Nested deeper than encoding/json reads (its bound, 10 000): the
		// id is read from the top level alone, so that the request it
		// answers is told so rather than left to time out.
		if !strings.Contains(err.Error(), "exceeded max depth") {
			return nil
		}
		m.ID = topLevelID(line)
	}
	if m.ID == nil || string(m.ID) == "null" {
		return nil
	}
	return m.ID
}

// topLevelID returns the "id" member of the JSON object line, read without
// descending into any other member (nil when there is none, or line is
// not an object of members this simple scan can follow).
func topLevelID(line []byte) json.RawMessage {
	i := jsonscan.SkipSpace(line, 1)
	for i < len(line) && line[i] == '"' {
		end := jsonscan.StringClose(line, i)
		if end >= len(line) {
			return nil
		}
		key := line[i : end+1]
		i = jsonscan.SkipSpace(line, end+1)
		if i >= len(line) || line[i] != ':' {
			return nil
		}
		start := jsonscan.SkipSpace(line, i+1)
		// The value ends at the first , or } outside strings and nested
		// containers, counted rather than parsed.
		depth, j := 0, start
		for ; j < len(line); j++ {
			c := line[j]
			if c == '"' {
				j = jsonscan.StringClose(line, j)
			} else if c == '{' || c == '[' {
				depth++
			} else if (c == '}' || c == ']') && depth > 0 {
				depth--
			} else if depth == 0 && (c == ',' || c == '}') {
				break
			}
		}
		if string(key) == `"id"` {
			v := jsonscan.TrimSpace(line[start:min(j, len(line))])
			if json.Valid(v) {
				return append(json.RawMessage(nil), v...)
			}
			return nil
		}
		if j >= len(line) || line[j] != ',' {
			return nil
		}
		i = jsonscan.SkipSpace(line, j+1)
	}
	return nil
}

func orAbsentID(id json.RawMessage) string {
	if id == nil {
		return "(absent)"
	}
	return clip.Bytes(string(id), 60)
}

// idlessError reports whether m is an error response without an id (absent
// or null): JSON-RPC 2.0 §5 uses it when the request's id could not be
// read, and the Streamable HTTP rules allow it for a rejected request (an
// invalid Origin's 403, a body that is not one message). It answers the
// request it came back on, so it is no orphan; jsonrpc/error-id-echo judges
// the id itself.
func idlessError(m *Message) bool {
	return m.Error != nil && (m.ID == nil || string(m.ID) == "null")
}
