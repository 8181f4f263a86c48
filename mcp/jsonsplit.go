package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"unicode/utf8"

	"github.com/mcp-eval/mcp-eval/internal/jsonscan"
)

// Answers are split into their parts without copying: the members of an
// object and the elements of an array are sub-slices of the bytes read, so
// a listing of 100 000 tools is held once, not once per decoding step, and
// nothing is scanned more than it must be (every answer is checked to be
// JSON once, then split). encoding/json would copy every member of a
// message, then every member of its result, then every item of the list.

var errNotArray = errors.New("not a JSON array")

// Elements returns the elements of the JSON array raw as sub-slices of it.
// raw must be valid JSON (an answer's member); anything else is an error.
func Elements(raw []byte) ([]json.RawMessage, error) { return splitArray(raw) }

// Members returns the members of the JSON object raw, each value a
// sub-slice of raw (a name given twice keeps its last value, as
// encoding/json does). raw must be valid JSON; anything else is an error.
func Members(raw []byte) (map[string]json.RawMessage, error) {
	raw = jsonscan.TrimSpace(raw)
	if len(raw) < 2 || raw[0] != '{' || raw[len(raw)-1] != '}' || !jsonscan.Valid(raw) {
		return nil, errNotObject
	}
	return splitObject(raw)
}

// EachMember calls fn with each member of the JSON object raw, in the
// order written and a name given twice each time, its name decoded as
// encoding/json decodes it (escapes undone, invalid UTF-8 replaced; a name
// with neither shares raw's bytes). It returns false, calling fn for none,
// when raw is not one JSON object.
func EachMember(raw []byte, fn func(name []byte, value json.RawMessage)) bool {
	raw = jsonscan.TrimSpace(raw)
	if len(raw) < 2 || raw[0] != '{' || raw[len(raw)-1] != '}' || !jsonscan.Valid(raw) {
		return false
	}
	return eachMember(raw, fn)
}

// EachParsedMember is EachMember for raw known to be valid JSON (a part of
// a parsed Message, or of a value EachMember took): it is not checked
// again. On bytes that are not valid JSON it returns false or calls fn with
// meaningless parts, but does not fail otherwise.
func EachParsedMember(raw []byte, fn func(name []byte, value json.RawMessage)) bool {
	raw = jsonscan.TrimSpace(raw)
	if len(raw) < 2 || raw[0] != '{' || raw[len(raw)-1] != '}' {
		return false
	}
	return eachMember(raw, fn)
}

func eachMember(raw []byte, fn func(name []byte, value json.RawMessage)) bool {
	ok := true
	eachPart(raw, func(p []byte) bool {
		end := stringEnd(p)
		if end < 0 {
			ok = false
			return false
		}
		key, valid := jsonString(p[:end])
		rest := bytes.TrimSpace(p[end:])
		if !valid || len(rest) == 0 || rest[0] != ':' {
			ok = false
			return false
		}
		fn(key, bytes.TrimSpace(rest[1:]))
		return true
	})
	return ok
}

// jsonString returns the value of the valid JSON string s as encoding/json
// decodes it: s's own bytes inside the quotes when they hold no escape and
// are valid UTF-8.
func jsonString(s []byte) ([]byte, bool) {
	if in := s[1 : len(s)-1]; bytes.IndexByte(in, '\\') < 0 && utf8.Valid(in) {
		return in, true
	}
	var d string
	if json.Unmarshal(s, &d) != nil {
		return nil, false
	}
	return []byte(d), true
}

// JSONString is jsonString for a value of a parsed message: false when s
// is not a JSON string.
func JSONString(s []byte) ([]byte, bool) {
	s = jsonscan.TrimSpace(s)
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return nil, false
	}
	return jsonString(s)
}

// ResultMembers returns the members of the message's result, as Members
// does but without checking again what the message's parse checked: the
// members its one pass found, while Result is still the value it parsed.
func (m *Message) ResultMembers() (map[string]json.RawMessage, error) {
	raw := bytes.TrimSpace(m.Result)
	if len(raw) < 2 || raw[0] != '{' || raw[len(raw)-1] != '}' {
		return nil, errNotObject
	}
	if m.result >= 0 && m.result < len(m.split) {
		if v := m.split[m.result]; v.ValueEnd-v.ValueStart == len(raw) && &raw[0] == &m.splitOf[v.ValueStart] {
			members, _, err := membersOf(m.splitOf, m.split, m.result)
			return members, err
		}
	}
	return splitObject(raw)
}

