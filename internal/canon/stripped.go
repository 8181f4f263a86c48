package canon

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/mcp-eval/mcp-eval/internal/jsonscan"
)

// Stripped returns the canonical form of the JSON object raw with every
// member whose name is in drop left out, at every depth: the bytes Value
// writes for raw decoded (numbers as json.Number) with those members
// deleted. top holds each remaining top-level member's canonical value, a
// sub-slice of c. ok is false when raw is not one valid JSON object.
//
// It works on the bytes, copying what is already canonical (most strings
// and every number are) instead of decoding the object into maps and
// encoding it again: a big server's listing is fingerprinted item by item
// before its checks run (engine/surface), and the decode and encode were
// a tenth of a conformance run's CPU at 1 000 tools.
// FuzzStripped holds it to Value's output.
func Stripped(raw []byte, drop map[string]bool) (c []byte, top map[string][]byte, ok bool) {
	raw = jsonscan.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' || !jsonscan.Valid(raw) {
		return nil, nil, false
	}
	w := stripWriter{drop: drop, buf: make([]byte, 0, len(raw))}
	if p, ok := scratchPool.Get().(*[]member); ok {
		w.scratch = (*p)[:0]
		defer func() { *p = w.scratch[:0]; scratchPool.Put(p) }()
	}
	spans := w.object(raw, true)
	top = make(map[string][]byte, len(spans))
	for _, s := range spans {
		top[s.key] = w.buf[s.start:s.end:s.end]
	}
	return w.buf, top, true
}

// scratchPool keeps the member lists of finished writers for the next:
// a listing is canonicalised item by item.
var scratchPool sync.Pool

type stripWriter struct {
	buf  []byte
	drop map[string]bool
	// scratch holds the members of the objects being written, innermost
	// last, reused from one object to the next.
	scratch []member
}

type span struct {
	key        string
	start, end int
}

// member is one member of an object: its name decoded (name) or, when
// the name has no escape, as written (the same bytes), and its value.
type member struct {
	name []byte
	val  []byte
}

// value writes the canonical form of the valid JSON value v (no white
// space around it).
func (w *stripWriter) value(v []byte) {
	switch v[0] {
	case '{':
		w.object(v, false)
	case '[':
		w.buf = append(w.buf, '[')
		for i, e := range elements(v) {
			if i > 0 {
				w.buf = append(w.buf, ',')
			}
			w.value(e)
		}
		w.buf = append(w.buf, ']')
	case '"':
		w.str(v)
	default: // a number, kept as written (json.Number), or a literal
		w.buf = append(w.buf, v...)
	}
}

// object writes the valid JSON object v: its members sorted by name (a
// name given twice keeps its last value, as decoding does), those in drop
// left out. With spans, it returns where each member's value was written.
func (w *stripWriter) object(v []byte, spans bool) []span {
	mark := len(w.scratch)
	w.scratch = appendMembers(w.scratch, v)
	ms := w.scratch[mark:]
	// Sorted by name, stable so that of a name given twice the last comes
	// last, and is the one kept.
	slices.SortStableFunc(ms, func(a, b member) int { return bytes.Compare(a.name, b.name) })
	var out []span
	w.buf = append(w.buf, '{')
	first := true
	for i, m := range ms {
		if i+1 < len(ms) && bytes.Equal(ms[i+1].name, m.name) || w.drop[string(m.name)] {
			continue
		}
		if !first {
			w.buf = append(w.buf, ',')
		}
		first = false
		w.buf = appendString(w.buf, m.name)
		w.buf = append(w.buf, ':')
		start := len(w.buf)
		w.value(m.val)
		if spans {
			out = append(out, span{string(m.name), start, len(w.buf)})
		}
	}
	clear(w.scratch[mark:])
	w.scratch = w.scratch[:mark]
	w.buf = append(w.buf, '}')
	return out
}

// str writes the JSON string s as encoding/json writes its decoded value.
func (w *stripWriter) str(s []byte) {
	if plainString(s[1 : len(s)-1]) {
		w.buf = append(w.buf, s...)
		return
	}
	w.buf = appendString(w.buf, decoded(s))
}

// plainString reports whether the inside of a JSON string, or a decoded
// string, is written back unchanged by decoding and encoding it: no escape,
// quote or control character, valid UTF-8 (decoding replaces invalid
// bytes), and neither U+2028 nor U+2029 (which encoding/json escapes).
func plainString[T ~string | ~[]byte](in T) bool {
	ascii := true
	for i := 0; i < len(in); i++ {
		switch c := in[i]; {
		case c == '\\' || c == '"' || c < 0x20:
			return false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	if ascii {
		return true
	}
	s := string(in)
	return utf8.ValidString(s) && !strings.Contains(s, "\u2028") && !strings.Contains(s, "\u2029")
}

// appendString appends the decoded string s encoded as Value encodes a
// string.
func appendString(dst, s []byte) []byte {
	if plainString(s) {
		dst = append(dst, '"')
		dst = append(dst, s...)
		return append(dst, '"')
	}
	return append(dst, Value(string(s))...)
}

// appendMembers appends the members of the valid JSON object v, in order.
func appendMembers(ms []member, v []byte) []member {
	i := jsonscan.SkipSpace(v, 1)
	for i < len(v) && v[i] == '"' {
		end := valueEnd(v, i)
		name := v[i+1 : end-1]
		if !plainString(name) {
			name = decoded(v[i:end])
		}
		i = jsonscan.SkipSpace(v, end)
		i = jsonscan.SkipSpace(v, i+1) // past the colon
		end = valueEnd(v, i)
		ms = append(ms, member{name, v[i:end]})
		i = jsonscan.SkipSpace(v, end)
		if i < len(v) && v[i] == ',' {
			i = jsonscan.SkipSpace(v, i+1)
		}
	}
	return ms
}

// decoded returns the value of the valid JSON string s.
func decoded(s []byte) []byte {
	var d string
	if json.Unmarshal(s, &d) != nil {
		return s // unreachable: s is valid JSON
	}
	return []byte(d)
}

// elements splits the valid JSON array v into its elements.
func elements(v []byte) [][]byte {
	var out [][]byte
	i := jsonscan.SkipSpace(v, 1)
	for i < len(v) && v[i] != ']' {
		end := valueEnd(v, i)
		out = append(out, v[i:end])
		i = jsonscan.SkipSpace(v, end)
		if i < len(v) && v[i] == ',' {
			i = jsonscan.SkipSpace(v, i+1)
		}
	}
	return out
}

// valueEnd returns the index just past the valid JSON value at v[i].
func valueEnd(v []byte, i int) int {
	switch v[i] {
	case '"':
		return min(jsonscan.StringClose(v, i)+1, len(v))
	case '{', '[':
		depth := 0
		for ; i < len(v); i++ {
			switch v[i] {
			case '"':
				i = jsonscan.StringClose(v, i)
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return len(v)
	}
	for i < len(v) {
		switch v[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}
