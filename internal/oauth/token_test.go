package oauth_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mcp-eval/mcp-eval/internal/oauth"
	"github.com/mcp-eval/mcp-eval/internal/oauth/oauthtest"
)

func TestRequestToken(t *testing.T) {
	as := oauthtest.NewAuthServer(t, oauthtest.Options{Resources: []string{"https://mcp.example/mcp"}, Scopes: []string{"read", "write"}, Lifetime: 5 * time.Minute})
	// A secret with characters that form-encoding changes (RFC 6749
	// §2.3.1): a client that base64s the raw secret fails here as at Hydra.
	as.AddClient(oauthtest.Client{ID: "ci:bot", Secret: "s3cr+t/ é%=", AuthMethod: "client_secret_basic"})
	as.AddClient(oauthtest.Client{ID: "poster", Secret: "post-secret-1", AuthMethod: "client_secret_post", Scopes: []string{"read"}})
	base := oauth.TokenRequest{Endpoint: as.TokenEndpoint(), GrantType: oauth.GrantClientCredentials, Resource: "https://mcp.example/mcp"}
	with := func(f func(*oauth.TokenRequest)) oauth.TokenRequest { r := base; f(&r); return r }
	tests := []struct {
		name     string
		req      oauth.TokenRequest
		code     string // "" for success
		status   int
		descPart string
	}{
		{"basic, form-encoded", with(func(r *oauth.TokenRequest) {
			r.ClientID, r.ClientSecret, r.AuthMethod, r.Scope = "ci:bot", "s3cr+t/ é%=", oauth.AuthSecretBasic, "read write"
		}), "", 200, ""},
		{"post", with(func(r *oauth.TokenRequest) {
			r.ClientID, r.ClientSecret, r.AuthMethod = "poster", "post-secret-1", oauth.AuthSecretPost
		}), "", 200, ""},
		{"the method the client is not registered for", with(func(r *oauth.TokenRequest) {
			r.ClientID, r.ClientSecret, r.AuthMethod = "poster", "post-secret-1", oauth.AuthSecretBasic
		}), "invalid_client", 401, "authenticates with client_secret_post"},
		{"a wrong secret", with(func(r *oauth.TokenRequest) {
			r.ClientID, r.ClientSecret, r.AuthMethod = "ci:bot", "wrong-secret", oauth.AuthSecretBasic
		}),
			"invalid_client", 401, "authentication failed"},
		{"an unknown resource", with(func(r *oauth.TokenRequest) {
			r.ClientID, r.ClientSecret, r.AuthMethod, r.Resource = "ci:bot", "s3cr+t/ é%=", oauth.AuthSecretBasic, "https://other.example/mcp"
		}), "invalid_target", 400, "unknown"},
		{"a scope the client may not have", with(func(r *oauth.TokenRequest) {
			r.ClientID, r.ClientSecret, r.AuthMethod, r.Scope = "poster", "post-secret-1", oauth.AuthSecretPost, "write"
		}), "invalid_scope", 400, `"write"`},
		{"client_credentials without client authentication", with(func(r *oauth.TokenRequest) { r.ClientID = "ci:bot" }), "invalid_client", 401, "authenticated client"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tok, err := (&oauth.Fetcher{}).RequestToken(context.Background(), tt.req)
			if tt.code == "" {
				if err != nil {
					t.Fatal(err)
				}
				if tok.AccessToken == "" || tok.ExpiresIn != 5*time.Minute || tok.Expiry.Sub(tok.Obtained) != 5*time.Minute {
					t.Errorf("token %+v", tok)
				}
				return
			}
			var te *oauth.TokenError
			if !errors.As(err, &te) || te.Code != tt.code || te.Status != tt.status || !strings.Contains(te.Description, tt.descPart) {
				t.Fatalf("err = %#v, want %s (HTTP %d) with %q", err, tt.code, tt.status, tt.descPart)
			}
			if !strings.Contains(err.Error(), `error="`+tt.code+`"`) || !strings.Contains(err.Error(), "error_description=") || !strings.Contains(err.Error(), as.TokenEndpoint()) {
				t.Errorf("message %q lacks the endpoint, error or error_description", err)
			}
		})
	}
}

