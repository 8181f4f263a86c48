package redacttest

import (
	"bytes"
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"html"
	"mime/quotedprintable"
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
	// Split says the secret is sent cut in two, each half in a message of
	// its own (two notifications/message events of one answer stream):
	// Text is the secret as it is, and the sender cuts it.
	Split bool
	// Ragged says Text encodes more than the secret (a longer base64
	// value holding it): masked, the characters at each edge that mix in
	// the bytes around it stay, as do those of the bytes around it.
	Ragged bool
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
		{Name: "base32", Row: "base32", Text: base32.StdEncoding.EncodeToString([]byte(v))},
		{Name: "base32 unpadded", Row: "base32", Text: base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString([]byte(v))},
		{Name: "base32 hex alphabet", Row: "base32", Text: base32.HexEncoding.EncodeToString([]byte(v))},
		{Name: "base32 hex alphabet unpadded", Row: "base32", Text: base32.HexEncoding.WithPadding(base32.NoPadding).EncodeToString([]byte(v))},
		// A credential inside a longer encoded value (a Basic credential
		// "user:secret", a JSON token blob), at each alignment mod 3 (the
		// first of a row is the one a -race run of the matrix takes).
		{Name: "base64 in a blob at offset 1", Row: "base64 inside a longer blob", Ragged: true,
			Text: base64.StdEncoding.EncodeToString([]byte("Bearer " + v + "\x00"))},
		{Name: "base64 in a blob at offset 2", Row: "base64 inside a longer blob", Ragged: true,
			Text: base64.StdEncoding.EncodeToString([]byte("user:" + v))},
		{Name: "base64 in a blob at offset 0", Row: "base64 inside a longer blob", Ragged: true,
			Text: base64.StdEncoding.EncodeToString([]byte("id:" + v + "|exp=1"))},
		{Name: "base64 url in a blob at offset 2", Row: "base64 inside a longer blob", Ragged: true,
			Text: base64.RawURLEncoding.EncodeToString([]byte(`{"tok":"` + v + `"}`))},
		// The same for base32 (5 bytes a group: five alignments), and in
		// lower case.
		{Name: "base32 in a blob at offset 3", Row: "base32 inside a longer blob", Ragged: true,
			Text: base32.StdEncoding.EncodeToString([]byte("otp" + v + "\x00"))},
		{Name: "base32 in a blob at offset 1", Row: "base32 inside a longer blob", Ragged: true,
			Text: base32.StdEncoding.EncodeToString([]byte("k" + v))},
		{Name: "base32 lower case in a blob at offset 4", Row: "base32 inside a longer blob", Ragged: true,
			Text: strings.ToLower(base32.StdEncoding.EncodeToString([]byte("seed" + v + "!")))},
		{Name: "base32 hex alphabet in a blob at offset 2", Row: "base32 inside a longer blob", Ragged: true,
			Text: base32.HexEncoding.EncodeToString([]byte("id" + v))},
		{Name: "hex", Row: "hex", Text: hex.EncodeToString([]byte(v))},
		{Name: "hex colons", Row: "hex with separators", Text: separated(hex.EncodeToString([]byte(v)), ":")},
		{Name: "HEX dashes", Row: "hex with separators", Text: separated(strings.ToUpper(hex.EncodeToString([]byte(v))), "-")},
		{Name: "hex spaces", Row: "hex with separators", Text: separated(hex.EncodeToString([]byte(v)), " ")},
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
		{Name: `\u{} text`, Row: "backslash escapes", Text: everyRune(v, `\u{%x}`)},
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
		{Name: "quoted-printable every byte", Row: "quoted-printable", Text: everyByte(v, "=%02X")},
		{Name: "quoted-printable", Row: "quoted-printable", Text: quotedPrintable(v)},
		{Name: "quoted-printable soft line break", Row: "quoted-printable", Lines: true,
			Text: everyByte(v[:half], "=%02X") + "=\r\n" + everyByte(v[half:], "=%02X")},
		{Name: "split over two notifications", Row: "raw", Text: v, Split: true},
		{Name: "split over lines", Row: "line breaks", Text: v[:half] + "\n" + v[half:], Lines: true},
		{Name: "sse data lines", Row: "line breaks", Text: v[:half] + "\ndata: " + v[half:], Lines: true},
		// Line-wrapped base64 of a longer value, the break inside the
		// secret's characters: MIME (76 columns, CRLF; RFC 2045 §6.8) and
		// PEM (64 columns, LF; RFC 7468 §2).
		{Name: "base64 MIME lines", Row: "line breaks", Ragged: true, Lines: true,
			Text: wrap(base64.StdEncoding.EncodeToString([]byte(strings.Repeat("m", 52)+v+"!")), 76, "\r\n")},
		{Name: "base64 PEM lines", Row: "line breaks", Ragged: true, Lines: true,
			Text: wrap(base64.StdEncoding.EncodeToString([]byte(strings.Repeat("p", 43)+v+"!")), 64, "\n")},
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

// separated puts sep between each pair of hex digits of h.
func separated(h, sep string) string {
	var parts []string
	for i := 0; i+2 <= len(h); i += 2 {
		parts = append(parts, h[i:i+2])
	}
	return strings.Join(parts, sep)
}

// quotedPrintable is v as the standard library's MIME writer encodes it.
func quotedPrintable(v string) string {
	var b bytes.Buffer
	w := quotedprintable.NewWriter(&b)
	w.Write([]byte(v))
	w.Close()
	return b.String()
}

// wrap breaks s into lines of width characters, ended by eol.
func wrap(s string, width int, eol string) string {
	var b strings.Builder
	for len(s) > width {
		b.WriteString(s[:width] + eol)
		s = s[width:]
	}
	return b.String() + s
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
