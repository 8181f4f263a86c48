package mcp

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode/utf8"
)

// JSON text is UTF-8 (RFC 8259 §8.1), and so is every MCP message (the
// 2025-11-25 transports page: "JSON-RPC messages MUST be UTF-8 encoded";
// 2026-07-28 stdio: one line of UTF-8 JSON-RPC). Go's JSON decoder accepts
// invalid bytes inside strings, and a raw message kept as evidence would
// carry them into report.json, which strict parsers then refuse. So the
// transports make what they keep of an answer valid UTF-8 as they read it,
// each invalid sequence replaced by U+FFFD, and record where they did
// (AnomalyInvalidUTF8, for jsonrpc/valid-utf8); nothing downstream ever
// sees an invalid byte.

// validUTF8 returns b when it is valid UTF-8, else a copy with every
// invalid sequence replaced by U+FFFD, and the count of bytes replaced.
func validUTF8(b []byte) ([]byte, int) {
	if utf8.Valid(b) {
		return b, 0
	}
	bad := 0
	out := make([]byte, 0, len(b)+16)
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n == 1 {
			bad++
			out = append(out, "\uFFFD"...)
		} else {
			out = append(out, b[:n]...)
		}
		b = b[n:]
	}
	return out, bad
}

// cutRune drops a rune cut short at the end of b (an excerpt cut at a
// byte count), so that the cut is not taken for invalid UTF-8.
func cutRune(b []byte) []byte {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return b[:i]
			}
			break
		}
	}
	return b
}

// validString is validUTF8 for text kept as a string (stderr, headers).
func validString(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }

// invalidUTF8 is the anomaly for where (a stdout line, an answer, an SSE
// event), which held bad invalid bytes; orig is what was read, quoted
// around its first invalid byte with Go escapes (\xe9), so the evidence
// shows the very bytes.
func invalidUTF8(where string, orig []byte, bad int) Anomaly {
	i := 0
	for i < len(orig) {
		r, n := utf8.DecodeRune(orig[i:])
		if r == utf8.RuneError && n == 1 {
			break
		}
		i += n
	}
	from, to := max(0, i-40), min(len(orig), i+40)
	excerpt := fmt.Sprintf("%+q", orig[from:to])
	if from > 0 {
		excerpt = "…" + excerpt
	}
	if to < len(orig) {
		excerpt += "…"
	}
	what := fmt.Sprintf("%d bytes that are", bad)
	if bad == 1 {
		what = "1 byte that is"
	}
	return Anomaly{Kind: AnomalyInvalidUTF8, Evidence: excerpt,
		Detail: fmt.Sprintf("%s holds %s not UTF-8 (from byte %d; kept as U+FFFD)", where, what, i+1)}
}

// validWriter passes on what is written to it as valid UTF-8 (server.log:
// a server's stderr is free-form, but what mcp-eval writes is UTF-8). A
// rune split across two writes is held back until its end arrives.
type validWriter struct {
	w    io.Writer
	mu   sync.Mutex
	held []byte
}

func (v *validWriter) Write(p []byte) (int, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	b := append(v.held, p...)
	whole := cutRune(b)
	v.held = append([]byte(nil), b[len(whole):]...)
	out, _ := validUTF8(whole)
	if _, err := v.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// InvalidUTF8 returns how many bytes of the message as received were not
// UTF-8 (each now U+FFFD in Raw and every decoded value).
func (m *Message) InvalidUTF8() int { return m.badUTF8 }
