package mcp

import (
	"bytes"
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestValidUTF8(t *testing.T) {
	for _, tt := range []struct {
		in, want string
		bad      int
	}{
		{"plain", "plain", 0},
		{"caf\u00e9", "caf\u00e9", 0},
		{"caf\xe9", "caf\uFFFD", 1},
		{"\xff\xfe{}", "\uFFFD\uFFFD{}", 2},
		{"a\xe2\x82b", "a\uFFFD\uFFFDb", 2}, // a cut-short 3-byte sequence
	} {
		got, bad := validUTF8([]byte(tt.in))
		if string(got) != tt.want || bad != tt.bad {
			t.Errorf("validUTF8(%q) = %q, %d; want %q, %d", tt.in, got, bad, tt.want, tt.bad)
		}
	}
	if got := cutRune([]byte("ab\xe2\x82")); string(got) != "ab" {
		t.Errorf("cutRune kept %q", got)
	}
	if got := cutRune([]byte("ab\u20ac")); string(got) != "ab\u20ac" {
		t.Errorf("cutRune cut a whole rune: %q", got)
	}
}

// validWriter: a rune split across writes is kept whole, an invalid byte
// becomes U+FFFD.
func TestValidWriter(t *testing.T) {
	var b bytes.Buffer
	w := &validWriter{w: &b}
	euro := []byte("\u20ac")
	for _, p := range [][]byte{[]byte("x"), euro[:1], euro[1:], []byte(" caf\xe9\n")} {
		if n, err := w.Write(p); err != nil || n != len(p) {
			t.Fatalf("Write(%q) = %d, %v", p, n, err)
		}
	}
	if got := b.String(); got != "x\u20ac caf\uFFFD\n" {
		t.Errorf("wrote %q", got)
	}
}

// Invalid UTF-8 from a server is replaced where it is read and recorded,
// over HTTP (a JSON body) and stdio, so that no raw byte reaches a report.
func TestInvalidUTF8Recorded(t *testing.T) {
	t.Run("http", func(t *testing.T) {
		x, err := exchange(t, rawHandler("application/json", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"d\":\"caf\xe9\"}}"), 0, 5*time.Second)
		if err != nil || x.Response == nil {
			t.Fatalf("%v, %+v", err, x)
		}
		if !utf8.Valid(x.Body) || !utf8.Valid(x.Response.Raw) || x.Response.InvalidUTF8() != 1 {
			t.Errorf("body %q raw %q, %d invalid", x.Body, x.Response.Raw, x.Response.InvalidUTF8())
		}
	})
	t.Run("http anomaly", func(t *testing.T) {
		srv := httptest.NewServer(rawHandler("text/event-stream", "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"d\":\"\xff\"}}\n\n"))
		defer srv.Close()
		tr := &HTTP{URL: srv.URL}
		x, err := tr.Exchange(context.Background(), &Outgoing{ID: []byte("1"), Method: "tools/list", Body: []byte(`{}`)})
		if err != nil || !utf8.Valid(x.Body) || x.Response == nil || x.Response.InvalidUTF8() != 1 {
			t.Fatalf("%v, %+v", err, x)
		}
		as := tr.Anomalies()
		if len(as) != 1 || as[0].Kind != AnomalyInvalidUTF8 || !strings.Contains(as[0].Evidence, `\xff`) || !strings.Contains(as[0].Detail, "1 byte that is not UTF-8") {
			t.Errorf("anomalies %+v", as)
		}
	})
	t.Run("stdio", func(t *testing.T) {
		c := connectFake(t, "latin1", Options{Timeout: 5 * time.Second})
		tools, err := c.ListTools(context.Background())
		if err != nil || len(tools) != 1 {
			t.Fatalf("%v, %v", tools, err)
		}
		if tools[0].Description != "caf\uFFFD" || !utf8.Valid(tools[0].Raw) {
			t.Errorf("description %q, raw %q", tools[0].Description, tools[0].Raw)
		}
		if k := kinds(c.Anomalies()); k[AnomalyInvalidUTF8] != 1 {
			t.Errorf("anomalies %v", c.Anomalies())
		}
		if tail := c.Transport().(*Stdio).StderrTail(); !utf8.ValidString(tail) || !strings.Contains(tail, "caf\uFFFD") {
			t.Errorf("stderr tail %q", tail)
		}
	})
}
