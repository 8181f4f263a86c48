package conformance

import (
	"bytes"
	"encoding/json"
	"math/big"
)

// Answers are matched against what was sent as JSON values, never as bytes:
// "ü", "\u00fc" and "\u00FC" are one string to JSON (RFC 8259 §7), and an
// encoder that escapes non-ASCII (Python's json.dumps by default) is as
// correct as one that does not. Numbers compare by value (7 and 7.0 are the
// same integer to JSON Schema); strings, numbers, booleans, null, arrays and
// objects never equal a value of another type.

// sameJSON reports whether a and b are the same JSON value. Invalid JSON
// equals nothing.
func sameJSON(a, b []byte) bool {
	va, ok := decodeValue(a)
	if !ok {
		return false
	}
	vb, ok := decodeValue(b)
	if !ok {
		return false
	}
	return equalValue(va, vb)
}

// jsonIs reports whether raw is the JSON value of v (marshalled by
// encoding/json).
func jsonIs(raw []byte, v any) bool {
	b, err := json.Marshal(v)
	return err == nil && sameJSON(raw, b)
}

func decodeValue(b []byte) (any, bool) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, false
	}
	if d.More() {
		return nil, false
	}
	return v, true
}

func equalValue(a, b any) bool {
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
			if !equalValue(x[i], y[i]) {
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
			if !ok || !equalValue(vx, vy) {
				return false
			}
		}
		return true
	}
	return false
}
