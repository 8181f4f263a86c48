package redact

import (
	"bytes"
	"encoding/base64"
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
	for _, ex := range redacttest.Examples(tok) {
		t.Run(ex.Name, func(t *testing.T) {
			in := "before " + ex.Text + " after"
			got := r.String(in)
			if ex.Ragged {
				// The characters that encode the secret alone go: at most
				// two at each edge mix in the bytes around it and stay.
				if removed := len(in) - len(got) + len(Mask); !strings.Contains(got, Mask) || removed < 4*len(tok)/3-4 {
					t.Errorf("String(%q) = %q: %d characters masked, want the %d that encode the secret", in, got, removed, 4*len(tok)/3-4)
				}
				return
			}
			if got != "before "+Mask+" after" {
				t.Errorf("String(%q) = %q, want the secret masked", in, got)
			}
			if b := r.Bytes([]byte(in)); string(b) != got {
				t.Errorf("Bytes = %q, String = %q", b, got)
			}
			// In a JSON string, as the text a server put there, and as the
			// escapes it wrote on the wire.
			doc, _ := json.Marshal(map[string]string{"m": in})
			if ex.Wire != "" {
				doc = []byte(`{"m":"before ` + ex.Wire + ` after"}`)
			}
			if got, want := string(r.JSON(doc)), `{"m":"before `+Mask+` after"}`; got != want {
				t.Errorf("JSON(%s) = %s, want %s", doc, got, want)
			}
		})
	}
}

// TestTableAndExamplesAgree: every row of Table has an example in
// redacttest, and every example names a row, so that a new spelling is
// tested through every output.
func TestTableAndExamplesAgree(t *testing.T) {
	rows := map[string]int{}
	for _, sp := range Table {
		rows[sp.Name] = 0
		if (sp.Encode == nil) == (sp.decode == nil) || sp.Doc == "" {
			t.Errorf("row %q: want exactly one of an encoder and a decoder, and a Doc", sp.Name)
		}
	}
	for _, ex := range redacttest.Examples(tok) {
		if _, ok := rows[ex.Row]; !ok {
			t.Errorf("example %q names no row of Table (%q)", ex.Name, ex.Row)
		}
		rows[ex.Row]++
	}
	for name, n := range rows {
		if n == 0 {
			t.Errorf("row %q has no example in redacttest.Examples", name)
		}
	}
}

