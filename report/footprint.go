package report

import (
	"encoding/json"
	"unicode/utf8"
)

// BytesPerToken is the divisor of every tool-list token estimate.
// Tokenizers of current models average about four bytes of English text or
// JSON per token; code-like JSON with short keys runs nearer three, so the
// estimate is on the low side for schema-heavy tools.
const BytesPerToken = 4

// ToolBytes is the size of one tool as a model is given it: its name,
// description and input schema as compact JSON (title, annotations and the
// output schema are not sent). The conformance lint and the telemetry
// footprint both count with it, so the reports show one figure.
//
// It is the length of what encoding/json writes for
// {"name","description","inputSchema"} (the schema compacted, strings and
// the schema escaped for HTML as json.Marshal escapes them), counted rather
// than written: at 1 000 tools, writing it was 3% of a run.
// TestToolBytesAsMarshal and FuzzToolBytes hold the count to the writing.
func ToolBytes(name, description string, inputSchema json.RawMessage) int {
	n := len(`{"name":}`) + jsonStringLen(name)
	if description != "" {
		n += len(`,"description":`) + jsonStringLen(description)
	}
	if len(inputSchema) > 0 {
		if !json.Valid(inputSchema) {
			// Invalid JSON in the schema: count its raw bytes.
			return len(name) + len(description) + len(inputSchema)
		}
		n += len(`,"inputSchema":`) + compactLen(inputSchema)
	}
	return n
}

// jsonStringLen is the length of s as encoding/json writes a string, with
// its HTML escapes: quotes, backslashes and the short escapes take 2 bytes,
// other control bytes, <, > and & take 6 (\u00XX), as do U+2028, U+2029 and
// each byte of invalid UTF-8 (\ufffd).
func jsonStringLen(s string) int {
	n := 2
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			n += escapedLen(c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			n += len(`\ufffd`)
		case r == '\u2028' || r == '\u2029':
			n += len(`\u2028`)
		default:
			n += size
		}
		i += size
	}
	return n
}

// escapedLen is the length of the ASCII byte c inside a JSON string as
// encoding/json writes it, escaping for HTML.
func escapedLen(c byte) int {
	switch c {
	case '"', '\\', '\b', '\f', '\n', '\r', '\t':
		return 2
	case '<', '>', '&':
		return 6
	}
	if c < 0x20 {
		return 6
	}
	return 1
}

// compactLen is the length of the valid JSON raw as json.Marshal writes a
// json.RawMessage: compacted (no whitespace outside strings), with <, > and
// & escaped as \u003c (6 bytes) and U+2028 and U+2029 as \u2028, wherever
// they are; every other byte as it is.
func compactLen(raw []byte) int {
	n := 0
	inString, escaped := false, false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case c == '<' || c == '>' || c == '&':
			n += 6
		case c == 0xE2 && i+2 < len(raw) && raw[i+1] == 0x80 && (raw[i+2] == 0xA8 || raw[i+2] == 0xA9):
			n += 6
			i += 2
		case !inString && (c == ' ' || c == '\t' || c == '\n' || c == '\r'):
		default:
			n++
		}
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		}
	}
	return n
}

// EstimateTokens is the token estimate of n bytes: ceil(n / BytesPerToken).
func EstimateTokens(n int) int64 { return int64((n + BytesPerToken - 1) / BytesPerToken) }
