package conformance

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/mcp-eval/mcp-eval/engine/check"
	"github.com/mcp-eval/mcp-eval/internal/clip"
	"github.com/mcp-eval/mcp-eval/internal/oauth"
	"github.com/mcp-eval/mcp-eval/internal/redact"
	"github.com/mcp-eval/mcp-eval/mcp"
)

// Auth is what the auth group may use beyond the server's own answers: the
// run's OAuth client, when it has one (--oauth-*), and what the user named
// for the probes that need a second token.
type Auth struct {
	// Tokens asks the authorization server for tokens; nil when the run
	// has no OAuth client (a static --header only).
	Tokens TokenSource
	// Grant is the grant type Tokens uses ("client_credentials", or
	// "urn:ietf:params:oauth:grant-type:jwt-bearer"); "" without Tokens.
	Grant string
	// InsufficientScope is a scope that does not cover what the server
	// requires (--oauth-scope-insufficient); "" lets auth/insufficient-scope
	// pick one from scopes_supported.
	InsufficientScope string
	// OtherResource is a resource the same authorization server serves
	// that is not this server; "" uses DefaultOtherResource.
	OtherResource string
	// Secrets are credentials other than tokens (a client secret, an
	// assertion) that no answer may echo.
	Secrets []string
	// Passthrough is the run's --passthrough-listener (nil without one),
	// judged by auth/no-token-passthrough.
	Passthrough PassthroughLog
	// Presented returns every access token the run's OAuth client obtained
	// so far (renewals included); nil when the run has none.
	Presented func() []string
}

// DefaultOtherResource is the resource auth/other-audience-refused asks a
// token for when the user names none: a name no real server has (RFC 2606).
const DefaultOtherResource = "https://mcp-eval-probe.invalid/mcp"

// TokenSource is the run's OAuth client: each Token call is a token
// request to the authorization server; Current is the token the run sends
// now (no request). Every token it returns must already be known to the
// run's redactor.
type TokenSource interface {
	Token(ctx context.Context, req TokenRequest) (*Token, error)
	Current(ctx context.Context, endpoint string) (string, error)
}

// TokenRequest overrides the run's token request; "" keeps its default
// (the server's canonical URI, the --oauth-scope scopes).
type TokenRequest struct {
	Resource string
	Scope    string
	// NoScope leaves the scope parameter out (Scope is then ignored).
	NoScope bool
}

// SessionAuth is the auth group's Auth for the run's OAuth session (built
// from the --oauth-* flags): its token requests, with resource and scope
// overridden through Session.RequestToken, are the probes' tokens.
func SessionAuth(s *oauth.Session, grant string, secrets ...string) *Auth {
	return &Auth{Tokens: sessionTokens{s}, Grant: grant, Secrets: secrets}
}

type sessionTokens struct{ s *oauth.Session }

// Current is the session's own token, as it rides on the run's requests.
func (t sessionTokens) Current(ctx context.Context, endpoint string) (string, error) {
	h, err := t.s.Authorization(ctx, endpoint)
	if err != nil {
		return "", err
	}
	tok, ok := strings.CutPrefix(h, "Bearer ")
	if !ok || tok == "" {
		return "", errors.New("the OAuth session holds no token yet")
	}
	return tok, nil
}

func (t sessionTokens) Token(ctx context.Context, req TokenRequest) (*Token, error) {
	var o oauth.TokenOptions
	if req.Resource != "" {
		o.Resource = &req.Resource
	}
	if req.Scope != "" {
		o.Scope = &req.Scope
	}
	if req.NoScope {
		none := ""
		o.Scope = &none
	}
	tok, err := t.s.RequestToken(ctx, o)
	if err != nil {
		return nil, err
	}
	life := tok.ExpiresIn
	if life == 0 && !tok.Expiry.IsZero() {
		life = tok.Expiry.Sub(tok.Obtained)
	}
	return &Token{AccessToken: tok.AccessToken, ExpiresIn: life, Scope: tok.Scope}, nil
}

// Token is what a token request returned.
type Token struct {
	AccessToken string
	// ExpiresIn is the token response's expires_in (0: not said).
	ExpiresIn time.Duration
	// Scope is the granted scope as the response says ("" if it does not).
	Scope string
}

// Sizes and names of the auth probes.
const (
	maxAuthDoc = 1 << 20
	// probeMalformedToken is what auth/malformed-token sends: not a JWT,
	// not a token any authorization server issued.
	probeMalformedToken = "mcp-eval-probe-malformed-token"
	// maxExpiryWait is the longest auth/expired-token waits for a token to
	// expire.
	maxExpiryWait = 30 * time.Second
)

