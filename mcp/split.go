package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
)

var errNotArray = errors.New("not a JSON array")

// splitArray returns the elements of the JSON array raw as sub-slices of
// it, without copying: a listing of 100 000 tools is then held once, not
// once per decoding step. raw must be valid JSON (it comes from a parsed
// message).
func splitArray(raw []byte) ([]json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) < 2 || raw[0] != '[' || raw[len(raw)-1] != ']' || !json.Valid(raw) {
		return nil, errNotArray
	}
	var out []json.RawMessage
	depth, start := 0, -1
	inString, escaped := false, false
	for i := 1; i < len(raw)-1; i++ {
		c := raw[i]
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case ',':
			if depth == 0 {
				out = append(out, bytes.TrimSpace(raw[start:i]))
				start = -1
				continue
			}
		case '"':
			inString = true
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		}
		if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		out = append(out, bytes.TrimSpace(raw[start:len(raw)-1]))
	}
	return out, nil
}
