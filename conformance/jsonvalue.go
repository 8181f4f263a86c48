package conformance

import (
	"bytes"
	"encoding/json"

	"github.com/mcp-eval/mcp-eval/internal/canon"
	"github.com/mcp-eval/mcp-eval/internal/jsonscan"
	"github.com/mcp-eval/mcp-eval/mcp"
)

// Answers are matched against what was sent as JSON values, never as bytes:
// "ü", "\u00fc" and "\u00FC" are one string to JSON (RFC 8259 §7), and an
// encoder that escapes non-ASCII (Python's json.dumps by default) is as
// correct as one that does not. Numbers compare by value (7 and 7.0 are the
// same integer to JSON Schema); strings, numbers, booleans, null, arrays and
// objects never equal a value of another type. canon.EqualJSON is that
// comparison.

// jsonIs reports whether raw is the JSON value of v (marshalled by
// encoding/json).
func jsonIs(raw []byte, v any) bool {
	b, err := json.Marshal(v)
	if err != nil {
		return false
	}
	// The same bytes are the same value, and the usual case: nothing to
	// decode (at 20 000 tools the decoders were most of a check's memory).
	return bytes.Equal(bytes.TrimSpace(raw), b) || canon.EqualJSON(raw, b)
}

// The tool checks read a few members of every schema of a listing. They
// read them as encoding/json decodes a struct (a member's name matches a
// field case-insensitively, the last of several wins, a value of the wrong
// type leaves the field as it was), since that is what the checks have
// always judged, but from the bytes split in place: decoding each schema
// into structs and maps was a tenth of a big server's run.
// TestFieldsAsDecoded and FuzzFieldsAsDecoded hold them to encoding/json.
// raw is checked to be JSON once, by the outermost call (valid, when the
// caller has checked it).

// rawField returns the value encoding/json decodes into a json.RawMessage
// field called name of a struct from raw (the last member whose name
// matches name case-insensitively), and false when decoding would fail:
// raw is not an object or null.
func rawField(raw []byte, name string) (json.RawMessage, bool) {
	if isNull(raw) {
		return nil, true
	}
	var v json.RawMessage
	ok := mcp.EachMember(raw, func(k []byte, val json.RawMessage) {
		if bytes.EqualFold(k, []byte(name)) {
			v = val
		}
	})
	return v, ok
}

// stringFields returns what encoding/json decodes into string fields
// called names of a struct from the valid JSON raw: for each, the last
// matching member whose value is a string (null and values of other types
// leave the field as it was); clean is false when decoding would return an
// error (raw is not an object or null, or a matching value has another
// type).
func stringFields(raw []byte, names ...string) (values []string, clean bool) {
	values = make([]string, len(names))
	if isNull(raw) {
		return values, true
	}
	clean = true
	ok := mcp.EachParsedMember(raw, func(k []byte, val json.RawMessage) {
		for i, name := range names {
			if !bytes.EqualFold(k, []byte(name)) || isNull(val) {
				continue
			}
			if s, ok := mcp.JSONString(val); ok {
				values[i] = string(s)
			} else {
				clean = false
			}
		}
	})
	return values, ok && clean
}

// mapFields returns what encoding/json decodes into
// map[string]json.RawMessage fields called names of a struct from the
// valid JSON raw: for each, every matching member's object merged into one
// map in order (a null empties it); ok is false when decoding would fail
// (raw is not an object or null, or a matching value is neither an object
// nor null).
func mapFields(raw []byte, names ...string) (maps []map[string]json.RawMessage, ok bool) {
	maps = make([]map[string]json.RawMessage, len(names))
	if isNull(raw) {
		return maps, true
	}
	clean := true
	ok = mcp.EachParsedMember(raw, func(k []byte, val json.RawMessage) {
		for i, name := range names {
			if !bytes.EqualFold(k, []byte(name)) {
				continue
			}
			if isNull(val) {
				maps[i] = nil
				continue
			}
			if maps[i] == nil {
				maps[i] = map[string]json.RawMessage{}
			}
			m := maps[i]
			if !mcp.EachParsedMember(val, func(k []byte, v json.RawMessage) { m[string(k)] = v }) {
				clean = false
			}
		}
	})
	return maps, ok && clean
}

func isNull(raw []byte) bool { return string(jsonscan.TrimSpace(raw)) == "null" }
