package redacttest

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"html"
	"net/url"
	"strconv"
	"strings"
)

// Example is a secret written one way, as a server, a log or an encoder
// writes it, computed here without the redactor under test.
type Example struct {
	// Name says how it was written ("url lower-case hex").
	Name string
	// Row names the row of redact.Table that covers it; the redactor's
	// tests check that every row has an example and every example a row.
	Row string
	// Text is the secret so written, as text: a server that echoes it
	// puts this text in a JSON string (encoded as JSON strings are), in a
	// log line, in an HTML page.
	Text string
	// Wire, when set, is JSON string content to put on the wire as it is,
	// for the escapes only JSON source has (every character as \uXXXX): a
	// client decodes it to the secret itself. Text is then the decoded
	// form.
	Wire string
	// Lines says Text spans two lines, which a stream written line by line
	// (the terminal) does not join.
	Lines bool
}

// Examples returns every way of writing v the tests run through the
// outputs, in a fixed order.
func Examples(v string) []Example {
	jh := jsonInner(v, true)
	jp := jsonInner(v, false)
	var x bytes.Buffer
	_ = xml.EscapeText(&x, []byte(v))
	half := len(v) / 2
	ex := []Example{
		{Name: "raw", Row: "raw", Text: v},
		{Name: "base64", Row: "base64", Text: base64.StdEncoding.EncodeToString([]byte(v))},
		{Name: "base64 url", Row: "base64 url", Text: base64.URLEncoding.EncodeToString([]byte(v))},
		{Name: "base64 raw", Row: "base64 raw", Text: base64.RawStdEncoding.EncodeToString([]byte(v))},
		{Name: "base64 raw url", Row: "base64 raw url", Text: base64.RawURLEncoding.EncodeToString([]byte(v))},
		{Name: "hex", Row: "hex", Text: hex.EncodeToString([]byte(v))},
		{Name: "HEX", Row: "HEX", Text: strings.ToUpper(hex.EncodeToString([]byte(v)))},
		{Name: "url query", Row: "form", Text: url.QueryEscape(v)},
		{Name: "url path", Row: "percent-encoding", Text: url.PathEscape(v)},
		{Name: "url lower-case hex", Row: "percent-encoding", Text: lowerEscapes(url.PathEscape(v))},
		{Name: "url every byte", Row: "percent-encoding", Text: everyByte(v, "%%%02X")},
		{Name: "url every byte lower", Row: "percent-encoding", Text: everyByte(v, "%%%02x")},
		{Name: "json", Row: "backslash escapes", Text: jh},
		{Name: "json no html", Row: "backslash escapes", Text: jp},
		{Name: "json slash", Row: "backslash escapes", Text: strings.ReplaceAll(jh, "/", `\/`)},
		{Name: "json twice", Row: "backslash escapes", Text: jsonInner(jp, false)},
		{Name: "json slash twice", Row: "backslash escapes", Text: jsonInner(strings.ReplaceAll(jp, "/", `\/`), false)},
		{Name: "json every character escaped", Row: "backslash escapes", Text: v, Wire: everyRune(v, `\u%04x`)},
		{Name: `\u text`, Row: "backslash escapes", Text: everyRune(v, `\u%04X`)},
		{Name: `\x text`, Row: "backslash escapes", Text: everyByte(v, `\x%02x`)},
		{Name: "go quoted", Row: "backslash escapes", Text: strings.Trim(strconv.Quote(v), `"`)},
		{Name: "markdown escaped", Row: "backslash escapes", Text: markdownEscape(v)},
		{Name: "html go", Row: "character references", Text: html.EscapeString(v)},
		{Name: "html python", Row: "character references", Text: pythonHTMLEscape(v)},
		{Name: "xml", Row: "character references", Text: x.String()},
		{Name: "&#NN; every character", Row: "character references", Text: everyRune(v, "&#%d;")},
		{Name: "&#xHH; every character", Row: "character references", Text: everyRune(v, "&#x%x;")},
		{Name: "html named", Row: "character references", Text: named(v)},
		{Name: "html twice", Row: "character references", Text: html.EscapeString(everyRune(v, "&#%d;"))},
		{Name: "url of json", Row: "percent-encoding", Text: url.QueryEscape(jh)},
		{Name: "zero-width joiners", Row: "invisible characters", Text: strings.Join(strings.Split(v, ""), "\u200d")},
		{Name: "markdown of html", Row: "invisible characters", Text: strings.ReplaceAll(html.EscapeString(v), "#", "#\u200d")},
		{Name: "split over lines", Row: "line breaks", Text: v[:half] + "\n" + v[half:], Lines: true},
		{Name: "sse data lines", Row: "line breaks", Text: v[:half] + "\ndata: " + v[half:], Lines: true},
	}
	return ex
}

// jsonInner is v as the inside of a JSON string, HTML-safe (Go's default:
// \u003c) or not (most other encoders).
func jsonInner(v string, escapeHTML bool) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(escapeHTML)
	_ = enc.Encode(v)
	s := strings.TrimSpace(b.String())
	return s[1 : len(s)-1]
}

// lowerEscapes lower-cases the hex digits of every %XX.
func lowerEscapes(s string) string {
	b := []byte(s)
	for i := 0; i+2 < len(b); i++ {
		if b[i] == '%' {
			b[i+1], b[i+2] = lower(b[i+1]), lower(b[i+2])
		}
	}
	return string(b)
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func everyByte(v, format string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		fmt.Fprintf(&b, format, v[i])
	}
	return b.String()
}

func everyRune(v, format string) string {
	var b strings.Builder
	for _, r := range v {
		fmt.Fprintf(&b, format, r)
	}
	return b.String()
}

// markdownEscape puts a backslash before every ASCII punctuation
// character, as CommonMark allows and Markdown renderers escape.
func markdownEscape(v string) string {
	var b strings.Builder
	for _, r := range v {
		if r < 0x80 && strings.ContainsRune("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// pythonHTMLEscape is Python's html.escape(v, quote=True).
func pythonHTMLEscape(v string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#x27;").Replace(v)
}

// named writes the punctuation HTML5 has names for by name (&sol;,
// &equals;…), the rest as it is.
func named(v string) string {
	return strings.NewReplacer("/", "&sol;", "=", "&equals;", "+", "&plus;", "<", "&lt;", ">", "&gt;", "&", "&amp;",
		`"`, "&quot;", "'", "&apos;", " ", "&#32;", "_", "&lowbar;", ".", "&period;").Replace(v)
}