// membersOf returns the members split lists under parent (-1: the outer
// object's) as splitObject returns them, raw being the bytes split
// indexes, and the index in split of the last member named "result" (-1:
// none), which encoding/json would keep.
func membersOf(raw []byte, split []jsonscan.Member, parent int) (map[string]json.RawMessage, int, error) {
	n := 0
	for _, s := range split {
		if s.Parent == parent {
			n++
		}
	}
	m := make(map[string]json.RawMessage, n)
	result := -1
	for i, s := range split {
		if s.Parent != parent {
			continue
		}
		name, ok := jsonString(raw[s.NameStart:s.NameEnd])
		if !ok {
			return nil, -1, errNotObject
		}
		key := string(name)
		m[key] = raw[s.ValueStart:s.ValueEnd]
		if key == "result" {
			result = i
		}
	}
	return m, result, nil
}

// ParsedElements is Elements for raw that is part of a parsed Message (a
// member of ResultMembers): it is not checked to be JSON again.
func ParsedElements(raw []byte) ([]json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) < 2 || raw[0] != '[' || raw[len(raw)-1] != ']' {
		return nil, errNotArray
	}
	return splitValid(raw), nil
}

// splitArray returns the elements of the JSON array raw as sub-slices of
// it, without copying. raw must be valid JSON (it is checked).
func splitArray(raw []byte) ([]json.RawMessage, error) {
	raw = jsonscan.TrimSpace(raw)
	if len(raw) < 2 || raw[0] != '[' || raw[len(raw)-1] != ']' || !jsonscan.Valid(raw) {
		return nil, errNotArray
	}
	return splitValid(raw), nil
}

// splitValid splits the valid JSON array or object raw at its top-level
// commas, returning each part trimmed (for an object, "name": value).
func splitValid(raw []byte) []json.RawMessage {
	var out []json.RawMessage
	eachPart(raw, func(p []byte) bool { out = append(out, p); return true })
	return out
}

// eachPart calls fn with each part splitValid returns, in order, until fn
// returns false.
func eachPart(raw []byte, fn func(part []byte) bool) {
	depth, start := 0, -1
	for i := 1; i < len(raw)-1; i++ {
		c := raw[i]
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case ',':
			if depth == 0 {
				if !fn(bytes.TrimSpace(raw[start:i])) {
					return
				}
				start = -1
				continue
			}
		case '"':
			if start < 0 {
				start = i
			}
			// Most of an answer's bytes are in strings: jump to the
			// closing quote rather than look at each byte.
			i = jsonscan.StringClose(raw, i)
			continue
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
		fn(bytes.TrimSpace(raw[start : len(raw)-1]))
	}
}

// splitObject returns the members of the valid JSON object raw.
func splitObject(raw []byte) (map[string]json.RawMessage, error) {
	parts := splitValid(raw)
	m := make(map[string]json.RawMessage, len(parts))
	for _, p := range parts {
		// p is "name" : value; the name is a JSON string, which may hold a
		// colon or escapes of its own.
		end := stringEnd(p)
		if end < 0 {
			return nil, errNotObject
		}
		// A name with an escape or invalid UTF-8 is decoded, so that it
		// reads as encoding/json reads it (bytes that are not UTF-8 become
		// U+FFFD).
		name, ok := jsonString(p[:end])
		if !ok {
			return nil, errNotObject
		}
		key := string(name)
		rest := bytes.TrimSpace(p[end:])
		if len(rest) == 0 || rest[0] != ':' {
			return nil, errNotObject
		}
		m[key] = bytes.TrimSpace(rest[1:])
	}
	return m, nil
}

// stringEnd returns the index just past the JSON string that p starts
// with, or -1.
func stringEnd(p []byte) int {
	if len(p) == 0 || p[0] != '"' {
		return -1
	}
	if i := jsonscan.StringClose(p, 0); i < len(p) {
		return i + 1
	}
	return -1
}
