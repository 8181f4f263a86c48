package jsonscan

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// Decode returns the JSON value b holds as encoding/json decodes it into
// an any with UseNumber: map[string]any (a name given twice keeps its last
// value), []any (never nil), string, json.Number (as written), bool and
// nil; false when b is not exactly one JSON value (Valid). It is what
// github.com/santhosh-tekuri/jsonschema/v6's UnmarshalJSON returns for
// such bytes, which the JSON Schema library validates: mcp-eval decodes
// every schema it compiles and every message it validates, and
// encoding/json's reflection was most of that cost. FuzzDecode
// holds it to encoding/json.
func Decode(b []byte) (any, bool) {
	if !Valid(b) {
		return nil, false
	}
	d := decoder{b: b, i: SkipSpace(b, 0)}
	return d.value(), true
}

// decoder reads valid JSON; it checks nothing.
type decoder struct {
	b    []byte
	i    int
	keys map[string]string
	// firstWins keeps the first value of a name given twice (FirstWins).
	firstWins bool
}

func (d *decoder) value() any {
	switch c := d.b[d.i]; c {
	case '{':
		m := make(map[string]any)
		d.i = SkipSpace(d.b, d.i+1)
		if d.b[d.i] == '}' {
			d.i++
			return m
		}
		for {
			k := d.key()
			d.i = SkipSpace(d.b, d.i)
			d.i = SkipSpace(d.b, d.i+1) // past the colon
			v := d.value()
			if !d.firstWins {
				m[k] = v
			} else if _, seen := m[k]; !seen {
				m[k] = v
			}
			d.i = SkipSpace(d.b, d.i)
			if d.b[d.i] == '}' {
				d.i++
				return m
			}
			d.i = SkipSpace(d.b, d.i+1) // past the comma
		}
	case '[':
		a := make([]any, 0)
		d.i = SkipSpace(d.b, d.i+1)
		if d.b[d.i] == ']' {
			d.i++
			return a
		}
		for {
			a = append(a, d.value())
			d.i = SkipSpace(d.b, d.i)
			if d.b[d.i] == ']' {
				d.i++
				return a
			}
			d.i = SkipSpace(d.b, d.i+1)
		}
	case '"':
		return d.str()
	case 't':
		d.i += len("true")
		return true
	case 'f':
		d.i += len("false")
		return false
	case 'n':
		d.i += len("null")
		return nil
	}
	end := numberEnd(d.b, d.i)
	n := json.Number(d.b[d.i:end])
	d.i = end
	return n
}

// key reads the member name at d.i. Names repeat (every schema has its
// "type" and "description"): each distinct one is made a string once per
// Decode.
func (d *decoder) key() string {
	end := stringEndValid(d.b, d.i)
	in := d.b[d.i+1 : end-1]
	if bytes.IndexByte(in, '\\') >= 0 || !utf8.Valid(in) {
		return d.str()
	}
	d.i = end
	if k, ok := d.keys[string(in)]; ok {
		return k
	}
	if d.keys == nil {
		d.keys = map[string]string{}
	}
	k := string(in)
	d.keys[k] = k
	return k
}

// str reads the string at d.i.
func (d *decoder) str() string {
	end := stringEndValid(d.b, d.i)
	raw := d.b[d.i:end]
	d.i = end
	if in := raw[1 : len(raw)-1]; bytes.IndexByte(in, '\\') < 0 && utf8.Valid(in) {
		return string(in)
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return string(raw) // unreachable: raw is a valid JSON string
	}
	return s
}
