package mcptest

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The fixture's authorization mode (Options.Auth, or any auth/* defect): the
// MCP endpoint becomes an OAuth protected resource (basic/authorization of
// 2026-07-28) with its own authorization server on the same origin:
//
//	/.well-known/oauth-protected-resource/<endpoint path>   RFC 9728 metadata
//	/.well-known/oauth-authorization-server/as              RFC 8414 metadata (issuer <origin>/as)
//	/as/token                                               client_credentials (client_secret_basic or _post)
//
// Tokens are opaque to clients (two base64url parts: claims and an HMAC),
// carry the RFC 8707 resource as their audience, and are valid for
// Options.AuthTokenTTL. Every request to the endpoint needs one whose
// audience is the endpoint's URL and whose scope includes AuthScope.
const (
	AuthClientID     = "mcp-eval-fixture-client"
	AuthClientSecret = "mcp-eval-fixture-secret-0123456789"
	// AuthScope is the scope every request needs; AuthExtraScope is
	// another scope of scopes_supported that does not cover it.
	AuthScope      = "mcp:tools"
	AuthExtraScope = "mcp:admin"
	// AuthTTLParam is a token-request parameter of the fixture's own
	// (seconds), so that a test can ask for a token that expires soon
	// while the run's own token lives on.
	AuthTTLParam = "mcp_eval_ttl"
)

// DefaultAuthTokenTTL is the lifetime of the fixture's tokens when
// Options.AuthTokenTTL is 0.
const DefaultAuthTokenTTL = time.Hour

// AuthDefects are the defects of the auth group, one per check id.
var AuthDefects = []string{
	"auth/unauthenticated-401",
	"auth/no-error-without-credentials",
	"auth/challenge-scope",
	"auth/no-offline-access",
	"auth/resource-metadata-discoverable",
	"auth/resource-metadata-valid",
	"auth/resource-metadata-resource",
	"auth/authorization-servers",
	"auth/resource-metadata-https",
	"auth/as-metadata",
	"auth/as-token-endpoint",
	"auth/as-https",
	"auth/as-pkce-s256",
	"auth/as-iss-parameter",
	"auth/as-client-registration",
	"auth/as-grant-type",
	"auth/as-client-credentials-metadata",
	"auth/mcp-authorization",
	"auth/malformed-token",
	"auth/forged-token-refused",
	"auth/invalid-token-error",
	"auth/expired-token",
	"auth/query-token-refused",
	"auth/other-audience-refused",
	"auth/insufficient-scope",
	"auth/single-challenge",
	"auth/no-token-echo",
	"auth/no-token-passthrough",
}

// DefectAudienceHostOnly compares a token's audience with the endpoint's
// origin alone: a token issued for another path on the same host passes
// (resource indicators are whole URIs, RFC 8707 §2).
const DefectAudienceHostOnly = "audience-host-only"

func init() {
	Defects = append(Defects, append(AuthDefects, DefectAudienceHostOnly)...)
	// Its 400 answers every token it cannot read, forged ones included.
	expect("auth/malformed-token", Expect{Also: []string{"auth/forged-token-refused"}})
}

// authOn reports whether the server is a protected resource.
func (s *Server) authOn() bool {
	if s.opts.Legacy {
		return false
	}
	if s.opts.Auth {
		return true
	}
	for d, on := range s.opts.Defects {
		if on && (strings.HasPrefix(d, "auth/") || d == DefectAudienceHostOnly) {
			return true
		}
	}
	return false
}

type tokenClaims struct {
	Aud   string `json:"aud"`
	Scope string `json:"scope"`
	Exp   int64  `json:"exp"`
	Sub   string `json:"sub"`
}

// issue mints a token for resource with scope, valid for ttl.
func (s *Server) issue(resource, scope string, ttl time.Duration) string {
	b, _ := json.Marshal(tokenClaims{Aud: resource, Scope: scope, Exp: time.Now().Add(ttl).Unix(), Sub: AuthClientID})
	payload := base64.RawURLEncoding.EncodeToString(b)
	return payload + "." + base64.RawURLEncoding.EncodeToString(s.mac(payload))
}

