package oauth

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"time"
)

// FuzzMetadata: a metadata document or token answer from an untrusted
// server never panics the parsers, and what they accept is consistent: a
// token has an access token and a Bearer type, an expiry after it was
// obtained and within the bound.
func FuzzMetadata(f *testing.F) {
	for _, s := range []string{
		`{"resource":"https://h/mcp","authorization_servers":["https://as"]}`,
		`{"issuer":"https://as","token_endpoint":"https://as/token","grant_types_supported":["client_credentials"]}`,
		`{"access_token":"abc","token_type":"Bearer","expires_in":3600}`,
		`{"access_token":"abc","token_type":"bearer","expires_in":"1e308"}`,
		`{"error":"invalid_client","error_description":"x"}`,
		`[1,2]`, `{"authorization_servers":"x"}`, `{"expires_in":-1,"access_token":"a","token_type":"Bearer"}`, "\x00{",
	} {
		f.Add([]byte(s), 200)
	}
	f.Fuzz(func(t *testing.T, body []byte, status int) {
		var rm ResourceMetadata
		_ = decodeObject(body, &rm)
		var sm ServerMetadata
		_ = decodeObject(body, &sm)
		sent := time.Unix(1_800_000_000, 0)
		tok, err := parseTokenAnswer("https://as/token", &answer{status: status, body: body}, sent)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error on two lines: %q", err)
			}
			return
		}
		if tok.AccessToken == "" || !strings.EqualFold(tok.TokenType, "Bearer") {
			t.Fatalf("accepted %+v", tok)
		}
		if !tok.Expiry.IsZero() && (!tok.Expiry.After(sent) || tok.ExpiresIn > maxExpiresIn*time.Second) {
			t.Fatalf("expiry %v for a token obtained at %v", tok.Expiry, sent)
		}
		_, _ = jwtExpiry(tok.AccessToken)
	})
}

func TestExpiry(t *testing.T) {
	obtained := time.Unix(1_800_000_000, 500_000_000)
	jwt := func(exp int64) string {
		return "eyJhbGciOiJSUzI1NiJ9." + base64.RawURLEncoding.EncodeToString([]byte(fmt.Sprintf(`{"exp":%d}`, exp))) + ".c2ln"
	}
	in := func(d time.Duration) time.Time { return obtained.Add(d) }
	tests := []struct {
		name   string
		tok    Token
		expiry time.Time
	}{
		{"opaque, expires_in", Token{AccessToken: "opaque-token", Expiry: in(time.Minute)}, in(time.Minute)},
		{"JWT without expires_in", Token{AccessToken: jwt(obtained.Unix() + 30)}, time.Unix(obtained.Unix()+30, 0)},
		{"exp cut to the second, just before expires_in", Token{AccessToken: jwt(obtained.Unix() + 60), Expiry: in(time.Minute)}, time.Unix(obtained.Unix()+60, 0)},
		{"exp of another clock, far before", Token{AccessToken: jwt(obtained.Unix() - 3600 + 60), Expiry: in(time.Minute)}, in(time.Minute)},
		{"exp after expires_in", Token{AccessToken: jwt(obtained.Unix() + 3600), Expiry: in(time.Minute)}, in(time.Minute)},
		{"not a JWT", Token{AccessToken: "a.b.c", Expiry: in(time.Minute)}, in(time.Minute)},
	}
	for _, tt := range tests {
		tt.tok.Obtained = obtained
		if got := expiry(&tt.tok); !got.Equal(tt.expiry) {
			t.Errorf("%s: expiry %v, want %v", tt.name, got, tt.expiry)
		}
	}
}
