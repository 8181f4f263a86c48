package oauth

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Grant types this package requests (RFC 6749 §4.4, RFC 7523 §2.1).
const (
	GrantClientCredentials = "client_credentials"
	GrantJWTBearer         = "urn:ietf:params:oauth:grant-type:jwt-bearer"
)

// Client authentication methods (RFC 8414 §2, the IANA "OAuth Token
// Endpoint Authentication Methods" registry).
const (
	AuthSecretBasic = "client_secret_basic"
	AuthSecretPost  = "client_secret_post"
	AuthNone        = "none"
)

// TokenRequest is one request to a token endpoint (RFC 6749 §3.2).
type TokenRequest struct {
	// Endpoint is the token endpoint URL.
	Endpoint string
	// GrantType is GrantClientCredentials or GrantJWTBearer.
	GrantType string
	// ClientID and ClientSecret authenticate the client with AuthMethod
	// (AuthSecretBasic, AuthSecretPost; AuthNone sends client_id in the
	// body when set, and no secret).
	ClientID, ClientSecret string
	AuthMethod             string
	// Assertion is the JWT of the jwt-bearer grant (RFC 7523 §2.1).
	Assertion string
	// Resource, Scope and Audience are sent when not empty: resource is
	// the RFC 8707 resource indicator, scope the space-separated scopes,
	// audience the parameter that authorization servers without resource
	// indicators (Ory Hydra, Auth0) read instead.
	Resource, Scope, Audience string
}

// Token is a token endpoint's successful answer (RFC 6749 §5.1).
type Token struct {
	AccessToken string
	TokenType   string
	// ExpiresIn is the lifetime the server gave, 0 when it gave none.
	ExpiresIn time.Duration
	// Expiry is when the token expires (the request's start plus
	// ExpiresIn), zero when unknown.
	Expiry time.Time
	// Scope is the scope granted, when the server said (RFC 6749 §5.1:
	// REQUIRED only when it differs from the one requested).
	Scope string
	// RefreshToken is kept only so that a caller may mask it; this
	// package never uses it.
	RefreshToken string
	// IssuedTokenType is RFC 8693's issued_token_type, when sent.
	IssuedTokenType string
	// Obtained is when the request was sent.
	Obtained time.Time
}

// TokenError is a token endpoint's refusal: its error response (RFC 6749
// §5.2) or an answer that is none.
type TokenError struct {
	Endpoint string
	Status   int
	// Code, Description and URI are the error response's error,
	// error_description and error_uri.
	Code, Description, URI string
	// Detail says what was wrong with an answer that is not an error
	// response (not JSON, no access_token, a token type other than
	// Bearer), or what failed on the way.
	Detail string
}