// authState is what the auth checks learn once and share: the
// unauthenticated probe, the challenge, and the metadata documents.
type authState struct {
	once sync.Once
	// skip is the reason the group does not apply ("" when it does).
	skip string

	unauth    *mcp.Exchange
	unauthErr error
	challenge *oauth.Challenge // the Bearer challenge of the unauthenticated 401, nil if none

	// prm is the protected-resource metadata document the discovery found;
	// prmTried lists every URI asked, in order, with what came back.
	prm      *doc
	prmVia   string // "resource_metadata" or "well-known"
	prmTried []string
	prmJSON  map[string]json.RawMessage

	// as is the first authorization server's metadata.
	asIssuer string
	as       *doc
	asTried  []string
	asJSON   map[string]json.RawMessage

	// noMCPAuth is set when the server advertises no MCP authorization
	// and the run reached it with a static credential
	// (checks_auth_apikey.go): the finding, and every other check skips.
	noMCPAuth string

	// token is a valid access token the run holds ("" if none known).
	token    string
	tokenErr error

	mu   sync.Mutex
	sent []sentProbe // every auth probe, for auth/no-token-echo
	// minted are the tokens the auth checks obtained, masked in evidence.
	minted []string
	memo   map[string]*probeResult

	// scoped is the under-scoped token's probe, shared by
	// auth/insufficient-scope and auth/single-challenge.
	scopedOnce sync.Once
	scoped     scopedProbe
}

// sentProbe is one auth probe: the credentials it carried and what came
// back.
type sentProbe struct {
	Check  string
	Tokens []string
	X      *mcp.Exchange
}

// doc is one metadata document fetched over plain GET.
type doc struct {
	URL         string
	Status      int
	ContentType string
	Body        []byte
	Err         error
}

func (d *doc) describe() string {
	switch {
	case d.Err != nil:
		return d.URL + ": " + d.Err.Error()
	case d.Status != http.StatusOK:
		return fmt.Sprintf("%s: HTTP %d", d.URL, d.Status)
	}
	return fmt.Sprintf("%s: HTTP 200 %s", d.URL, d.ContentType)
}

// object parses the document as a JSON object.
func (d *doc) object() (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(d.Body, &m); err != nil {
		return nil, fmt.Errorf("not JSON: %v", err)
	}
	if m == nil {
		return nil, errors.New("not a JSON object")
	}
	return m, nil
}

// auth returns the run's auth state, discovering it on first use.
func (e *Env) authState(ctx context.Context) *authState {
	s := &e.authz
	s.once.Do(func() { e.discoverAuth(ctx, s) })
	return s
}

// authPrepare is the Prepare of every auth check: the group applies when
// the server refused an unauthenticated request with 401, or when the run
// has an OAuth client (--oauth-*).
func authPrepare(ctx context.Context, e *Env) string { return e.authState(ctx).skip }

func (e *Env) discoverAuth(ctx context.Context, s *authState) {
	if e.kind != "http" {
		s.skip = "authorization applies to Streamable HTTP; a stdio server takes its credentials from the environment"
		return
	}
	s.unauth, s.unauthErr = e.authProbe(ctx, "", nil, "unauthenticated")
	if s.unauth == nil || s.unauth.Status == 0 {
		if e.opts.Auth == nil || e.opts.Auth.Tokens == nil {
			s.skip = fmt.Sprintf("the unauthenticated probe got no answer (%v)", s.unauthErr)
			return
		}
	}
	protected := s.unauth != nil && s.unauth.Status == http.StatusUnauthorized
	if !protected && (e.opts.Auth == nil || e.opts.Auth.Tokens == nil) {
		s.skip = fmt.Sprintf("the server answered a request without credentials with HTTP %d, not 401, and no --oauth-* client was given: it is not protected", s.unauth.Status)
		return
	}
	if s.unauth != nil {
		s.challenge = bearerChallenge(s.unauth)
	}
	s.token, s.tokenErr = e.currentToken(ctx)
	e.discoverResourceMetadata(ctx, s)
	if s.noMCPAuth = e.detectStaticCredential(ctx, s); s.noMCPAuth != "" {
		s.skip = noMCPAuthorization
		return
	}
	e.discoverAuthorizationServer(ctx, s)
}

// currentToken is the access token the run sends: a fresh one from the
// run's OAuth client, else the Bearer value of a static Authorization
// header.
func (e *Env) currentToken(ctx context.Context) (string, error) {
	if a := e.opts.Auth; a != nil && a.Tokens != nil {
		return a.Tokens.Current(ctx, e.client.Target().String())
	}
	if ht, ok := e.client.Target().(*mcp.HTTPTarget); ok {
		if scheme, v, ok := strings.Cut(ht.Header.Get("Authorization"), " "); ok && strings.EqualFold(scheme, "Bearer") {
			return strings.TrimSpace(v), nil
		}
	}
	return "", errors.New("no access token: neither an --oauth-* client nor an Authorization: Bearer --header")
}

