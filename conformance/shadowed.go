package conformance

import (
	"bytes"
	"encoding/json"
	"maps"

	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/report"
)

// A name given twice in a result (RFC 8259 §4: names "SHOULD be unique")
// is read by mcp-eval, as by encoding/json and JSON.parse, as its last
// value; a client that keeps the first sees another result. So that a
// later valid value does not hide an invalid earlier one (`"ttlMs":1e400,
// "ttlMs":0`), the checks that judge a listing page's members
// (e.pages: caching/*, result-type/*) judge the page in that reading too,
// and fail where it fails. Duplicates deeper in a message are the message
// recorder's (engine/wire/dupnames.go: its schema validation reads both).

// firstValues returns the members of x's result as a first-value reader
// sees them, less what m (the page's kept members) lacks, when a member
// given twice has values written differently; nil otherwise.
func firstValues(x *mcp.Exchange, m map[string]json.RawMessage) map[string]json.RawMessage {
	if x == nil || x.Response == nil {
		return nil
	}
	first := map[string]json.RawMessage{}
	differs := false
	mcp.EachParsedMember(x.Response.Result, func(name []byte, v json.RawMessage) {
		k := string(name)
		if f, seen := first[k]; seen {
			differs = differs || !bytes.Equal(f, v)
			return
		}
		first[k] = v
	})
	if !differs {
		return nil
	}
	out := maps.Clone(m)
	for k := range m {
		if v, ok := first[k]; ok {
			out[k] = bytes.Clone(v)
		}
	}
	return out
}

// visitFirst judges page p in the first-value reading, when it has one;
// a failure says which reading failed.
func visitFirst(i int, p listPage, visit func(int, map[string]json.RawMessage, map[string]any) *Outcome) *Outcome {
	if p.first == nil {
		return nil
	}
	o := visit(i, p.first, p.ev)
	if o == nil || o.Status != report.StatusFail {
		return nil
	}
	o.Message += " (in the answer as a client that keeps a duplicated member's first value reads it: the answer gives a member twice, and a later value hides this one from readers that keep the last)"
	return o
}