// Decoded text is mapped back to what was written: only the escapes of the
// secret are masked, never the text around it, and an escape is masked
// whole or not at all.
func TestDecodedMatchMasksOnlyTheSecret(t *testing.T) {
	r := mustNew(t, Secret{"k", "sk-live-0123456789"})
	tests := []struct{ in, want string }{
		{"a %73k-live-0123456789%20b", "a ***%20b"},
		{`x\u0073\u006b-live-0123456789\n`, `x***\n`},
		{"&lt;&#115;k-live-01234567&#56;9&gt;", "&lt;***&gt;"},
		{"sk-live-01234\ndata: 56789 tail", "*** tail"},
		{"sk-live-01234\n56789", "***"},
		{`%2573k-live-0123456789`, "***"},
		{`&amp;#115;k-live-0123456789`, "***"},
		{"no secret here %zz &bogus; \\q", "no secret here %zz &bogus; \\q"},
		{"sk-live-0123456 789", "sk-live-0123456 789"},
	}
	for _, tt := range tests {
		if got := r.String(tt.in); got != tt.want {
			t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
		}
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
		{`{"cut":"tok\u002fen<>x9`, `{"cut":"***`}, // not JSON: masked as text
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

// A stream masks a decoded spelling split across writes at any byte, and
// FileWriter a secret split over two lines as well (server.log masks what
// the reports mask).
func TestWriterMasksDecodedSpellingsAcrossWrites(t *testing.T) {
	const s = "sk-live-0123456789"
	r := mustNew(t, Secret{"k", s})
	for _, ex := range redacttest.Examples(s) {
		in := "log: " + ex.Text + " done\n"
		for _, file := range []bool{false, true} {
			if ex.Lines && !file {
				continue // a terminal gets each line as it comes
			}
			for step := 1; step <= len(in); step += 3 {
				var out bytes.Buffer
				w := r.Writer(&out)
				if file {
					w = r.FileWriter(&out)
				}
				for i := 0; i < len(in); i += step {
					w.Write([]byte(in[i:min(i+step, len(in))]))
				}
				w.Close()
				want := "log: " + Mask + " done\n"
				if ex.Ragged {
					// The edges stay (TestEverySpellingIsMasked): a stream
					// masks what the whole text would.
					want = r.String(in)
				}
				if got := out.String(); got != want || !strings.Contains(got, Mask) {
					t.Fatalf("%s, file %v, step %d: got %q, want %q", ex.Name, file, step, got, want)
				}
			}
		}
	}
}

func FuzzMatcherFindsEveryPattern(f *testing.F) {
	f.Add([]byte("abcdabcdabcdab"), []byte("abcdab"), []byte("cdab"))
	f.Fuzz(func(t *testing.T, text, p1, p2 []byte) {
		var pats [][]byte
		for _, p := range [][]byte{p1, p2} {
			if len(p) >= minPattern {
				pats = append(pats, p)
			}
		}
		m := newMatcher(pats)
		got := map[span]bool{}
		m.find(text, func(s, e int) { got[span{s, e}] = true })
		want := map[span]bool{}
		for _, p := range pats {
			for i := 0; i+len(p) <= len(text); i++ {
				if bytes.Equal(text[i:i+len(p)], p) {
					want[span{i, i + len(p)}] = true
				}
			}
		}
		if len(got) != len(want) {
			t.Fatalf("text %q patterns %q: found %v, want %v", text, pats, got, want)
		}
		for x := range want {
			if !got[x] {
				t.Fatalf("text %q patterns %q: %v not found", text, pats, x)
			}
		}
	})
}

// FuzzMaskUntrustedBytes: whatever bytes surround a spelled secret, masking
// never panics, leaves no spelling it can find (masking again changes
// nothing), never leaves a generated spelling, and keeps valid JSON valid.
func FuzzMaskUntrustedBytes(f *testing.F) {
	f.Add([]byte(`\`), []byte(`%`), uint8(0))
	f.Add([]byte("&#1"), []byte("\n"), uint8(25))
	f.Add([]byte(`{"a":"`), []byte(`"}`), uint8(17))
	const s = `sk-live/0123<"9>`
	r, _ := New(Secret{"k", s})
	exs := redacttest.Examples(s)
	gen := Spellings(s)
	f.Fuzz(func(t *testing.T, pre, post []byte, which uint8) {
		ex := exs[int(which)%len(exs)]
		in := string(pre) + ex.Text + string(post)
		out := r.String(in)
		if again := r.String(out); again != out {
			t.Fatalf("%s: masking %q left a spelling: %q, then %q", ex.Name, in, out, again)
		}
		if strings.Contains(out, s) {
			t.Fatalf("%s: the secret survives in %q", ex.Name, out)
		}
		for _, g := range gen {
			if strings.Contains(out, g) {
				t.Fatalf("%s: %q survives in %q", ex.Name, g, out)
			}
		}
		if json.Valid([]byte(in)) && !json.Valid(r.JSON([]byte(in))) {
			t.Fatalf("JSON(%q) = %q, no longer valid", in, r.JSON([]byte(in)))
		}
		doc, _ := json.Marshal(in)
		if m := r.JSON(doc); !json.Valid(m) {
			t.Fatalf("JSON(%s) = %s, no longer valid", doc, m)
		}
	})
}

func TestCredentialHeader(t *testing.T) {
	for name, want := range map[string]bool{
		"Authorization": true, "proxy-authorization": true, "Cookie": true, "X-API-Key": true, "apikey": true,
		"Ocp-Apim-Subscription-Key": true, "X-Auth-Token": true, "Private-Token": true, "X_Vault_Token": true,
		"X-Hasura-Admin-Secret": true, "X-Password": true, "X-Auth": true, "X-Session": true,
		"X-Trace": false, "X-Tenant": false, "Accept": false, "X-Key-Id": false, "X-Token-Type": false, "": false,
	} {
		if got := CredentialHeader(name); got != want {
			t.Errorf("CredentialHeader(%q) = %v, want %v", name, got, want)
		}
	}
}

// A message shortened where it was made (internal/clip) may end inside a
// secret: what is left of it before the ellipsis is masked.
func TestClippedSecretIsMasked(t *testing.T) {
	r := mustNew(t, Secret{"k", "sk-live-0123456789"})
	for in, want := range map[string]string{
		"last stderr line: key sk-live-01…":           "last stderr line: key ***…",
		`{"m":"key \u0073k-live-0123…"}`:              `{"m":"key ***…"}`,
		"ellipsis without a secret… sk-l…":            "ellipsis without a secret… ***…",
		"too little of it: sk-…":                      "too little of it: sk-…",
		"whole: sk-live-0123456789… and cut sk-live…": "whole: ***… and cut ***…",
	} {
		if got := r.String(in); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
	}
}

// A client secret inside a Basic credential ("id:secret" in base64) is
// masked whatever the length of the client id: an OAuth token endpoint
// that echoes the request's Authorization header in its error.
func TestBasicCredentialOfASecretIsMasked(t *testing.T) {
	const secret = "cs-0123456789abcdefXYZ"
	r := mustNew(t, Secret{"--oauth-client-secret", secret})
	for _, id := range []string{"a", "ab", "abc", "mcp-eval-client", "x1"} {
		cred := base64.StdEncoding.EncodeToString([]byte(id + ":" + secret))
		got := r.String(`{"error":"invalid_client","error_description":"bad Authorization: Basic ` + cred + `"}`)
		inner := blob(base64.StdEncoding, (len(id)+1)%3)(secret)
		if strings.Contains(got, inner) || !strings.Contains(got, "Basic ") || !strings.Contains(got, Mask) {
			t.Errorf("client id %q: %s", id, got)
		}
		if dec, err := base64.StdEncoding.DecodeString(strings.Trim(strings.SplitN(got, "Basic ", 2)[1], `"}`)); err == nil && strings.Contains(string(dec), secret[2:len(secret)-2]) {
			t.Errorf("client id %q: the masked credential still decodes to the secret: %q", id, dec)
		}
	}
}
