package oauth

import (
	"errors"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
)

func TestParseChallenges(t *testing.T) {
	type ch struct {
		scheme, token68 string
		params          map[string]string
		issues          int
	}
	tests := []struct {
		name   string
		in     []string
		want   []ch
		errSub string
	}{
		{"RFC 9728 §5.1 example", []string{`Bearer resource_metadata="https://resource.example.com/.well-known/oauth-protected-resource"`},
			[]ch{{"Bearer", "", map[string]string{"resource_metadata": "https://resource.example.com/.well-known/oauth-protected-resource"}, 0}}, ""},
		{"RFC 6750 §3 example", []string{`Bearer realm="example", error="invalid_token", error_description="The access token expired"`},
			[]ch{{"Bearer", "", map[string]string{"realm": "example", "error": "invalid_token", "error_description": "The access token expired"}, 0}}, ""},
		{"the revision's 403 example, with line folding spaces", []string{`Bearer error="insufficient_scope",
                         scope="files:write",
                         resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource"`},
			nil, "expected"},
		{"the revision's 403 example as one line", []string{`Bearer error="insufficient_scope", scope="files:write", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource", error_description="File write permission required for this operation"`},
			[]ch{{"Bearer", "", map[string]string{"error": "insufficient_scope", "scope": "files:write", "resource_metadata": "https://mcp.example.com/.well-known/oauth-protected-resource", "error_description": "File write permission required for this operation"}, 0}}, ""},
		{"bare scheme", []string{"Bearer"}, []ch{{"Bearer", "", map[string]string{}, 0}}, ""},
		{"two challenges in one field", []string{`Basic realm="simple", Bearer realm="mcp", scope="a b"`},
			[]ch{{"Basic", "", map[string]string{"realm": "simple"}, 0}, {"Bearer", "", map[string]string{"realm": "mcp", "scope": "a b"}, 0}}, ""},
		{"two fields", []string{`Negotiate`, `bearer Scope="x"`},
			[]ch{{"Negotiate", "", map[string]string{}, 0}, {"bearer", "", map[string]string{"scope": "x"}, 0}}, ""},
		{"token68", []string{`Negotiate YIIB9wYGKwYBBQUCoIIB7zCCAeugJDAi==, Bearer`},
			[]ch{{"Negotiate", "YIIB9wYGKwYBBQUCoIIB7zCCAeugJDAi==", map[string]string{}, 0}, {"Bearer", "", map[string]string{}, 0}}, ""},
		{"token values and BWS", []string{`Bearer error = invalid_token ,realm=mcp`},
			[]ch{{"Bearer", "", map[string]string{"error": "invalid_token", "realm": "mcp"}, 0}}, ""},
		{"quoted-pair", []string{`Bearer error_description="say \"no\" \\ twice"`},
			[]ch{{"Bearer", "", map[string]string{"error_description": `say "no" \ twice`}, 0}}, ""},
		{"an unquoted URL is accepted with an issue", []string{`Bearer resource_metadata=https://h.example/.well-known/oauth-protected-resource/mcp, scope=read`},
			[]ch{{"Bearer", "", map[string]string{"resource_metadata": "https://h.example/.well-known/oauth-protected-resource/mcp", "scope": "read"}, 1}}, ""},
		{"a repeated parameter keeps the first", []string{`Bearer scope="a", scope="b"`},
			[]ch{{"Bearer", "", map[string]string{"scope": "a"}, 1}}, ""},
		{"empty list elements", []string{`, Bearer realm="x",, `}, []ch{{"Bearer", "", map[string]string{"realm": "x"}, 0}}, ""},
		{"unclosed quote", []string{`Bearer realm="x`}, []ch{{"Bearer", "", map[string]string{}, 0}}, "not closed"},
		{"garbage", []string{`"Bearer"`}, nil, "unexpected"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseChallenges(tt.in)
			if tt.errSub != "" {
				if err == nil || !errors.Is(err, ErrChallenge) || !strings.Contains(err.Error(), tt.errSub) {
					t.Fatalf("err = %v, want one containing %q", err, tt.errSub)
				}
				if tt.want == nil {
					return
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %d challenges %+v, want %d", len(got), got, len(tt.want))
			}
			for i, w := range tt.want {
				g := got[i]
				if g.Scheme != w.scheme || g.Token68 != w.token68 || !maps.Equal(g.Params, w.params) || len(g.Issues) != w.issues {
					t.Errorf("challenge %d = %+v, want %+v", i, g, w)
				}
			}
		})
	}
}

func TestBearerChallenge(t *testing.T) {
	h := http.Header{}
	h.Add("WWW-Authenticate", `Basic realm="x"`)
	h.Add("WWW-Authenticate", `Bearer error="invalid_token", error_description="expired", scope="read write", resource_metadata="https://h/.well-known/oauth-protected-resource"`)
	c, ok := BearerChallenge(h)
	if !ok || !c.IsBearer() {
		t.Fatalf("no Bearer challenge in %v", h)
	}
	if c.Error() != "invalid_token" || c.ErrorDescription() != "expired" || c.Scope() != "read write" || c.ResourceMetadata() != "https://h/.well-known/oauth-protected-resource" {
		t.Errorf("accessors: %+v", c)
	}
	if _, ok := BearerChallenge(http.Header{"Www-Authenticate": {`Basic realm="x"`}}); ok {
		t.Error("a Basic challenge is no Bearer one")
	}
}

// FuzzParseChallenges: a server's header never panics the parser, every
// challenge it returns has a scheme made of token characters, and the
// parameters it reports round-trip through quoting.
func FuzzParseChallenges(f *testing.F) {
	for _, s := range []string{`Bearer realm="x", error="invalid_token"`, `Basic, Bearer`, `Negotiate abc==`,
		`Bearer resource_metadata=https://h/x`, `Bearer a="\"", b=c`, `,,`, `Bearer realm="`, "Bearer \x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cs, _ := ParseChallenges([]string{s})
		if len(cs) > maxChallenges {
			t.Fatalf("%d challenges, more than the bound", len(cs))
		}
		for _, c := range cs {
			if c.Scheme == "" || strings.IndexFunc(c.Scheme, func(r rune) bool { return r > 127 || !isTchar(byte(r)) }) >= 0 {
				t.Fatalf("scheme %q is not a token", c.Scheme)
			}
			if len(c.Params) > maxParams {
				t.Fatalf("%d params", len(c.Params))
			}
			// Re-encode the parameters quoted: they parse back the same.
			var parts []string
			for _, k := range slices.Sorted(maps.Keys(c.Params)) {
				v := strings.ReplaceAll(strings.ReplaceAll(c.Params[k], `\`, `\\`), `"`, `\"`)
				parts = append(parts, k+`="`+v+`"`)
			}
			again, err := ParseChallenges([]string{c.Scheme + " " + strings.Join(parts, ", ")})
			if len(parts) == 0 || err != nil && strings.ContainsAny(strings.Join(parts, ""), "\r\n") {
				continue
			}
			if err != nil || len(again) != 1 || !maps.Equal(again[0].Params, c.Params) {
				t.Fatalf("params %v re-encoded as %q parse as %+v, %v", c.Params, strings.Join(parts, ", "), again, err)
			}
		}
	})
}
