package conformance

import (
	"bytes"
	"encoding/json"

	"github.com/mcp-eval/mcp-eval/internal/canon"
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