func (e *TokenError) Error() string {
	s := "token endpoint " + e.Endpoint
	if e.Status != 0 {
		s += fmt.Sprintf(" answered HTTP %d", e.Status)
	}
	if e.Code != "" {
		s += ": error=" + strconv.Quote(clipText(e.Code, 100))
		if e.Description != "" {
			s += " error_description=" + strconv.Quote(clipText(e.Description, 300))
		}
		if e.URI != "" {
			s += " error_uri=" + strconv.Quote(clipText(e.URI, 200))
		}
	}
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// clock tells the time a token was obtained (Session's Now in tests).
type clock func() time.Time

// RequestToken sends r to its endpoint and returns the token, or a
// *TokenError carrying the endpoint's error and error_description. The
// endpoint must be https, or http on loopback (OAuth 2.1 §1.5): otherwise
// nothing is sent and the error wraps ErrInsecure.
func (f *Fetcher) RequestToken(ctx context.Context, r TokenRequest) (*Token, error) {
	return f.requestToken(ctx, r, time.Now)
}

func (f *Fetcher) requestToken(ctx context.Context, r TokenRequest, now clock) (*Token, error) {
	if err := RequireSecure("token endpoint", r.Endpoint); err != nil {
		return nil, err
	}
	form := url.Values{}
	form.Set("grant_type", r.GrantType)
	if r.GrantType == GrantJWTBearer {
		if r.Assertion == "" {
			return nil, errors.New("jwt-bearer grant without an assertion")
		}
		form.Set("assertion", r.Assertion)
	}
	for k, v := range map[string]string{"resource": r.Resource, "scope": r.Scope, "audience": r.Audience} {
		if v != "" {
			form.Set(k, v)
		}
	}
	var basic string
	switch r.AuthMethod {
	case AuthSecretBasic:
		// RFC 6749 §2.3.1: the id and secret are form-encoded before
		// they are joined and base64-encoded; servers decode them.
		basic = base64.StdEncoding.EncodeToString([]byte(formEncode(r.ClientID) + ":" + formEncode(r.ClientSecret)))
	case AuthSecretPost:
		form.Set("client_id", r.ClientID)
		form.Set("client_secret", r.ClientSecret)
	case AuthNone, "":
		if r.ClientID != "" {
			form.Set("client_id", r.ClientID)
		}
	default:
		return nil, fmt.Errorf("client authentication method %q is not supported (want %s or %s)", r.AuthMethod, AuthSecretBasic, AuthSecretPost)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.Endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, &TokenError{Endpoint: r.Endpoint, Detail: err.Error()}
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if basic != "" {
		req.Header.Set("Authorization", "Basic "+basic)
	}
	sent := now()
	ans, err := f.do(ctx, req)
	if err != nil {
		te := &TokenError{Endpoint: r.Endpoint, Detail: err.Error()}
		te.mask(r.credentialForms(basic))
		return nil, te
	}
	t, err := parseTokenAnswer(r.Endpoint, ans, sent)
	if te, ok := err.(*TokenError); ok {
		// An error that quotes the answer never carries the request's own
		// credentials, in any spelling the answer may have echoed.
		te.mask(r.credentialForms(basic))
	}
	return t, err
}

// formEncode is application/x-www-form-urlencoded encoding of one value.
func formEncode(s string) string { return url.QueryEscape(s) }

// tokenJSON is the wire form of a token response; expires_in is read as
// a number or a numeric string (some servers quote it).
type tokenJSON struct {
	AccessToken      string          `json:"access_token"`
	TokenType        string          `json:"token_type"`
	ExpiresIn        json.RawMessage `json:"expires_in"`
	Scope            string          `json:"scope"`
	RefreshToken     string          `json:"refresh_token"`
	IssuedTokenType  string          `json:"issued_token_type"`
	Error            string          `json:"error"`
	ErrorDescription string          `json:"error_description"`
	ErrorURI         string          `json:"error_uri"`
}

func parseTokenAnswer(endpoint string, ans *answer, sent time.Time) (*Token, error) {
	te := &TokenError{Endpoint: endpoint, Status: ans.status}
	var tj tokenJSON
	if err := decodeObject(ans.body, &tj); err != nil {
		te.Detail = err.Error()
		if b := strings.TrimSpace(string(ans.body)); b != "" {
			te.Detail += ": " + strconv.Quote(clipText(b, 200))
		}
		return nil, te
	}
	if ans.status != http.StatusOK || tj.Error != "" {
		te.Code, te.Description, te.URI = tj.Error, tj.ErrorDescription, tj.ErrorURI
		if te.Code == "" {
			te.Detail = "the answer is not an error response (RFC 6749 §5.2: no error member)"
		}
		return nil, te
	}
	if tj.AccessToken == "" {
		te.Detail = "the answer has no access_token (RFC 6749 §5.1: REQUIRED)"
		return nil, te
	}
	if !strings.EqualFold(tj.TokenType, "Bearer") {
		te.Detail = fmt.Sprintf("token_type %q: mcp-eval sends Bearer tokens only (authorization/index.mdx §Access Token Usage)", clipText(tj.TokenType, 40))
		return nil, te
	}
	t := &Token{AccessToken: tj.AccessToken, TokenType: tj.TokenType, Scope: tj.Scope,
		RefreshToken: tj.RefreshToken, IssuedTokenType: tj.IssuedTokenType, Obtained: sent}
	if secs, ok := expiresIn(tj.ExpiresIn); ok && secs > 0 {
		t.ExpiresIn = time.Duration(secs) * time.Second
		t.Expiry = sent.Add(t.ExpiresIn)
	}
	return t, nil
}

// maxExpiresIn bounds a lifetime read from a server (ten years).
const maxExpiresIn = 10 * 365 * 24 * 3600

func expiresIn(raw json.RawMessage) (int64, bool) {
	s := strings.Trim(strings.TrimSpace(string(raw)), `"`)
	if s == "" || s == "null" {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != f || f < 0 {
		return 0, false
	}
	return int64(min(f, maxExpiresIn)), true
}

// clipText shortens s to at most n bytes on a rune boundary, marking the
// cut, and drops control characters (an error description is untrusted
// text that ends up on one line of a terminal).
func clipText(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8Start(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }
