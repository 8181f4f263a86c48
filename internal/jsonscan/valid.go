// Package jsonscan checks JSON bytes faster than encoding/json, with
// exactly its verdicts: mcp-eval checks every answer a server sends before
// splitting it (mcp), and canonicalises big listings (internal/canon).
// It imports only the standard library.
package jsonscan

import (
	"bytes"
	"encoding/binary"
)

// Valid reports whether b is exactly one JSON value with optional white
// space around it: what encoding/json's Valid reports, for every input
// (FuzzValid), including its nesting limit of 10 000 and its leniency
// towards invalid UTF-8 inside strings (the transports repair those bytes
// before an answer is parsed, see mcp/utf8.go).
//
// Every answer is checked once before it is split (mcp/jsonsplit.go), so
// this is on the path of every byte a server sends; encoding/json's scanner
// calls a function per byte, which made the check two thirds of the
// client's CPU on a big server's listings (measured before the fix: 15 MB of tools/list
// pages a run at 1 000 tools). This one reads a string's bytes eight at a
// time (hasSpecial), then with a table, and keeps only a stack of open
// containers.
func Valid(b []byte) bool { return valid(b, nil) }

// Member is one member of an object that ValidMembers found: its quoted
// name is b[NameStart:NameEnd] and its value b[ValueStart:ValueEnd], with
// no white space around either. Parent is -1 for a member of the value
// itself, and for a member of an object that is the value of a member, the
// index of that member in the list.
type Member struct {
	Parent                                   int
	NameStart, NameEnd, ValueStart, ValueEnd int
}

// ValidMembers is Valid, and when b is a JSON object, it also appends to
// out the members of the object and of every object that is a member's
// value (a JSON-RPC message and its result), in the order written: what
// splitting them would find, found in the same pass (FuzzValidMembers).
// out is returned as it was when b is not valid JSON.
func ValidMembers(b []byte, out []Member) ([]Member, bool) {
	r := &recorder{members: out, outer: -1, inner: -1}
	if !valid(b, r) {
		return out, false
	}
	return r.members, true
}

// recorder notes the members of the two outermost levels of objects.
type recorder struct {
	members []Member
	// outer and inner index the member of the outermost object, and of
	// the object that is its value, whose value is being read (-1: none).
	outer, inner int
}

// name notes a member's name starting at b[i], ending at end, of an object
// depth containers deep whose containers are open.
func (r *recorder) name(open []byte, start, end int) {
	switch {
	case len(open) == 1 && open[0] == '{':
		r.outer = len(r.members)
		r.members = append(r.members, Member{Parent: -1, NameStart: start, NameEnd: end})
	case len(open) == 2 && open[0] == '{' && open[1] == '{':
		r.inner = len(r.members)
		r.members = append(r.members, Member{Parent: r.outer, NameStart: start, NameEnd: end})
	}
}

// reading is the member whose value is being read when open are the
// containers open, nil at any other depth.
func (r *recorder) reading(open []byte) *Member {
	switch {
	case len(open) == 1 && open[0] == '{':
		return &r.members[r.outer]
	case len(open) == 2 && open[0] == '{' && open[1] == '{':
		return &r.members[r.inner]
	}
	return nil
}

func valid(b []byte, rec *recorder) bool {
	// open holds '{' or '[' for each container entered and not yet closed.
	var buf [32]byte
	open := buf[:0]
	i := SkipSpace(b, 0)
value:
	if i >= len(b) {
		return false
	}
	switch c := b[i]; {
	case c == '{' || c == '[':
		if len(open) == maxNesting {
			return false
		}
		open = append(open, c)
		if i = SkipSpace(b, i+1); i < len(b) && b[i] == c+2 { // '}' or ']'
			open = open[:len(open)-1]
			i++
			goto after
		}
		if c == '{' {
			goto member
		}
		goto value
	case c == '"':
		if i = stringEndValid(b, i); i < 0 {
			return false
		}
	case c == 't':
		if i = literal(b, i, "true"); i < 0 {
			return false
		}
	case c == 'f':
		if i = literal(b, i, "false"); i < 0 {
			return false
		}
	case c == 'n':
		if i = literal(b, i, "null"); i < 0 {
			return false
		}
	case c == '-' || '0' <= c && c <= '9':
		if i = numberEnd(b, i); i < 0 {
			return false
		}
	default:
		return false
	}
after:
	// A value has ended at i.
	if rec != nil && len(open) <= 2 {
		if m := rec.reading(open); m != nil {
			m.ValueEnd = i
		}
	}
	i = SkipSpace(b, i)
	if len(open) == 0 {
		return i == len(b)
	}
	if i >= len(b) {
		return false
	}
	switch top := open[len(open)-1]; b[i] {
	case ',':
		i = SkipSpace(b, i+1)
		if top == '{' {
			goto member
		}
		goto value
	case top + 2: // the closing bracket of the innermost container
		open = open[:len(open)-1]
		i++
		goto after
	}
	return false
member:
	// An object member's name and colon, then its value.
	if i >= len(b) || b[i] != '"' {
		return false
	}
	start := i
	if i = stringEndValid(b, i); i < 0 {
		return false
	}
	if rec != nil && len(open) <= 2 {
		rec.name(open, start, i)
	}
	if i = SkipSpace(b, i); i >= len(b) || b[i] != ':' {
		return false
	}
	i = SkipSpace(b, i+1)
	if rec != nil && len(open) <= 2 {
		if m := rec.reading(open); m != nil {
			m.ValueStart = i
		}
	}
	goto value
}

