package redact

import (
	"html"
	"slices"
	"unicode/utf16"
	"unicode/utf8"
)

// A decoding is a text with every escape of the decoded rows of Table
// undone, and the means to say where each of its bytes was written: a
// match found in the decoded text masks the escapes it was written with.
// A text is decoded again (maxDepth levels), so an escape of an escape
// (`\\u0074`, `&amp;#116;`, a JSON body quoted inside a JSON string) is
// undone too.
//
// Only a mark every markEvery decoded bytes is kept, at the start of an
// escape or of a copied byte; src decodes again from the mark before a
// match to find where it was written. Matches are rare, and a map of every
// escape cost more than the decoding itself on a large report.
type decoding struct {
	text  []byte
	src   []byte
	marks []mark
}

// mark says decoded byte d was written at src[s], where an escape or a
// copied byte begins.
type mark struct{ d, s int }

const markEvery = 4 << 10

// maxDepth is how many times a text is decoded: five undo what a server
// may nest (a JSON body quoted inside a JSON string: two levels) inside
// what this program's own renderers nest (the server's text quoted with %q
// in a check's message, Markdown-escaped in results.sarif's message text,
// inside SARIF's JSON: three). Each level costs a pass over the text, and
// one is made only while the level before still held an escape.
const maxDepth = 5

// decoder undoes one kind of escape at src[i], which holds one of its
// trigger bytes: it returns how many bytes the escape takes (0 when there
// is none at i) and appends what it stands for to out. A line break that
// joins two lines stands for nothing.
type decoder func(src []byte, i int, out []byte) (n int, _ []byte)

// decoders maps a byte to the decoder of the escapes it starts; built from
// Table in init.
var decoders [256]decoder

// decode undoes one level of escapes in src; nil when src holds none.
func decode(src []byte) *decoding {
	var x *decoding
	var scratch []byte
	run := 0 // where the stretch of copied bytes not yet appended begins
	for i := 0; i < len(src); i++ {
		dec := decoders[src[i]]
		if dec == nil {
			continue
		}
		n, out := dec(src, i, scratch[:0])
		scratch = out
		if n == 0 {
			continue
		}
		if x == nil {
			x = &decoding{text: make([]byte, 0, len(src)), src: src, marks: []mark{{0, 0}}}
		}
		x.copy(run, i)
		if len(x.text)-x.marks[len(x.marks)-1].d >= markEvery {
			x.marks = append(x.marks, mark{len(x.text), i})
		}
		x.text = append(x.text, out...)
		run = i + n
		i = run - 1
	}
	if x == nil {
		return nil
	}
	x.copy(run, len(src))
	return x
}

// copy appends src[from:to], marking it every markEvery bytes.
func (x *decoding) copy(from, to int) {
	for from < to {
		last := x.marks[len(x.marks)-1].d
		if len(x.text)-last >= markEvery {
			x.marks = append(x.marks, mark{len(x.text), from})
			continue
		}
		n := min(to-from, markEvery-(len(x.text)-last))
		x.text = append(x.text, x.src[from:from+n]...)
		from += n
	}
}

// piece finds the escape or copied byte that decoded byte p came from: it
// starts at src[s], takes n bytes there, and decoded byte p is in it.
func (x *decoding) piece(p int) (s, n int) {
	k, _ := slices.BinarySearchFunc(x.marks, p, func(m mark, p int) int {
		if m.d <= p {
			return -1
		}
		return 1
	})
	m := x.marks[k-1]
	d, s := m.d, m.s
	var scratch []byte
	for s < len(x.src) {
		n, dn := 1, 1
		if dec := decoders[x.src[s]]; dec != nil {
			un, out := dec(x.src, s, scratch[:0])
			if scratch = out; un > 0 {
				n, dn = un, len(out)
			}
		}
		if p < d+dn {
			return s, n
		}
		d += dn
		s += n
	}
	return len(x.src), 0
}

// srcSpan maps the decoded span [start, end) to the source it was written
// as, widened to whole escapes.
func (x *decoding) srcSpan(start, end int) (int, int) {
	s, _ := x.piece(start)
	e, n := x.piece(end - 1)
	return s, e + n
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) rune {
	switch {
	case c <= '9':
		return rune(c - '0')
	case c <= 'F':
		return rune(c - 'A' + 10)
	}
	return rune(c - 'a' + 10)
}

// hexAt reads n hex digits at src[i:]; ok is false when there are fewer.
func hexAt(src []byte, i, n int) (v rune, ok bool) {
	if i+n > len(src) {
		return 0, false
	}
	for _, c := range src[i : i+n] {
		if !isHex(c) {
			return 0, false
		}
		v = v<<4 | unhex(c)
	}
	return v, true
}