func (s *Server) mac(payload string) []byte {
	m := hmac.New(sha256.New, []byte(s.stateID))
	m.Write([]byte("token:" + payload))
	return m.Sum(nil)
}

// IssueToken mints a token the way the fixture's token endpoint does, for
// tests that need one without a token request.
func (s *Server) IssueToken(resource, scope string, ttl time.Duration) string {
	return s.issue(resource, scope, ttl)
}

func (s *Server) parseToken(tok string) (*tokenClaims, error) {
	payload, sig, ok := strings.Cut(tok, ".")
	if !ok {
		return nil, fmt.Errorf("not a token of this server")
	}
	got, err := base64.RawURLEncoding.DecodeString(sig)
	// The forged-token defect reads the claims without checking the MAC
	// (a server that decodes a JWT without verifying its signature).
	if !s.has("auth/forged-token-refused") && (err != nil || !hmac.Equal(got, s.mac(payload))) {
		return nil, fmt.Errorf("bad signature")
	}
	b, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil {
		return nil, fmt.Errorf("bad payload")
	}
	var c tokenClaims
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("bad payload")
	}
	return &c, nil
}

func (s *Server) tokenTTL() time.Duration {
	if s.opts.AuthTokenTTL > 0 {
		return s.opts.AuthTokenTTL
	}
	return DefaultAuthTokenTTL
}

// serveAuth answers the authorization paths and guards the MCP endpoint:
// true when it wrote the answer, false to go on to the MCP request.
func (s *Server) serveAuth(w http.ResponseWriter, r *http.Request) bool {
	origin := "http://" + r.Host
	path := r.URL.Path
	const prmPrefix = "/.well-known/oauth-protected-resource"
	switch {
	case strings.HasPrefix(path, prmPrefix):
		if s.has("auth/resource-metadata-discoverable") || s.has("auth/mcp-authorization") {
			http.NotFound(w, r)
			return true
		}
		s.writeResourceMetadata(w, origin, strings.TrimPrefix(path, prmPrefix))
	case path == "/.well-known/oauth-authorization-server/as":
		s.writeASMetadata(w, origin)
	case path == "/as/token":
		s.serveToken(w, r, origin)
	case strings.HasPrefix(path, "/.well-known/") || strings.HasPrefix(path, "/as/"):
		http.NotFound(w, r)
	default:
		return s.guard(w, r, origin)
	}
	return true
}

