package redact

import (
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
	{Name: "form", Encode: func(v string) string { return strings.ReplaceAll(v, " ", "+") },
		Doc: "a space as + (form and query encoding; the rest is percent-encoding, decoded)"},
	{Name: "backslash escapes", Triggers: `\`, decode: decodeBackslash,
		Doc: `\uXXXX (any character, surrogate pairs), \UXXXXXXXX, \xHH, \n \r \t \b \f and a backslash before any punctuation (\/ \" \\ \_): JSON, Go, Python, JavaScript, Markdown`},
	{Name: "percent-encoding", Triggers: "%", decode: decodePercent,
		Doc: "%XX of any byte, upper or lower case, some bytes or all"},
	{Name: "character references", Triggers: "&", decode: decodeReference,
		Doc: "&#NN; and &#xHH; of any character (up to 8 digits, semicolon optional) and named references (&quot; &#x27; &sol; …): HTML and XML, Go's html and Python's html.escape"},
	{Name: "invisible characters", Triggers: "\xc2\xe2\xef", decode: decodeInvisible,
		Doc: "zero-width characters (U+200B, U+200C, U+200D, U+2060, U+FEFF) and the soft hyphen, which renderers insert to break links and mentions (Markdown escaping: #\u200d34), dropped"},
	{Name: "line breaks", Triggers: "\r\n", decode: decodeLineBreak,
		Doc: "a value split over lines: a line break, the indentation after it and an SSE \"data:\" there are dropped (two data: lines of one event are joined with \\n)"},
}

func b64(enc *base64.Encoding) func(string) string {
	return func(v string) string { return enc.EncodeToString([]byte(v)) }
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
		if s := sp.Encode(v); s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}