// decodeBackslash undoes the backslash escapes of JSON, Go, Python,
// JavaScript and Markdown: \uXXXX (a surrogate pair as one escape),
// \UXXXXXXXX, \xHH, \n \r \t \b \f, and a backslash before any ASCII
// punctuation (\/ \" \\ \_ …).
func decodeBackslash(src []byte, i int, out []byte) (int, []byte) {
	if i+1 >= len(src) {
		return 0, out
	}
	switch c := src[i+1]; c {
	case 'u':
		if i+2 < len(src) && src[i+2] == '{' {
			return decodeBraced(src, i, out)
		}
		r, ok := hexAt(src, i+2, 4)
		if !ok {
			return 0, out
		}
		if utf16.IsSurrogate(r) {
			if i+11 < len(src) && src[i+6] == '\\' && src[i+7] == 'u' {
				if r2, ok := hexAt(src, i+8, 4); ok {
					if dr := utf16.DecodeRune(r, r2); dr != utf8.RuneError {
						return 12, utf8.AppendRune(out, dr)
					}
				}
			}
			r = utf8.RuneError
		}
		return 6, utf8.AppendRune(out, r)
	case 'U':
		r, ok := hexAt(src, i+2, 8)
		if !ok || !utf8.ValidRune(r) {
			return 0, out
		}
		return 10, utf8.AppendRune(out, r)
	case 'x':
		v, ok := hexAt(src, i+2, 2)
		if !ok {
			return 0, out
		}
		return 4, append(out, byte(v))
	case 'n':
		return 2, append(out, '\n')
	case 'r':
		return 2, append(out, '\r')
	case 't':
		return 2, append(out, '\t')
	case 'b':
		return 2, append(out, '\b')
	case 'f':
		return 2, append(out, '\f')
	default:
		if c == '%' || c == '&' {
			// "\&#39;" is a backslash before an escaped quote (Python's
			// html.escape of \'), not an escaped "&".
			if n, _ := decoders[c](src, i+1, nil); n > 0 {
				return 0, out
			}
		}
		if isPunct(c) {
			return 2, append(out, c)
		}
	}
	return 0, out
}

// decodeBraced undoes \u{X…}, one to six hex digits of a code point
// (ECMAScript 2015's CodePoint escape, Rust's and Swift's too) at src[i].
func decodeBraced(src []byte, i int, out []byte) (int, []byte) {
	j := i + 3
	var r rune
	for j < len(src) && j-(i+3) < 6 && isHex(src[j]) {
		r = r<<4 | unhex(src[j])
		j++
	}
	if j == i+3 || j >= len(src) || src[j] != '}' || !utf8.ValidRune(r) {
		return 0, out
	}
	return j + 1 - i, utf8.AppendRune(out, r)
}

func isPunct(c byte) bool {
	return '!' <= c && c <= '/' || ':' <= c && c <= '@' || '[' <= c && c <= '`' || '{' <= c && c <= '~'
}

// decodePercent undoes %XX, upper or lower case, of any byte.
func decodePercent(src []byte, i int, out []byte) (int, []byte) {
	v, ok := hexAt(src, i+1, 2)
	if !ok {
		return 0, out
	}
	return 3, append(out, byte(v))
}

// decodeQuotedPrintable undoes quoted-printable (RFC 2045 §6.7): =XX of
// any byte (upper case in the RFC, either case here, as decoders accept),
// and a soft line break, "=" at the end of a line, which joins the lines.
func decodeQuotedPrintable(src []byte, i int, out []byte) (int, []byte) {
	if v, ok := hexAt(src, i+1, 2); ok {
		return 3, append(out, byte(v))
	}
	j := i + 1
	if j < len(src) && src[j] == '\r' {
		j++
	}
	if j < len(src) && src[j] == '\n' {
		return j + 1 - i, out
	}
	return 0, out
}

// maxRefDigits bounds the digits of a numeric character reference: a
// reference with more leading zeros is not undone (a bound on the work
// and on what a stream holds back).
const maxRefDigits = 8

// decodeReference undoes an HTML or XML character reference: &#NN; and
// &#xHH; (the semicolon may be missing, as browsers allow), and a named
// one with its semicolon (&quot;, &sol;, any name of the HTML table).
func decodeReference(src []byte, i int, out []byte) (int, []byte) {
	j := i + 1
	if j < len(src) && src[j] == '#' {
		j++
		base := rune(10)
		if j < len(src) && (src[j] == 'x' || src[j] == 'X') {
			base = 16
			j++
		}
		start := j
		var r rune
		for j < len(src) && j-start < maxRefDigits && (base == 16 && isHex(src[j]) || '0' <= src[j] && src[j] <= '9') {
			r = r*base + unhex(src[j])
			j++
		}
		if j == start || !utf8.ValidRune(r) || r == 0 {
			return 0, out
		}
		if j < len(src) && src[j] == ';' {
			j++
		}
		return j - i, utf8.AppendRune(out, r)
	}
	const maxName = 32
	for j < len(src) && j-i <= maxName && isAlnum(src[j]) {
		j++
	}
	if j == i+1 || j >= len(src) || src[j] != ';' {
		return 0, out
	}
	ref := string(src[i : j+1])
	dec := html.UnescapeString(ref)
	if dec == ref {
		return 0, out
	}
	return j + 1 - i, append(out, dec...)
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// decodeLineBreak drops a line break with the indentation after it, and an
// SSE field name "data:" there: a value written over two lines, or over
// two data: lines of one event (which a client joins with "\n"), reads as
// one.
func decodeLineBreak(src []byte, i int, out []byte) (int, []byte) {
	j := i
	if src[j] == '\r' {
		j++
	}
	if j < len(src) && src[j] == '\n' {
		j++
	} else if j == i {
		return 0, out
	}
	for j < len(src) && (src[j] == ' ' || src[j] == '\t') {
		j++
	}
	if len(src)-j >= 5 && string(src[j:j+5]) == "data:" {
		j += 5
		if j < len(src) && src[j] == ' ' {
			j++
		}
	}
	return j - i, out
}

// decodeInvisible drops a character that is not seen: zero-width spaces,
// joiners and non-joiners, the word joiner, the byte order mark, the soft
// hyphen.
func decodeInvisible(src []byte, i int, out []byte) (int, []byte) {
	switch r, n := utf8.DecodeRune(src[i:]); r {
	case '\u200b', '\u200c', '\u200d', '\u2060', '\ufeff', '\u00ad':
		return n, out
	}
	return 0, out
}