func (e *Env) discoverResourceMetadata(ctx context.Context, s *authState) {
	var urls []string
	if s.challenge != nil && s.challenge.ResourceMetadata() != "" {
		s.prmVia = "resource_metadata"
		urls = []string{s.challenge.ResourceMetadata()}
	} else {
		s.prmVia = "well-known"
		urls, _ = oauth.ResourceMetadataURIs(e.client.Target().String())
	}
	s.prm, s.prmJSON, s.prmTried = e.firstDoc(ctx, urls)
}

// firstDoc fetches urls in order until one answers 200: that document,
// parsed when it is a JSON object, and every URI tried with its answer.
func (e *Env) firstDoc(ctx context.Context, urls []string) (*doc, map[string]json.RawMessage, []string) {
	var tried []string
	for _, u := range urls {
		d := e.getDoc(ctx, u)
		tried = append(tried, d.describe())
		if d.Err == nil && d.Status == http.StatusOK {
			m, _ := d.object()
			return d, m, tried
		}
	}
	return nil, nil, tried
}

func (e *Env) discoverAuthorizationServer(ctx context.Context, s *authState) {
	var servers []string
	if s.prmJSON != nil {
		_ = json.Unmarshal(s.prmJSON["authorization_servers"], &servers)
	}
	if len(servers) == 0 {
		return
	}
	s.asIssuer = servers[0]
	uris, _ := oauth.AuthServerMetadataURIs(s.asIssuer)
	s.as, s.asJSON, s.asTried = e.firstDoc(ctx, uris)
}

// getDoc GETs a metadata document without credentials, following no
// redirect, within the request timeout and maxAuthDoc bytes.
func (e *Env) getDoc(ctx context.Context, u string) *doc {
	d := &doc{URL: u}
	ctx, cancel := context.WithTimeout(ctx, e.client.Timeout())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		d.Err = err
		return d
	}
	req.Header.Set("Accept", "application/json")
	resp, err := e.docClient().Do(req)
	if err != nil {
		d.Err = err
		return d
	}
	defer resp.Body.Close()
	d.Status = resp.StatusCode
	d.ContentType, _, _ = mime.ParseMediaType(resp.Header.Get("Content-Type"))
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxAuthDoc+1))
	if err != nil {
		d.Err = fmt.Errorf("read: %w", err)
	} else if len(b) > maxAuthDoc {
		d.Err = fmt.Errorf("larger than %d bytes", maxAuthDoc)
	}
	d.Body = b
	return d
}

func (e *Env) docClient() *http.Client {
	e.docOnce.Do(func() { e.docHTTP = mcp.NewHTTPClient() })
	return e.docHTTP
}

// authProbe sends server/discover with the given bearer token ("" sends
// no Authorization header), lets edit change the call, and records the
// exchange for auth/no-token-echo.
func (e *Env) authProbe(ctx context.Context, token string, edit func(*mcp.Call), checkID string) (*mcp.Exchange, error) {
	call := e.modern.NewCall("server/discover", nil)
	if call.Header == nil {
		call.Header = http.Header{}
	}
	if token == "" {
		call.Omit = append(call.Omit, "Authorization")
	} else {
		call.Header.Set("Authorization", "Bearer "+token)
	}
	if edit != nil {
		edit(call)
	}
	x, _, err := e.do(ctx, e.modern, call)
	e.record(checkID, x, token)
	return x, err
}

// queryTokenProbe sends the token as the access_token query parameter,
// with no Authorization header (RFC 6750 §2.3, which OAuth 2.1 removes).
func (e *Env) queryTokenProbe(ctx context.Context, token string) (*mcp.Exchange, error) {
	h, ok := e.modern.Transport().(*mcp.HTTP)
	if !ok {
		return nil, errors.New("not an HTTP transport")
	}
	u, err := url.Parse(h.URL)
	if err != nil {
		return nil, err
	}
	q := u.Query()
	q.Set("access_token", token)
	u.RawQuery = q.Encode()
	t := h.Fresh()
	t.URL = u.String()
	defer t.Close()
	c := e.modern.WithTransport(t)
	call := c.NewCall("server/discover", nil)
	call.Omit = append(call.Omit, "Authorization")
	x, _, err := e.do(ctx, c, call)
	e.record("auth/query-token-refused", x, token)
	return x, err
}

