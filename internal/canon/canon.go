// Package canon writes JSON in one canonical form, so that two encodings
// of the same value (key order, white space, escapes such as \u00e9 for é)
// compare and hash equal: object keys sorted, no insignificant white space,
// numbers kept exactly as written, HTML characters not escaped.
package canon

import (
	"bytes"
	"encoding/json"
)

// JSON returns raw in canonical form, and false when raw is not one JSON
// value (then it returns raw unchanged).
func JSON(raw []byte) ([]byte, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return raw, false
	}
	if _, err := dec.Token(); err == nil {
		return raw, false // a second value follows
	}
	return Value(v), true
}

// Value returns v encoded in canonical form (nil when it cannot be
// encoded).
func Value(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return nil
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}
