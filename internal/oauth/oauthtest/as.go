// Package oauthtest is an authorization server and a protected-resource
// wrapper written to the RFCs, for tests: it refuses what real
// authorization servers refuse (a missing grant_type, two client
// authentication methods at once, a method the client is not registered
// for, a wrong secret, an unknown resource → invalid_target, a scope the
// client may not have, an expired or foreign assertion), so that a client
// that passes against it has a chance against Hydra and oidc-provider. It
// also serves the Actions runner's OIDC token service (Runner). It imports
// only the standard library.
package oauthtest

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Client is a registered client.
type Client struct {
	ID, Secret string
	// AuthMethod is the one method the client authenticates with
	// (client_secret_basic by default, RFC 7591 §2).
	AuthMethod string
	// Scopes the client may be granted; nil allows any the server knows.
	Scopes []string
	// Audiences the client may ask for with audience= (Hydra's
	// whitelist); used in AudienceMode.
	Audiences []string
}

// Mode is how the server reads the token's audience.
type Mode int

const (
	// ResourceMode reads RFC 8707's resource (oidc-provider's
	// resourceIndicators) and ignores audience.
	ResourceMode Mode = iota
	// AudienceMode ignores resource and reads audience, which the client
	// must be allowed (Ory Hydra).
	AudienceMode
)

// Options configure an AuthServer.
type Options struct {
	// Path is the issuer's path ("" or "/tenant1").
	Path string
	Mode Mode
	// Resources are the resource identifiers tokens may be issued for
	// (ResourceMode: anything else is invalid_target); Resource.Serve
	// adds its own.
	Resources []string
	// Scopes the server knows (scopes_supported).
	Scopes []string
	// Lifetime of access tokens; 0 is one hour. NoExpiresIn leaves
	// expires_in out of the answer.
	Lifetime    time.Duration
	NoExpiresIn bool
	// OpenIDOnly serves only the OpenID Connect discovery document, as
	// Hydra does (its RFC 8414 URI is 404).
	OpenIDOnly bool
	// AuthMethods is token_endpoint_auth_methods_supported; nil lists
	// client_secret_basic and client_secret_post; a pointer to an empty
	// list leaves the member out.
	AuthMethods []string
	OmitMethods bool
	// Metadata overrides or adds members of the metadata document.
	Metadata map[string]any
	// Now is the clock; nil is time.Now.
	Now func() time.Time
	// SingleUseAssertions refuses a jwt-bearer assertion presented before
	// (invalid_grant), as Ory Hydra refuses a jti it has seen.
	SingleUseAssertions bool
}

// AuthServer is a running authorization server.
type AuthServer struct {
	*httptest.Server
	Issuer string
	opts   Options

	mu        sync.Mutex
	clients   map[string]Client
	trusted   map[string]*rsa.PublicKey // jwt-bearer issuers
	tokens    map[string]Grant
	requests  []url.Values // every token request's form, secrets and assertions blanked
	refuse    string       // an error code to answer every token request with
	resources []string
	issued    []string
	used      map[string]bool // assertions presented (SingleUseAssertions)
}

// Grant is what a token was issued for.
type Grant struct {
	ClientID  string // "" for a jwt-bearer grant without client authentication
	Subject   string
	Audience  []string
	Scope     string
	ExpiresAt time.Time
}

// NewAuthServer starts an authorization server on loopback, closed when
// the test ends.
func NewAuthServer(t testing.TB, o Options) *AuthServer {
	a := &AuthServer{opts: o, clients: map[string]Client{}, trusted: map[string]*rsa.PublicKey{}, tokens: map[string]Grant{}, resources: slices.Clone(o.Resources)}
	mux := http.NewServeMux()
	a.Server = httptest.NewServer(mux)
	t.Cleanup(a.Close)
	a.Issuer = a.URL + o.Path
	if !o.OpenIDOnly {
		mux.HandleFunc("GET /.well-known/oauth-authorization-server"+o.Path, a.metadata)
	}
	mux.HandleFunc("GET /.well-known/openid-configuration"+o.Path, a.metadata)
	mux.HandleFunc(o.Path+"/token", a.token)
	return a
}