func (e *Env) record(checkID string, x *mcp.Exchange, tokens ...string) {
	if x == nil {
		return
	}
	s := &e.authz
	s.mu.Lock()
	defer s.mu.Unlock()
	var ts []string
	for _, t := range tokens {
		if t != "" {
			ts = append(ts, t)
		}
	}
	s.sent = append(s.sent, sentProbe{Check: checkID, Tokens: ts, X: x})
}

// mint asks the run's OAuth client for a token the way req says and
// remembers it, so that evidence never shows it.
func (e *Env) mint(ctx context.Context, req TokenRequest) (*Token, error) {
	t, err := e.opts.Auth.Tokens.Token(ctx, req)
	if err != nil {
		return nil, err
	}
	s := &e.authz
	s.mu.Lock()
	s.minted = append(s.minted, t.AccessToken)
	s.mu.Unlock()
	return t, nil
}

// maskTokens replaces every spelling of the tokens the auth checks know in
// evidence (the run's redactor masks the run's own; the probes' are theirs).
func (e *Env) maskTokens(ev map[string]any) map[string]any {
	s := &e.authz
	s.mu.Lock()
	secrets := append([]string{s.token}, s.minted...)
	s.mu.Unlock()
	if a := e.opts.Auth; a != nil {
		secrets = append(secrets, a.Secrets...)
	}
	b, err := json.Marshal(ev)
	if err != nil {
		return ev
	}
	out := string(b)
	for _, sec := range secrets {
		if len(sec) < 8 {
			continue
		}
		for _, sp := range redact.Spellings(sec) {
			out = strings.ReplaceAll(out, sp, "[token]")
		}
	}
	var m map[string]any
	if json.Unmarshal([]byte(out), &m) != nil {
		return ev
	}
	return m
}

// authEvidence is the evidence of an auth probe: the exchange (no
// Authorization header is ever quoted) plus its WWW-Authenticate, tokens
// masked.
func (e *Env) authEvidence(x *mcp.Exchange) map[string]any {
	ev := check.Protocol.Of(x)
	if x != nil {
		if wa := x.Header.Values("WWW-Authenticate"); len(wa) > 0 {
			ev = check.With(ev, "wwwAuthenticate", wa)
		}
	}
	return e.maskTokens(ev)
}

// bearerChallenge returns the first Bearer challenge of an answer, nil if
// there is none.
func bearerChallenge(x *mcp.Exchange) *oauth.Challenge {
	if x == nil {
		return nil
	}
	c, ok := oauth.BearerChallenge(x.Header)
	if !ok {
		return nil
	}
	return &c
}

// httpsOrLoopback says what is wrong with raw as a URL that must use
// HTTPS except on loopback ("" when nothing is).
func httpsOrLoopback(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return fmt.Sprintf("%q is not an absolute URL", raw)
	}
	if u.Scheme == "https" || (u.Scheme == "http" && oauth.IsLoopback(raw)) {
		return ""
	}
	return fmt.Sprintf("%q uses %s off loopback, want https", raw, u.Scheme)
}

// jwtClaims returns the claims of a JWT without verifying it (false for an
// opaque token): enough to tell what an authorization server issued.
func jwtClaims(token string) (json.RawMessage, bool) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return nil, false
	}
	b, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil || !json.Valid(b) {
		return nil, false
	}
	return b, true
}

// jwtAudiences reads the aud claim of a JWT access token (false for an
// opaque token or one without aud): whether an authorization server
// honoured a resource request.
func jwtAudiences(token string) ([]string, bool) {
	b, ok := jwtClaims(token)
	if !ok {
		return nil, false
	}
	var claims struct {
		Aud json.RawMessage `json:"aud"`
	}
	if json.Unmarshal(b, &claims) != nil || len(claims.Aud) == 0 {
		return nil, false
	}
	var one string
	if json.Unmarshal(claims.Aud, &one) == nil {
		return []string{one}, true
	}
	var many []string
	if json.Unmarshal(claims.Aud, &many) == nil {
		return many, true
	}
	return nil, false
}

// describeExchange says in a few words what an auth probe got back.
func describeExchange(x *mcp.Exchange, err error) string {
	if x == nil || x.Status == 0 {
		if err != nil {
			return "no answer (" + clip.Bytes(err.Error(), 160) + ")"
		}
		return "no answer"
	}
	s := fmt.Sprintf("HTTP %d", x.Status)
	if wa := x.Header.Values("WWW-Authenticate"); len(wa) > 0 {
		s += " with WWW-Authenticate: " + clip.Bytes(strings.Join(wa, "; "), 300)
	}
	return s
}
