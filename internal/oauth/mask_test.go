package oauth

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// TestTokenErrorMasksCredentials: a token endpoint that echoes the request
// (its Authorization header, its form body, the secret and the assertion
// encoded inside longer text) in an error response or in an answer that is
// none: the error names what the server said, and no spelling of the
// client secret, the Basic credentials or the assertion is in it.
func TestTokenErrorMasksCredentials(t *testing.T) {
	const secret = "s3cr+t/-client-SECRET-é%="
	const assertion = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ3b3JrbG9hZCJ9.c2lnbmF0dXJlLW9mLXRoZS1hc3NlcnRpb24"
	echo := func(r *http.Request) string {
		b, _ := io.ReadAll(r.Body)
		var parts []string
		parts = append(parts, "got Authorization: "+r.Header.Get("Authorization"), "body: "+string(b))
		if _, pw, ok := r.BasicAuth(); ok {
			raw, _ := url.QueryUnescape(pw)
			parts = append(parts, "secret "+raw, "hex "+hex.EncodeToString([]byte(raw)))
			for _, prefix := range []string{"", "x", "xy"} {
				parts = append(parts, "blob "+base64.StdEncoding.EncodeToString([]byte(prefix+"client said "+raw+" and more")))
				parts = append(parts, "urlblob "+base64.URLEncoding.EncodeToString([]byte(prefix+raw)))
			}
		}
		if a := r.Form.Get("assertion"); a != "" {
			parts = append(parts, "assertion "+a)
		}
		return strings.Join(parts, "; ")
	}
	for _, jsonAnswer := range []bool{true, false} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_ = r.ParseForm()
			r.Body = io.NopCloser(strings.NewReader(r.PostForm.Encode()))
			text := echo(r)
			w.WriteHeader(http.StatusBadRequest)
			if jsonAnswer {
				_ = json.NewEncoder(w).Encode(map[string]string{"error": "invalid_client", "error_description": text, "error_uri": "https://as.example/e?" + url.QueryEscape(text)})
				return
			}
			_, _ = io.WriteString(w, text)
		}))
		for _, method := range []string{AuthSecretBasic, AuthSecretPost} {
			r := TokenRequest{Endpoint: srv.URL + "/token", GrantType: GrantJWTBearer, ClientID: "ci:bot", ClientSecret: secret, AuthMethod: method, Assertion: assertion}
			_, err := (&Fetcher{}).RequestToken(context.Background(), r)
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			if !strings.Contains(msg, credentialMask) || !strings.Contains(msg, "HTTP 400") {
				t.Errorf("json=%v %s: %s: want the answer quoted with the credentials masked", jsonAnswer, method, msg)
			}
			basic := base64.StdEncoding.EncodeToString([]byte("ci%3Abot:" + url.QueryEscape(secret)))
			for _, leak := range []string{secret, url.QueryEscape(secret), basic, "ci%3Abot:" + url.QueryEscape(secret), hex.EncodeToString([]byte(secret)),
				assertion, "c2lnbmF0dXJlLW9mLXRoZS1hc3NlcnRpb24", "LWNsaWVudC1TRUNSRVQt"} {
				if strings.Contains(msg, leak) {
					t.Errorf("json=%v %s: the error carries %q: %s", jsonAnswer, method, leak, msg)
				}
			}
			// Every base64 alignment of the secret, either alphabet.
			for _, core := range base64Cores(secret) {
				if strings.Contains(msg, core) {
					t.Errorf("json=%v %s: the error carries the base64 core %q", jsonAnswer, method, core)
				}
			}
		}
		srv.Close()
	}
}

// TestBase64Cores: each core is in the encoding of the value at its
// alignment inside any longer text.
func TestBase64Cores(t *testing.T) {
	v := "the-client-secret-0123"
	cores := base64Cores(v)
	for _, pre := range []string{"", "a", "ab", "abc", "abcd"} {
		for _, post := range []string{"", "z", "zz"} {
			for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding} {
				s := enc.EncodeToString([]byte(pre + v + post))
				found := false
				for _, c := range cores {
					found = found || strings.Contains(s, c)
				}
				if !found {
					t.Errorf("no core of %q in %q (prefix %q)", v, s, pre)
				}
			}
		}
	}
}