func writeAuthJSON(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

func (s *Server) writeResourceMetadata(w http.ResponseWriter, origin, endpoint string) {
	resource := origin + endpoint
	servers := []string{origin + "/as"}
	switch {
	case s.has("auth/resource-metadata-resource"):
		resource = origin + "/mcp-eval-fixture-other"
	case s.has("auth/authorization-servers"):
		servers = []string{}
	case s.has("auth/resource-metadata-https"):
		servers = append(servers, "http://as.mcp-eval-fixture.invalid/as")
	}
	scopes := []string{AuthScope, AuthExtraScope}
	if s.has("auth/no-offline-access") {
		scopes = append(scopes, "offline_access")
	}
	md := map[string]any{
		"resource":                 resource,
		"authorization_servers":    servers,
		"scopes_supported":         scopes,
		"bearer_methods_supported": []string{"header"},
		"resource_name":            ServerName,
	}
	if s.has("auth/resource-metadata-valid") {
		b, _ := json.Marshal(md)
		w.Header().Set("Content-Type", "text/plain")
		_, _ = w.Write(b)
		return
	}
	writeAuthJSON(w, http.StatusOK, md)
}

func (s *Server) writeASMetadata(w http.ResponseWriter, origin string) {
	issuer := origin + "/as"
	md := map[string]any{
		"issuer":                                         issuer,
		"authorization_endpoint":                         issuer + "/authorize",
		"token_endpoint":                                 issuer + "/token",
		"response_types_supported":                       []string{"code"},
		"grant_types_supported":                          []string{"authorization_code", "client_credentials"},
		"code_challenge_methods_supported":               []string{"S256"},
		"token_endpoint_auth_methods_supported":          []string{"client_secret_basic", "client_secret_post"},
		"scopes_supported":                               []string{AuthScope, AuthExtraScope},
		"authorization_response_iss_parameter_supported": true,
		"client_id_metadata_document_supported":          true,
	}
	switch {
	case s.has("auth/as-metadata"):
		md["issuer"] = origin + "/mcp-eval-fixture-other-as"
	case s.has("auth/as-token-endpoint"):
		delete(md, "token_endpoint")
	case s.has("auth/as-https"):
		md["jwks_uri"] = "http://keys.mcp-eval-fixture.invalid/jwks"
	case s.has("auth/as-pkce-s256"):
		md["code_challenge_methods_supported"] = []string{"plain"}
	case s.has("auth/as-iss-parameter"):
		md["authorization_response_iss_parameter_supported"] = false
	case s.has("auth/as-client-registration"):
		delete(md, "client_id_metadata_document_supported")
		md["registration_endpoint"] = issuer + "/register"
	case s.has("auth/as-grant-type"):
		md["grant_types_supported"] = []string{"authorization_code"}
	case s.has("auth/as-client-credentials-metadata"):
		md["token_endpoint_auth_methods_supported"] = []string{"client_secret_post"}
	}
	writeAuthJSON(w, http.StatusOK, md)
}

// serveToken is the token endpoint: client_credentials only (RFC 6749
// §4.4), the client authenticated by HTTP Basic or in the body, resource
// per RFC 8707 (any absolute URI), scope a subset of scopes_supported.
func (s *Server) serveToken(w http.ResponseWriter, r *http.Request, origin string) {
	oauthErr := func(status int, code, desc string) {
		writeAuthJSON(w, status, map[string]string{"error": code, "error_description": desc})
	}
	if r.Method != http.MethodPost {
		oauthErr(http.StatusMethodNotAllowed, "invalid_request", "POST only")
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		oauthErr(http.StatusBadRequest, "invalid_request", "unreadable form")
		return
	}
	id, secret, basic := r.BasicAuth()
	if !basic {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	if id != AuthClientID || secret != AuthClientSecret {
		w.Header().Set("WWW-Authenticate", `Basic realm="mcp-eval-fixture"`)
		oauthErr(http.StatusUnauthorized, "invalid_client", "unknown client or wrong secret")
		return
	}
	if g := r.PostForm.Get("grant_type"); g != "client_credentials" {
		oauthErr(http.StatusBadRequest, "unsupported_grant_type", "only client_credentials")
		return
	}
	resource := r.PostForm.Get("resource")
	if resource == "" {
		oauthErr(http.StatusBadRequest, "invalid_target", "resource is required")
		return
	}
	scope := r.PostForm.Get("scope")
	if scope == "" {
		scope = AuthScope
	}
	for _, sc := range strings.Fields(scope) {
		if sc != AuthScope && sc != AuthExtraScope {
			oauthErr(http.StatusBadRequest, "invalid_scope", "unknown scope "+sc)
			return
		}
	}
	ttl := s.tokenTTL()
	if v := r.PostForm.Get(AuthTTLParam); v != "" {
		if n, err := strconv.Atoi(v); err == nil && n > 0 {
			ttl = time.Duration(n) * time.Second
		}
	}
	writeAuthJSON(w, http.StatusOK, map[string]any{
		"access_token": s.issue(resource, scope, ttl),
		"token_type":   "Bearer",
		"expires_in":   int(ttl / time.Second),
		"scope":        scope,
	})
}

// guard lets a request with a valid token through to the MCP endpoint and
// answers every other one (OAuth 2.1 §5.3, RFC 6750 §3).
func (s *Server) guard(w http.ResponseWriter, r *http.Request, origin string) bool {
	resource := origin + r.URL.Path
	params := fmt.Sprintf("resource_metadata=%q, scope=%q", origin+"/.well-known/oauth-protected-resource"+r.URL.Path, AuthScope)
	switch {
	case s.has("auth/resource-metadata-discoverable"), s.has("auth/mcp-authorization"):
		// No resource_metadata: with no metadata at the well-known URIs
		// either, the server looks like an API-key server.
		params = fmt.Sprintf("scope=%q", AuthScope)
	case s.has("auth/challenge-scope"):
		params = fmt.Sprintf("resource_metadata=%q", origin+"/.well-known/oauth-protected-resource"+r.URL.Path)
	}
	challenge := func(status int, errCode, desc, body string) bool {
		h := "Bearer " + params
		if errCode != "" {
			h = fmt.Sprintf("Bearer error=%q, error_description=%q, %s", errCode, desc, params)
		}
		if status != http.StatusUnauthorized || !s.has("auth/unauthenticated-401") || errCode != "" {
			w.Header().Set("WWW-Authenticate", h)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
		return true
	}
	tok := ""
	if scheme, v, ok := strings.Cut(r.Header.Get("Authorization"), " "); ok && strings.EqualFold(scheme, "Bearer") {
		tok = strings.TrimSpace(v)
	}
	if tok == "" && s.has("auth/query-token-refused") {
		tok = r.URL.Query().Get("access_token")
	}
	if tok == "" {
		if s.has("auth/no-error-without-credentials") {
			return challenge(http.StatusUnauthorized, "invalid_token", "no access token", `{"error":"invalid_token"}`)
		}
		return challenge(http.StatusUnauthorized, "", "", `{"error":"unauthorized","error_description":"an access token is required"}`)
	}
	invalid := func(why string) bool {
		body, _ := json.Marshal(map[string]string{"error": "invalid_token", "error_description": "the access token is " + why})
		if s.has("auth/no-token-echo") {
			body, _ = json.Marshal(map[string]string{"error": "invalid_token", "error_description": "the access token " + tok + " is " + why})
		}
		if s.has("auth/invalid-token-error") {
			return challenge(http.StatusUnauthorized, "", "", string(body))
		}
		return challenge(http.StatusUnauthorized, "invalid_token", "the access token is "+why, string(body))
	}
	c, err := s.parseToken(tok)
	if err != nil {
		if s.has("auth/malformed-token") {
			writeAuthJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_request"})
			return true
		}
		return invalid("not valid")
	}
	if time.Now().Unix() >= c.Exp && !s.has("auth/expired-token") {
		return invalid("expired")
	}
	if s.has(DefectAudienceHostOnly) {
		if u, err := url.Parse(c.Aud); err != nil || u.Scheme+"://"+u.Host != origin {
			return invalid("not issued for this host")
		}
	} else if c.Aud != resource && !s.has("auth/other-audience-refused") {
		return invalid("not issued for this resource")
	}
	if !slices.Contains(strings.Fields(c.Scope), AuthScope) {
		if s.has("auth/insufficient-scope") {
			w.Header().Set("WWW-Authenticate", "Bearer "+params)
			writeAuthJSON(w, http.StatusForbidden, map[string]string{"error": "forbidden"})
			return true
		}
		if s.has("auth/single-challenge") {
			// The challenge names the scopes the token was granted, not
			// those the operation needs (what the 2026-07-28 revision
			// stopped asking of servers): re-authorizing with them gets
			// the same refusal.
			params = strings.Replace(params, fmt.Sprintf("scope=%q", AuthScope), fmt.Sprintf("scope=%q", c.Scope), 1)
		}
		w.Header().Set("WWW-Authenticate", fmt.Sprintf("Bearer error=%q, %s", "insufficient_scope", params))
		writeAuthJSON(w, http.StatusForbidden, map[string]string{"error": "insufficient_scope"})
		return true
	}
	if s.has("auth/no-token-passthrough") {
		s.passThrough(r.Header.Get("Authorization"))
	}
	return false
}

// passThrough is the token-passthrough defect: the client's Authorization
// goes on to the upstream, as a proxy that forwards it would send it.
func (s *Server) passThrough(authorization string) {
	s.mu.Lock()
	s.forwarded++
	s.mu.Unlock()
	if s.opts.Upstream == "" {
		return
	}
	req, err := http.NewRequest(http.MethodGet, s.opts.Upstream, nil)
	if err != nil {
		return
	}
	req.Header.Set("Authorization", authorization)
	hc := &http.Client{Timeout: 2 * time.Second}
	if resp, err := hc.Do(req); err == nil {
		resp.Body.Close()
	}
}

// Forwarded counts the Authorization headers the auth/no-token-passthrough
// defect passed on.
func (s *Server) Forwarded() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.forwarded
}