func (a *AuthServer) now() time.Time {
	if a.opts.Now != nil {
		return a.opts.Now()
	}
	return time.Now()
}

// TokenEndpoint is the token endpoint's URL.
func (a *AuthServer) TokenEndpoint() string { return a.Issuer + "/token" }

// AddClient registers c.
func (a *AuthServer) AddClient(c Client) {
	if c.AuthMethod == "" {
		c.AuthMethod = "client_secret_basic"
	}
	a.mu.Lock()
	a.clients[c.ID] = c
	a.mu.Unlock()
}

// Trust makes jwt-bearer assertions from issuer, signed by key, grants
// (Hydra's trust relationships, POST /admin/trust/grants/jwt-bearer/issuers).
func (a *AuthServer) Trust(issuer string, key *rsa.PublicKey) {
	a.mu.Lock()
	a.trusted[issuer] = key
	a.mu.Unlock()
}

// AddResource makes id a resource tokens may be issued for (ResourceMode).
func (a *AuthServer) AddResource(id string) {
	a.mu.Lock()
	a.resources = append(a.resources, id)
	a.mu.Unlock()
}

// RefuseWith makes every later token request fail with code (an empty
// code serves again).
func (a *AuthServer) RefuseWith(code string) {
	a.mu.Lock()
	a.refuse = code
	a.mu.Unlock()
}

// Requests returns the form of every token request so far, with
// client_secret and assertion replaced by "(set)".
func (a *AuthServer) Requests() []url.Values {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.requests)
}

// Issued returns every access token issued so far, oldest first.
func (a *AuthServer) Issued() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.issued)
}

// RevokeAll forgets every token issued so far (a key rotation, a
// restart): the resource server refuses them from now on.
func (a *AuthServer) RevokeAll() {
	a.mu.Lock()
	a.tokens = map[string]Grant{}
	a.mu.Unlock()
}

// Lookup returns what token was issued for and whether it is known.
func (a *AuthServer) Lookup(token string) (Grant, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	g, ok := a.tokens[token]
	return g, ok
}

func (a *AuthServer) metadata(w http.ResponseWriter, r *http.Request) {
	md := map[string]any{
		"issuer":                                a.Issuer,
		"token_endpoint":                        a.TokenEndpoint(),
		"authorization_endpoint":                a.Issuer + "/authorize",
		"grant_types_supported":                 []string{"authorization_code", "client_credentials", "urn:ietf:params:oauth:grant-type:jwt-bearer"},
		"response_types_supported":              []string{"code"},
		"code_challenge_methods_supported":      []string{"S256"},
		"token_endpoint_auth_methods_supported": []string{"client_secret_basic", "client_secret_post"},
	}
	if a.opts.AuthMethods != nil {
		md["token_endpoint_auth_methods_supported"] = a.opts.AuthMethods
	}
	if a.opts.OmitMethods {
		delete(md, "token_endpoint_auth_methods_supported")
	}
	if a.opts.Scopes != nil {
		md["scopes_supported"] = a.opts.Scopes
	}
	for k, v := range a.opts.Metadata {
		if v == nil {
			delete(md, k)
		} else {
			md[k] = v
		}
	}
	writeJSON(w, http.StatusOK, md)
}