// The test authorization server refuses what real ones refuse, so that a
// client passing against it is not passing against a lenient fake.
func TestAuthServerRefuses(t *testing.T) {
	as := oauthtest.NewAuthServer(t, oauthtest.Options{})
	as.AddClient(oauthtest.Client{ID: "c", Secret: "client-secret"})
	post := func(form url.Values, basic bool, ct string) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, as.TokenEndpoint(), strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", ct)
		if basic {
			req.SetBasicAuth("c", "client-secret")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b strings.Builder
		buf := make([]byte, 4096)
		n, _ := resp.Body.Read(buf)
		b.Write(buf[:n])
		return resp.StatusCode, b.String()
	}
	form := "application/x-www-form-urlencoded"
	for _, tt := range []struct {
		name   string
		form   url.Values
		basic  bool
		ct     string
		status int
		code   string
	}{
		{"missing grant_type", url.Values{}, true, form, 400, "invalid_request"},
		{"unknown grant_type", url.Values{"grant_type": {"password"}}, true, form, 400, "unsupported_grant_type"},
		{"two authentication methods", url.Values{"grant_type": {"client_credentials"}, "client_id": {"c"}, "client_secret": {"client-secret"}}, true, form, 400, "invalid_request"},
		{"a JSON body", url.Values{"grant_type": {"client_credentials"}}, true, "application/json", 400, "invalid_request"},
		{"a repeated parameter", url.Values{"grant_type": {"client_credentials", "client_credentials"}}, true, form, 400, "invalid_request"},
		{"a resource with a fragment", url.Values{"grant_type": {"client_credentials"}, "resource": {"https://h/mcp#x"}}, true, form, 400, "invalid_target"},
		{"a jwt-bearer grant without assertion", url.Values{"grant_type": {oauth.GrantJWTBearer}}, true, form, 400, "invalid_grant"},
		{"a fine request", url.Values{"grant_type": {"client_credentials"}}, true, form, 200, ""},
	} {
		status, body := post(tt.form, tt.basic, tt.ct)
		if status != tt.status || (tt.code != "" && !strings.Contains(body, `"error":"`+tt.code+`"`)) {
			t.Errorf("%s: HTTP %d %s, want %d %s", tt.name, status, body, tt.status, tt.code)
		}
	}
}

func TestRequestTokenAnswers(t *testing.T) {
	tests := []struct {
		name, body string
		status     int
		want       string // error substring, "" for success
		expires    time.Duration
	}{
		{"expires_in quoted", `{"access_token":"tok-123456","token_type":"bearer","expires_in":"60"}`, 200, "", time.Minute},
		{"no expires_in", `{"access_token":"tok-123456","token_type":"Bearer"}`, 200, "", 0},
		{"not JSON", `<html>oops</html>`, 502, "not a JSON object", 0},
		{"no access_token", `{"token_type":"Bearer"}`, 200, "no access_token", 0},
		{"a DPoP token", `{"access_token":"tok-123456","token_type":"DPoP"}`, 200, `token_type "DPoP"`, 0},
		{"an error without a code", `{"message":"nope"}`, 400, "not an error response", 0},
		{"an error with control characters", `{"error":"invalid_client","error_description":"line1\nline2"}`, 401, `"line1 line2"`, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tt.status)
				w.Write([]byte(tt.body))
			}))
			defer srv.Close()
			tok, err := (&oauth.Fetcher{}).RequestToken(context.Background(), oauth.TokenRequest{Endpoint: srv.URL, GrantType: oauth.GrantClientCredentials})
			if tt.want == "" {
				if err != nil || tok.ExpiresIn != tt.expires {
					t.Fatalf("tok %+v, err %v", tok, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("err = %v, want %q on one line", err, tt.want)
			}
		})
	}
}

func TestRequestTokenInsecure(t *testing.T) {
	_, err := (&oauth.Fetcher{}).RequestToken(context.Background(), oauth.TokenRequest{
		Endpoint: "http://as.example.invalid/token", GrantType: oauth.GrantClientCredentials, ClientID: "c", ClientSecret: "secret-value"})
	if !errors.Is(err, oauth.ErrInsecure) || !strings.Contains(err.Error(), "http://as.example.invalid/token") {
		t.Errorf("err = %v, want ErrInsecure naming the endpoint", err)
	}
}
