// Package canon writes JSON in one canonical form, so that two encodings
// of the same value (key order, white space, escapes such as \u00e9 for é)
// compare and hash equal: object keys sorted, no insignificant white space,
// numbers kept exactly as written, HTML characters not escaped.
package canon

import (
	"bytes"
	"encoding/json"
	"math/big"
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

// Decode returns the one JSON value in raw, numbers as json.Number so that
// none loses digits, and false when raw is not exactly one JSON value.
func Decode(raw []byte) (any, bool) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil || d.More() {
		return nil, false
	}
	return v, true
}

// EqualJSON reports whether a and b are the same JSON value (Equal).
// Invalid JSON equals nothing.
func EqualJSON(a, b []byte) bool {
	va, ok := Decode(a)
	if !ok {
		return false
	}
	vb, ok := Decode(b)
	return ok && Equal(va, vb)
}

// Equal reports whether two values decoded by Decode are the same JSON
// value: "ü" and "\u00fc" are one string (RFC 8259 §7), numbers compare
// by value (7 and 7.0 are equal), objects regardless of key order, and a
// value never equals one of another type.
func Equal(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		if x == y {
			return true
		}
		rx, okx := new(big.Rat).SetString(string(x))
		ry, oky := new(big.Rat).SetString(string(y))
		return okx && oky && rx.Cmp(ry) == 0
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !Equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, vx := range x {
			vy, ok := y[k]
			if !ok || !Equal(vx, vy) {
				return false
			}
		}
		return true
	}
	return false
}
