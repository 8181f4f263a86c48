package redact

import (
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"slices"
	"strings"
)

// Spelling is one row of Table: a way a secret may be written, with its
// encoder or its decoder.
//
// A generated spelling (Encode) writes the whole value one way; each
// secret is searched for in each of them, as bytes. A decoded spelling
// (Decode) cannot be listed: a writer may escape any character, or any
// subset of them (`\u0074ok`, `&#116;&#111;…`, `%74ok`), so the sink's
// text is decoded, up to maxDepth times, and the decoded text is searched
// for every generated spelling; a match masks what it was written as,
// escapes whole.
type Spelling struct {
	Name string
	// Encode writes v in this spelling; nil for a decoded one.
	Encode func(v string) string
	// Forms, beside Encode, are the other texts of a row that writes v in
	// several ways (separators, alphabets, alignments).
	Forms func(v string) []string
	// Triggers are the bytes that start an escape Decode undoes.
	Triggers string
	decode   decoder
	// Doc says what the row covers, for DESIGN.md and the tests.
	Doc string
}

// Table is every spelling of a secret the redactor masks, generated first.
// redacttest writes an example of each with the standard library's (or
// another language's) encoders, and the tests run every one through every
// output.
var Table = []Spelling{
	{Name: "raw", Encode: func(v string) string { return v }, Doc: "as it is"},
	{Name: "base64", Encode: b64(base64.StdEncoding), Doc: "base64, standard alphabet, padded"},
	{Name: "base64 url", Encode: b64(base64.URLEncoding), Doc: "base64, URL alphabet, padded"},
	{Name: "base64 raw", Encode: b64(base64.RawStdEncoding), Doc: "base64, standard alphabet, unpadded"},
	{Name: "base64 raw url", Encode: b64(base64.RawURLEncoding), Doc: "base64, URL alphabet, unpadded (JWT segments)"},
	{Name: "hex", Encode: func(v string) string { return hex.EncodeToString([]byte(v)) }, Doc: "hexadecimal, lower case"},
	{Name: "HEX", Encode: func(v string) string { return strings.ToUpper(hex.EncodeToString([]byte(v))) }, Doc: "hexadecimal, upper case"},
	{Name: "base32", Encode: b32(base32.StdEncoding), Forms: b32Forms,
		Doc: "base32 (RFC 4648 §6 and the extended hex alphabet of §7), padded or not"},
	{Name: "base64 inside a longer blob", Encode: blob(base64.StdEncoding, 1), Forms: blobForms,
		Doc: "the characters of a base64 (standard or URL alphabet) text that encode only the secret, at each of the three alignments it may start at inside a longer encoded value; the one or two characters at each edge that mix in the bytes around it are left"},
	{Name: "base32 inside a longer blob", Encode: blob32(base32.StdEncoding, 1), Forms: blob32Forms,
		Doc: "the characters of a base32 text (either alphabet, upper or lower case) that encode only the secret, at each of the five alignments it may start at inside a longer encoded value (a TOTP seed, a token blob); the characters at each edge that mix in the bytes around it are left"},
	{Name: "hex with separators", Encode: hexSep(":", false), Forms: hexSepForms,
		Doc: "hexadecimal, either case, a byte at a time with \":\", \"-\" or a space between (fingerprints, dumps)"},
	{Name: "form", Encode: func(v string) string { return strings.ReplaceAll(v, " ", "+") },
		Doc: "a space as + (form and query encoding; the rest is percent-encoding, decoded)"},
	{Name: "backslash escapes", Triggers: `\`, decode: decodeBackslash,
		Doc: `\uXXXX (any character, surrogate pairs), \u{X…} (JavaScript, Rust, Swift, PHP), \UXXXXXXXX, \xHH, \n \r \t \b \f and a backslash before any punctuation (\/ \" \\ \_): JSON, Go, Python, JavaScript, Markdown`},
	{Name: "percent-encoding", Triggers: "%", decode: decodePercent,
		Doc: "%XX of any byte, upper or lower case, some bytes or all"},
	{Name: "character references", Triggers: "&", decode: decodeReference,
		Doc: "&#NN; and &#xHH; of any character (up to 8 digits, semicolon optional) and named references (&quot; &#x27; &sol; …): HTML and XML, Go's html and Python's html.escape"},
	{Name: "quoted-printable", Triggers: "=", decode: decodeQuotedPrintable,
		Doc: "=XX of any byte, either case, and the soft line break \"=\" at the end of a line (RFC 2045 §6.7: mail, multipart bodies)"},
	{Name: "invisible characters", Triggers: "\xc2\xe2\xef", decode: decodeInvisible,
		Doc: "zero-width characters (U+200B, U+200C, U+200D, U+2060, U+FEFF) and the soft hyphen, which renderers insert to break links and mentions (Markdown escaping: #\u200d34), dropped"},
	{Name: "line breaks", Triggers: "\r\n", decode: decodeLineBreak,
		Doc: "a value split over lines: a line break, the indentation after it and an SSE \"data:\" there are dropped (two data: lines of one event are joined with \\n)"},
}

func b64(enc *base64.Encoding) func(string) string {
	return func(v string) string { return enc.EncodeToString([]byte(v)) }
}

func b32(enc *base32.Encoding) func(string) string {
	return func(v string) string { return enc.EncodeToString([]byte(v)) }
}

// b32Forms are base32 in both alphabets, padded and not. (An unpadded text
// is the start of the padded one; both are listed so that each is a
// spelling of its own in the tests.)
func b32Forms(v string) []string {
	var out []string
	for _, enc := range []*base32.Encoding{base32.StdEncoding, base32.HexEncoding} {
		out = append(out, b32(enc)(v), b32(enc.WithPadding(base32.NoPadding))(v))
	}
	return out
}

// blob returns the characters of enc's encoding of a value holding v at
// byte offset off (mod 3) that depend on v alone: base64 writes 6 bits a
// character, so the characters that mix in a byte before or after v (at
// most two at each edge) differ with what surrounds it and are dropped.
// Each alignment gives another text, none a substring of the others.
func blob(enc *base64.Encoding, off int) func(string) string {
	return func(v string) string {
		b := make([]byte, off+len(v))
		copy(b[off:], v)
		s := enc.WithPadding(base64.NoPadding).EncodeToString(b)
		first := (8*off + 5) / 6       // the first character with no bit of the bytes before
		last := 8 * (off + len(v)) / 6 // the characters after hold bits of the bytes after
		if first >= last {
			return ""
		}
		return s[first:last]
	}
}

func blobForms(v string) []string {
	var out []string
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		for off := range 3 {
			out = append(out, blob(enc, off)(v))
		}
	}
	return out
}

// blob32 is blob for base32, 5 bits a character: a value holding v at
// byte offset off (mod 5).
func blob32(enc *base32.Encoding, off int) func(string) string {
	return func(v string) string {
		b := make([]byte, off+len(v))
		copy(b[off:], v)
		s := enc.WithPadding(base32.NoPadding).EncodeToString(b)
		first := (8*off + 4) / 5
		last := 8 * (off + len(v)) / 5
		if first >= last {
			return ""
		}
		return s[first:last]
	}
}

// blob32Forms: both alphabets, every alignment, either case (RFC 4648
// §6 writes upper case; TOTP seeds, onion names and Python's lower() of
// one are lower case).
func blob32Forms(v string) []string {
	var out []string
	for _, enc := range []*base32.Encoding{base32.StdEncoding, base32.HexEncoding} {
		for off := range 5 {
			s := blob32(enc, off)(v)
			out = append(out, s, strings.ToLower(s))
		}
	}
	return out
}

// hexSep writes each byte of v as two hex digits with sep between.
func hexSep(sep string, upper bool) func(string) string {
	return func(v string) string {
		h := hex.EncodeToString([]byte(v))
		if upper {
			h = strings.ToUpper(h)
		}
		var b strings.Builder
		for i := 0; i < len(h); i += 2 {
			if i > 0 {
				b.WriteString(sep)
			}
			b.WriteString(h[i : i+2])
		}
		return b.String()
	}
}

func hexSepForms(v string) []string {
	var out []string
	for _, sep := range []string{":", "-", " "} {
		out = append(out, hexSep(sep, false)(v), hexSep(sep, true)(v))
	}
	return out
}

func init() {
	for _, sp := range Table {
		for _, c := range []byte(sp.Triggers) {
			decoders[c] = sp.decode
		}
	}
}

// Spellings returns the generated spellings of v (Table's rows with an
// encoder), each once. The decoded ones cannot be listed.
func Spellings(v string) []string {
	var out []string
	for _, sp := range Table {
		if sp.Encode == nil {
			continue
		}
		forms := []string{sp.Encode(v)}
		if sp.Forms != nil {
			forms = append(forms, sp.Forms(v)...)
		}
		for _, s := range forms {
			if s != "" && !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}