// tokenError writes an RFC 6749 §5.2 error response.
func tokenError(w http.ResponseWriter, status int, code, desc string) {
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Basic realm="token"`)
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, status, map[string]string{"error": code, "error_description": desc})
}

func (a *AuthServer) token(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		tokenError(w, http.StatusMethodNotAllowed, "invalid_request", "the token endpoint takes POST (RFC 6749 §3.2)")
		return
	}
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct != "application/x-www-form-urlencoded" {
		tokenError(w, http.StatusBadRequest, "invalid_request", "the body must be application/x-www-form-urlencoded (RFC 6749 §4.4.2)")
		return
	}
	if r.URL.RawQuery != "" {
		tokenError(w, http.StatusBadRequest, "invalid_request", "parameters go in the body, not the query")
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		tokenError(w, http.StatusBadRequest, "invalid_request", "unreadable body")
		return
	}
	form := r.PostForm
	a.record(form)
	for k, vs := range form {
		// RFC 6749 §3.2: parameters sent without a value are treated as
		// omitted; request parameters MUST NOT be included more than once
		// (resource excepted, RFC 8707 §2).
		if len(vs) > 1 && k != "resource" {
			tokenError(w, http.StatusBadRequest, "invalid_request", k+" sent more than once")
			return
		}
	}
	a.mu.Lock()
	refuse := a.refuse
	a.mu.Unlock()
	if refuse != "" {
		tokenError(w, http.StatusBadRequest, refuse, "refused by the test")
		return
	}
	client, authenticated, ok := a.authenticate(w, r, form)
	if !ok {
		return
	}
	g := Grant{ClientID: client.ID}
	switch gt := form.Get("grant_type"); gt {
	case "":
		tokenError(w, http.StatusBadRequest, "invalid_request", "grant_type is missing")
		return
	case "client_credentials":
		if !authenticated {
			tokenError(w, http.StatusUnauthorized, "invalid_client", "client_credentials needs an authenticated client (RFC 6749 §4.4.2)")
			return
		}
		g.Subject = client.ID
	case "urn:ietf:params:oauth:grant-type:jwt-bearer":
		sub, err := a.checkAssertion(form.Get("assertion"))
		if err != nil {
			tokenError(w, http.StatusBadRequest, "invalid_grant", err.Error())
			return
		}
		if a.opts.SingleUseAssertions {
			a.mu.Lock()
			seen := a.used[form.Get("assertion")]
			if a.used == nil {
				a.used = map[string]bool{}
			}
			a.used[form.Get("assertion")] = true
			a.mu.Unlock()
			if seen {
				tokenError(w, http.StatusBadRequest, "invalid_grant", "the assertion's jti has been used before")
				return
			}
		}
		g.Subject = sub
	default:
		tokenError(w, http.StatusBadRequest, "unsupported_grant_type", "grant_type "+strconv.Quote(gt)+" is not supported")
		return
	}
	aud, code, desc := a.audience(client, form)
	if code != "" {
		tokenError(w, http.StatusBadRequest, code, desc)
		return
	}
	g.Audience = aud
	scope, desc := a.scope(client, form.Get("scope"))
	if desc != "" {
		tokenError(w, http.StatusBadRequest, "invalid_scope", desc)
		return
	}
	g.Scope = scope
	life := a.opts.Lifetime
	if life <= 0 {
		life = time.Hour
	}
	g.ExpiresAt = a.now().Add(life)
	tok := randomToken()
	a.mu.Lock()
	a.tokens[tok] = g
	a.issued = append(a.issued, tok)
	a.mu.Unlock()
	resp := map[string]any{"access_token": tok, "token_type": "Bearer"}
	if !a.opts.NoExpiresIn {
		resp["expires_in"] = int(life / time.Second)
	}
	if scope != "" {
		resp["scope"] = scope
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, resp)
}

func (a *AuthServer) record(form url.Values) {
	c := url.Values{}
	for k, vs := range form {
		c[k] = slices.Clone(vs)
		if k == "client_secret" || k == "assertion" {
			c[k] = []string{"(set)"}
		}
	}
	a.mu.Lock()
	a.requests = append(a.requests, c)
	a.mu.Unlock()
}

// authenticate finds the client (RFC 6749 §2.3): by HTTP Basic, whose id
// and secret are form-encoded (§2.3.1), or by client_id and client_secret
// in the body; never both (§2.3: "MUST NOT use more than one
// authentication method in each request"). A client id alone names a
// client without authenticating it. ok false means the answer is written.
func (a *AuthServer) authenticate(w http.ResponseWriter, r *http.Request, form url.Values) (c Client, authenticated, ok bool) {
	user, pass, basic := r.BasicAuth()
	postID, postSecret := form.Get("client_id"), form.Get("client_secret")
	if basic && (postSecret != "" || (postID != "" && postID != decodeForm(user))) {
		tokenError(w, http.StatusBadRequest, "invalid_request", "more than one client authentication method (RFC 6749 §2.3)")
		return c, false, false
	}
	method, id, secret := "", postID, postSecret
	switch {
	case basic:
		method, id, secret = "client_secret_basic", decodeForm(user), decodeForm(pass)
	case postSecret != "":
		method = "client_secret_post"
	case postID == "":
		return Client{}, false, true // no client (a jwt-bearer grant may do without)
	}
	a.mu.Lock()
	c, known := a.clients[id]
	a.mu.Unlock()
	switch {
	case !known:
		tokenError(w, http.StatusUnauthorized, "invalid_client", "unknown client")
		return c, false, false
	case method == "":
		return c, false, true
	case method != c.AuthMethod:
		tokenError(w, http.StatusUnauthorized, "invalid_client", fmt.Sprintf("the client authenticates with %s, not %s", c.AuthMethod, method))
		return c, false, false
	case secret != c.Secret:
		tokenError(w, http.StatusUnauthorized, "invalid_client", "client authentication failed")
		return c, false, false
	}
	return c, true, true
}

func decodeForm(s string) string {
	v, err := url.QueryUnescape(s)
	if err != nil {
		return s
	}
	return v
}

// audience reads the token's audience as the server's mode says.
func (a *AuthServer) audience(c Client, form url.Values) ([]string, string, string) {
	if a.opts.Mode == AudienceMode {
		var out []string
		for _, aud := range strings.Fields(form.Get("audience")) {
			if !slices.Contains(c.Audiences, aud) {
				return nil, "invalid_request", fmt.Sprintf("requested audience %q has not been whitelisted by the OAuth 2.0 Client", aud)
			}
			out = append(out, aud)
		}
		return out, "", ""
	}
	var out []string
	for _, res := range form["resource"] {
		u, err := url.Parse(res)
		// RFC 8707 §2: an absolute URI without a fragment, else
		// invalid_target; so is one the server does not know.
		if err != nil || !u.IsAbs() || u.Fragment != "" || strings.Contains(res, "#") {
			return nil, "invalid_target", "resource " + strconv.Quote(res) + " is not an absolute URI without a fragment"
		}
		a.mu.Lock()
		known := slices.Contains(a.resources, res)
		a.mu.Unlock()
		if !known {
			return nil, "invalid_target", "resource " + strconv.Quote(res) + " is unknown"
		}
		out = append(out, res)
	}
	return out, "", ""
}

// scope checks the requested scope against what the client may have.
func (a *AuthServer) scope(c Client, req string) (string, string) {
	for _, s := range strings.Fields(req) {
		if (a.opts.Scopes != nil && !slices.Contains(a.opts.Scopes, s)) || (c.Scopes != nil && !slices.Contains(c.Scopes, s)) {
			return "", "scope " + strconv.Quote(s) + " is not allowed"
		}
	}
	return strings.Join(strings.Fields(req), " "), ""
}

// randomToken is an access token in RFC 6750's b64token syntax with the
// characters that encoders change ("+", "/", "~"), so that a test of
// masking sees each spelling differ from the raw value.
func randomToken() string {
	b := make([]byte, 24)
	rand.Read(b)
	return "at~" + base64.StdEncoding.EncodeToString(b) + "+/"
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