// maxNesting is encoding/json's limit on nested arrays and objects
// (maxNestingDepth in its scanner.go): one more is invalid.
const maxNesting = 10000

// SkipSpace returns the index of the first byte at or after i that is not
// JSON white space (space, tab, line feed, carriage return), or len(b).
func SkipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// StringClose returns the index of the quote that closes the string whose
// opening quote is b[open] (len(b) if there is none): the next quote not
// preceded by an odd run of backslashes. It checks nothing else, for
// bytes known to be JSON.
func StringClose(b []byte, open int) int {
	i := open + 1
	for {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return len(b)
		}
		i += j
		n := 0
		for k := i - 1; k > open && b[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			return i
		}
		i++
	}
}

// plainByte marks the bytes that stand for themselves inside a JSON string:
// everything but the quote, the backslash and the control characters.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// stringEndValid returns the index just past the valid JSON string that
// starts with the quote at b[i], or -1.
func stringEndValid(b []byte, i int) int {
	i++
	for {
		// Eight bytes at a time while none of them is special: strings
		// are most of a listing's bytes (descriptions), and this is the
		// loop that reads them.
		for i+8 <= len(b) && !hasSpecial(binary.LittleEndian.Uint64(b[i:])) {
			i += 8
		}
		for i < len(b) && plainByte[b[i]] {
			i++
		}
		if i >= len(b) {
			return -1
		}
		switch b[i] {
		case '"':
			return i + 1
		case '\\':
			if i+1 >= len(b) {
				return -1
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) {
					return -1
				}
				for _, h := range b[i+2 : i+6] {
					if !isHex(h) {
						return -1
					}
				}
				i += 6
			default:
				return -1
			}
		default: // a control character
			return -1
		}
	}
}

// hasSpecial reports whether any of the eight bytes of w is not plainByte:
// a quote, a backslash or a control character. The answer is exact
// (TestHasSpecial): (x - 0x01…) &^ x & 0x80… is nonzero if and only if
// some byte of x is zero (the lowest zero byte sets its own high bit; a
// byte of 0x80 or more is masked out by &^ x, and a borrow only marks bytes
// above a zero byte), and (w - 0x20…) &^ w & 0x80… likewise finds a byte
// below 0x20.
func hasSpecial(w uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	quote := w ^ ('"' * ones)
	backslash := w ^ ('\\' * ones)
	return ((quote-ones)&^quote|(backslash-ones)&^backslash|(w-0x20*ones)&^w)&highs != 0
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// literal returns the index past word at b[i], or -1.
func literal(b []byte, i int, word string) int {
	if len(b)-i < len(word) || string(b[i:i+len(word)]) != word {
		return -1
	}
	return i + len(word)
}

// numberEnd returns the index past the JSON number at b[i] (RFC 8259 §6:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?), or -1.
func numberEnd(b []byte, i int) int {
	if b[i] == '-' {
		i++
	}
	switch {
	case i >= len(b):
		return -1
	case b[i] == '0':
		i++
	case '1' <= b[i] && b[i] <= '9':
		i = digits(b, i)
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return -1
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return -1
		}
		i = j
	}
	return i
}

func digits(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}

// TrimSpace returns b without the JSON white space (space, tab, line feed,
// carriage return) around it; bytes.TrimSpace also trims \v, \f and
// Unicode spaces, which JSON does not allow there.
func TrimSpace(b []byte) []byte {
	i := SkipSpace(b, 0)
	j := len(b)
	for j > i {
		switch b[j-1] {
		case ' ', '\t', '\n', '\r':
			j--
			continue
		}
		break
	}
	return b[i:j]
}
