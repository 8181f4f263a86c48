package redact

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/mcp-eval/mcp-eval/internal/redact/redacttest"
)

const tok = `tok/en<>&"\'+= x` // every character class an encoder treats specially

func mustNew(t *testing.T, s ...Secret) *Redactor {
	t.Helper()
	r, err := New(s...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestEverySpellingIsMasked(t *testing.T) {
	r := mustNew(t, Secret{"--header Authorization", tok})
	spellings := redacttest.Spellings(tok)
	// Escapes of every character are undone by Redactor.JSON alone
	// (TestJSONMasksEveryEscape); String and Bytes see the text as written.
	delete(spellings, "json every character escaped")
	for name, sp := range spellings {
		t.Run(name, func(t *testing.T) {
			in := "before " + sp + " after"
			got := r.String(in)
			if strings.Contains(got, sp) || got != "before "+Mask+" after" {
				t.Errorf("String(%q) = %q, want the secret masked", in, got)
			}
			if b := r.Bytes([]byte(in)); string(b) != got {
				t.Errorf("Bytes = %q, String = %q", b, got)
			}
		})
	}
}

func TestWeakSecretRefused(t *testing.T) {
	_, err := New(Secret{"--header X-Tenant", "acme"})
	var weak *WeakError
	if !errors.As(err, &weak) || weak.Source != "--header X-Tenant" || !strings.Contains(err.Error(), "shorter than 8") {
		t.Fatalf("New(short) error = %v, want a WeakError naming the source", err)
	}
}

func TestNilAndEmptyRedactNothing(t *testing.T) {
	var r *Redactor
	if r.String("a") != "a" || string(r.Bytes([]byte("b"))) != "b" || r.Error(nil) != nil {
		t.Fatal("nil redactor changed text")
	}
	e := mustNew(t, Secret{"x", ""})
	if !e.Empty() {
		t.Fatal("empty secret made a redactor")
	}
}

func TestErrorKeepsChain(t *testing.T) {
	r := mustNew(t, Secret{"k", "sk-secret-123"})
	base := errors.New("bad key sk-secret-123")
	err := r.Error(base)
	if strings.Contains(err.Error(), "sk-secret-123") || !errors.Is(err, base) {
		t.Fatalf("Error() = %v (Is base: %v)", err, errors.Is(err, base))
	}
}

func TestWriterMasksSecretSplitAcrossWrites(t *testing.T) {
	const s = "sk-live-0123456789"
	r := mustNew(t, Secret{"OPENAI_API_KEY", s})
	in := strings.Repeat("x", 100) + s + " tail\nline two " + s + "\n" + s[:5]
	for step := 1; step <= len(in); step++ {
		var out bytes.Buffer
		w := r.Writer(&out)
		for i := 0; i < len(in); i += step {
			if _, err := w.Write([]byte(in[i:min(i+step, len(in))])); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		want := strings.Repeat("x", 100) + Mask + " tail\nline two " + Mask + "\n" + s[:5]
		if out.String() != want {
			t.Fatalf("step %d: got %q, want %q", step, out.String(), want)
		}
	}
}

func FuzzWriterNeverLeaks(f *testing.F) {
	f.Add([]byte("abc sk-live-0123456789 def"), uint8(3))
	f.Fuzz(func(t *testing.T, data []byte, step uint8) {
		const s = "sk-live-0123456789"
		r, _ := New(Secret{"k", s})
		in := append(append(append([]byte{}, data...), s...), data...)
		var out bytes.Buffer
		w := r.Writer(&out)
		n := int(step%32) + 1
		for i := 0; i < len(in); i += n {
			_, _ = w.Write(in[i:min(i+n, len(in))])
		}
		_ = w.Close()
		if bytes.Contains(out.Bytes(), []byte(s)) {
			t.Fatalf("secret leaked: %q", out.Bytes())
		}
	})
}

// A progress line redraws itself with "\r" and no newline: what comes before
// the carriage return is written at once rather than held to the end.
func TestWriterWritesUpToCarriageReturn(t *testing.T) {
	r := mustNew(t, Secret{"k", "sk-live-0123456789"})
	var out bytes.Buffer
	w := r.Writer(&out)
	w.Write([]byte("\r3/10 cases sk-live-0123456789\r4/10"))
	if got, want := out.String(), "\r3/10 cases "+Mask+"\r"; got != want {
		t.Fatalf("before Flush: %q, want %q", got, want)
	}
	w.Flush()
	if got, want := out.String(), "\r3/10 cases "+Mask+"\r4/10"; got != want {
		t.Fatalf("after Flush: %q, want %q", got, want)
	}
	var f bytes.Buffer
	if w := r.Writer(&f); w.Unwrap() != &f {
		t.Error("Unwrap does not return the underlying writer")
	}
}

func TestJSONMasksEveryEscape(t *testing.T) {
	r := mustNew(t, Secret{"k", "tok/en<>x9"})
	allEscaped := ""
	for _, c := range "tok/en<>x9" {
		allEscaped += fmt.Sprintf(`\u%04X`, c)
	}
	tests := []struct{ in, want string }{
		{`{"name":"` + allEscaped + `"}`, `{"name":"***"}`},
		{`{"a":"x \u0074ok\/en\u003c\u003ex9 y","b":[1,"tok\u002fen<>x9"]}`, `{"a":"x *** y","b":[1,"***"]}`},
		{`{"k\"ey":"no secret \n here"}`, `{"k\"ey":"no secret \n here"}`},
		{`{"raw":"tok/en<>x9"}`, `{"raw":"***"}`},
		{`{"cut":"tok\u002fen<>x9`, `{"cut":"tok\u002fen<>x9`}, // not JSON: left to Bytes
	}
	for _, tt := range tests {
		if got := string(r.JSON([]byte(tt.in))); got != tt.want {
			t.Errorf("JSON(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func FuzzJSONNeverLeaks(f *testing.F) {
	f.Add(`{"a":"%s"}`, uint8(0))
	f.Fuzz(func(t *testing.T, tmpl string, mode uint8) {
		const s = "sk-live-0123456789"
		r, _ := New(Secret{"k", s})
		var enc string
		for i, c := range s {
			if (int(mode)>>(i%8))&1 == 1 {
				enc += fmt.Sprintf(`\u%04x`, c)
			} else {
				enc += string(c)
			}
		}
		doc, _ := json.Marshal(map[string]any{"x": tmpl})
		in := strings.Replace(string(doc), `"x":"`, `"x":"`+enc, 1)
		var v map[string]string
		if json.Unmarshal([]byte(in), &v) != nil {
			return
		}
		var back map[string]string
		if err := json.Unmarshal(r.JSON([]byte(in)), &back); err != nil {
			t.Fatalf("JSON broke valid JSON %s: %v", in, err)
		}
		if strings.Contains(back["x"], s) {
			t.Fatalf("secret leaked from %s", in)
		}
	})
}

// TestAdd shows a secret added during the run (an OAuth access token) is
// masked from then on by every sink that already holds the Redactor, a
// Writer mid-stream included, and that a short one is refused unchanged.
func TestAdd(t *testing.T) {
	r, err := New()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	w := r.Writer(&out)
	const tok = "eyJhbGciOiJSUzI1NiJ9.access-token"
	if _, err := w.Write([]byte("before " + tok + "\n")); err != nil {
		t.Fatal(err)
	}
	if err := r.Add(Secret{Source: "OAuth access token", Value: tok}); err != nil {
		t.Fatal(err)
	}
	if err := r.Add(Secret{Source: "short", Value: "abc"}); err == nil {
		t.Error("Add of a 3-character secret: no error")
	}
	if _, err := w.Write([]byte("after " + tok[:10])); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte(tok[10:] + " end\n")); err != nil {
		t.Fatal(err)
	}
	_ = w.Close()
	if got, want := out.String(), "before "+tok+"\nafter *** end\n"; got != want {
		t.Errorf("writer output = %q, want %q", got, want)
	}
	if got := r.String("x " + url.QueryEscape(tok)); got != "x ***" {
		t.Errorf("String after Add = %q", got)
	}
	if got := string(r.JSON([]byte(`{"t":"` + tok + `"}`))); got != `{"t":"***"}` {
		t.Errorf("JSON after Add = %q", got)
	}
	if r.Empty() {
		t.Error("Empty after Add")
	}
}
