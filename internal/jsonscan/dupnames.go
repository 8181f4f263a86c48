package jsonscan

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Duplicate is a member name given more than once in one object. RFC 8259
// §4 (https://www.rfc-editor.org/rfc/rfc8259#section-4): "The names within
// an object SHOULD be unique", and where they are not, "the behavior of
// software that receives such an object is unpredictable": most readers
// keep the last value (encoding/json, JavaScript's JSON.parse), some the
// first, some refuse the object.
type Duplicate struct {
	// Pointer is the JSON pointer (RFC 6901) of the object ("" for the
	// value itself).
	Pointer string
	// Name is the member's name, escapes undone.
	Name string
	// Offset is where the later occurrence's name starts in the bytes
	// scanned (for a line number).
	Offset int
	// First and Later are the values, as written, of the first and of the
	// later occurrence.
	First, Later []byte
}

// Differs reports whether the two values are written differently: a
// reader that keeps the first sees another message than one that keeps the
// last.
func (d Duplicate) Differs() bool { return !bytes.Equal(d.First, d.Later) }

// Line returns the 1-based line of d's later name in b.
func (d Duplicate) Line(b []byte) int {
	return bytes.Count(b[:min(d.Offset, len(b))], []byte{'\n'}) + 1
}

// dupFrame is one container open during Duplicates' scan.
type dupFrame struct {
	obj      bool
	wantName bool
	index    int            // the element being read, in an array
	name     [2]int         // the name being read, in an object (quoted span)
	valStart int            // where the member's value starts
	members  []span3        // the members read so far, in an object
	byName   map[string]int // index into members once the object is large
}

// span3 is a member: its quoted name and its value.
// plain says the name stands for its own bytes (no escape, valid UTF-8),
// so that it compares as bytes.
type span3 struct {
	n0, n1, v0, v1 int
	plain          bool
}

// largeObject is the member count beyond which names are looked up in a
// map instead of compared one by one.
const largeObject = 16

// Duplicates returns the names given twice in an object anywhere in b, in
// the order their later occurrences are written, at most limit of them (0:
// no bound). b must be valid JSON (Valid); on other bytes the result is
// meaningless but the call returns. It reads b once, strings a word at a
// time, and allocates only for an object with many members or a duplicate
// found: it runs on every message a server sends.
func Duplicates(b []byte, limit int) []Duplicate {
	var out []Duplicate
	var stackBuf [16]dupFrame
	st := stackBuf[:0]
	for i := 0; i < len(b); {
		c := b[i]
		switch c {
		case '{', '[':
			if len(st) < cap(st) {
				st = st[:len(st)+1]
				f := &st[len(st)-1]
				members := f.members[:0]
				*f = dupFrame{obj: c == '{', wantName: c == '{', members: members}
			} else {
				st = append(st, dupFrame{obj: c == '{', wantName: c == '{'})
			}
			i++
		case '}', ']', ',':
			if n := len(st); n > 0 {
				f := &st[n-1]
				if f.obj && !f.wantName {
					// A member ends: its value is everything since the colon.
					if d, ok := f.add(b, trimEnd(b, f.valStart, i)); ok && (limit == 0 || len(out) < limit) {
						d.Pointer = dupPointer(b, st[:n-1])
						out = append(out, d)
					}
				}
				if c == ',' {
					if f.obj {
						f.wantName = true
					} else {
						f.index++
					}
				} else {
					st = st[:n-1]
				}
			}
			i++
		case '"':
			end := min(StringClose(b, i)+1, len(b))
			if n := len(st); n > 0 && st[n-1].obj {
				f := &st[n-1]
				if f.wantName {
					f.name = [2]int{i, end}
					f.wantName = false
				}
			}
			i = end
		case ':':
			i = SkipSpace(b, i+1)
			if n := len(st); n > 0 {
				st[n-1].valStart = i
			}
		default:
			i++
		}
	}
	return out
}

// trimEnd returns the index past the last byte of b[start:end] that is
// not white space.
func trimEnd(b []byte, start, end int) int {
	for end > start {
		switch b[end-1] {
		case ' ', '\t', '\n', '\r':
			end--
			continue
		}
		break
	}
	return end
}

// add notes the member just read (its name f.name, its value
// b[f.valStart:valEnd]) and returns the duplicate it makes, if any.
func (f *dupFrame) add(b []byte, valEnd int) (Duplicate, bool) {
	m := span3{f.name[0], f.name[1], f.valStart, valEnd, plainName(b[f.name[0]:f.name[1]])}
	prev := -1
	if f.byName != nil {
		k := nameKey(b[m.n0:m.n1])
		if j, ok := f.byName[k]; ok {
			prev = j
		} else {
			f.byName[k] = len(f.members)
		}
	} else {
		name := b[m.n0:m.n1]
		for j, o := range f.members {
			if o.plain && m.plain {
				if o.n1-o.n0 == len(name) && bytes.Equal(b[o.n0:o.n1], name) {
					prev = j
					break
				}
			} else if nameKey(b[o.n0:o.n1]) == nameKey(name) {
				prev = j
				break
			}
		}
	}
	if prev < 0 {
		f.members = append(f.members, m)
		if f.byName == nil && len(f.members) > largeObject {
			f.byName = make(map[string]int, 2*largeObject)
			for j, o := range f.members {
				if _, ok := f.byName[nameKey(b[o.n0:o.n1])]; !ok {
					f.byName[nameKey(b[o.n0:o.n1])] = j
				}
			}
		}
		return Duplicate{}, false
	}
	first := f.members[prev]
	return Duplicate{Name: nameKey(b[m.n0:m.n1]), Offset: m.n0,
		First: b[first.v0:first.v1], Later: b[m.v0:m.v1]}, true
}

// plainName reports whether a quoted name stands for its own bytes.
func plainName(q []byte) bool {
	if len(q) < 2 {
		return false
	}
	in := q[1 : len(q)-1]
	for _, c := range in {
		if c == '\\' {
			return false
		}
		if c >= utf8.RuneSelf {
			return bytes.IndexByte(in, '\\') < 0 && utf8.Valid(in)
		}
	}
	return true
}

// nameKey is a quoted name as encoding/json decodes it.
func nameKey(q []byte) string {
	if plainName(q) {
		return string(q[1 : len(q)-1])
	}
	var s string
	if len(q) < 2 || json.Unmarshal(q, &s) != nil {
		return string(q) // not JSON: meaningless, but no panic
	}
	return s
}

// dupPointer is the JSON pointer of the container on top of st: each open
// container's current member name or element index.
func dupPointer(b []byte, st []dupFrame) string {
	var sb strings.Builder
	for _, f := range st {
		sb.WriteByte('/')
		if f.obj {
			k := nameKey(b[f.name[0]:f.name[1]])
			sb.WriteString(strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1"))
		} else {
			sb.WriteString(strconv.Itoa(f.index))
		}
	}
	return sb.String()
}

// FirstWins returns the JSON value b holds as a reader that keeps the first
// of a duplicated name's values sees it (members in encoding/json's sorted
// order, numbers as written), and false when b is not valid JSON. A
// message with duplicate names is judged in this reading too, so that a
// later value does not hide an invalid earlier one.
func FirstWins(b []byte) ([]byte, bool) {
	if !Valid(b) {
		return nil, false
	}
	d := decoder{b: b, i: SkipSpace(b, 0), firstWins: true}
	out, err := json.Marshal(d.value())
	return out, err == nil
}
