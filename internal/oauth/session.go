package oauth

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// ExtensionClientCredentials is the identifier of the MCP extension a
// client declares in the extensions of its per-request clientCapabilities
// when it authenticates with client credentials
// (docs/extensions/auth/oauth-client-credentials.mdx §For MCP clients:
// "Include the extension in its per-request capabilities").
const ExtensionClientCredentials = "io.modelcontextprotocol/oauth-client-credentials"

// Credentials are how a Session obtains access tokens: the client
// credentials grant with a client id and secret (the
// oauth-client-credentials extension), or, when Assertion is set, the
// jwt-bearer grant of RFC 7523 (workload identity federation, SEP-1933),
// with the client id and secret as client authentication when given.
type Credentials struct {
	ClientID     string
	ClientSecret string
	// Assertion returns the JWT to present for the given audience (the
	// token endpoint URL), fresh for each token request: the job's OIDC
	// token from the Actions runner, a file, a variable.
	Assertion func(ctx context.Context, audience string) (string, error)
	// Scope is the scope to ask for. Empty applies the revision's scope
	// selection (authorization/index.mdx §Scope Selection Strategy): the
	// challenge's scope, else every scopes_supported of the
	// protected-resource metadata, else no scope parameter.
	Scope string
}

// Grant returns the grant type the credentials use.
func (c Credentials) Grant() string {
	if c.Assertion != nil {
		return GrantJWTBearer
	}
	return GrantClientCredentials
}

// SessionConfig configures a Session.
type SessionConfig struct {
	// ServerURL is the MCP endpoint: the one origin the access token is
	// sent to.
	ServerURL string
	Credentials
	// Fetcher makes the requests; nil uses a zero Fetcher.
	Fetcher *Fetcher
	// OnSecret is told of every credential as it arrives, before it is
	// used: each access token, assertion and refresh token (the caller
	// masks them: redact.Redactor.Add). An error stops the token's use.
	OnSecret func(source, value string) error
	// Now is the clock of expiry; nil is time.Now.
	Now func() time.Time
	// Logf, if set, hears the first token obtained, each renewal (unless
	// Quiet), and a renewal that failed while the old token was still
	// valid, one line each; other failures are returned.
	Logf func(format string, args ...any)
}

// Stats count what a Session did, for the benchmarks and the report.
type Stats struct {
	// Discoveries and TokenRequests count the discovery sequences and the
	// token requests made; DiscoveryTime and TokenTime the wall time they
	// took.
	Discoveries, TokenRequests int
	DiscoveryTime, TokenTime   time.Duration
	// Retries counts requests re-sent after a 401.
	Retries int
}

// Session obtains and keeps the access token of one run. It implements
// mcp.Authorizer (Authorization, Refused) without importing mcp: the first
// 401 from the server starts discovery and the first token request; the
// token is re-requested before it expires and once when a request carrying
// it is refused; it is sent to the server's origin only. It is safe for
// concurrent use.
type Session struct {
	cfg       SessionConfig
	f         *Fetcher
	now       func() time.Time
	canonical string

	// sem serialises discovery and token requests (one in flight, and a
	// waiting caller may give up with its context).
	sem chan struct{}

	mu        sync.Mutex
	challenge *Challenge
	resource  *ResourceDiscovery
	server    *ServerDiscovery
	target    string // the resource= value (canonical URI or the metadata's resource)
	authVia   string // client authentication method chosen
	token     *Token
	// reRequested says the current token was requested because the one
	// before it was refused mid-run: if it is refused too within
	// reRequestWindow, the server takes none of ours, and no further token
	// is asked for until the window has passed.
	reRequested bool
	fatal       error // a discovery failure, returned from then on
	stats       Stats
	quiet       bool
	renewFailed time.Time // when the last renewal failed; zero after a success
	// presented are the sha256 sums of the assertions sent so far: a
	// token request refused with an assertion sent before is an
	// ErrAssertionReused.
	presented map[[32]byte]bool
}

// ErrAssertionReused is wrapped by the error of a token request the
// authorization server refused while its assertion was one already
// presented: the source gave the same JWT again (a file that is not
// rotated, a variable), and an authorization server that accepts each
// assertion once (RFC 7523 §3: jti "may be used … to prevent replay")
// refuses it. The runner's OIDC service gives a fresh one per request.
var ErrAssertionReused = errors.New("the assertion was presented before, and the authorization server accepts each assertion once (its jti); give a source that yields a fresh one per token request (the Actions runner's OIDC service does)")

// Quiet keeps renewals out of Logf: the first token and failures only.
func (s *Session) Quiet() {
	s.mu.Lock()
	s.quiet = true
	s.mu.Unlock()
}

// Grant returns the grant type the session uses.
func (s *Session) Grant() string { return s.cfg.Grant() }

// NewSession checks cfg and returns a Session; nothing is sent yet. The
// server URL must be https, or http on loopback: the token travels only
// there.
func NewSession(cfg SessionConfig) (*Session, error) {
	if err := RequireSecure("MCP server", cfg.ServerURL); err != nil {
		return nil, err
	}
	canon, err := CanonicalURI(cfg.ServerURL)
	if err != nil {
		return nil, err
	}
	if cfg.Assertion == nil && (cfg.ClientID == "" || cfg.ClientSecret == "") {
		return nil, errors.New("client credentials need a client id and a secret, or an assertion")
	}
	s := &Session{cfg: cfg, f: cfg.Fetcher, now: cfg.Now, canonical: canon, sem: make(chan struct{}, 1)}
	if s.f == nil {
		s.f = &Fetcher{}
	}
	if s.now == nil {
		s.now = time.Now
	}
	return s, nil
}

// CanonicalURI returns the server's canonical URI.
func (s *Session) CanonicalURI() string { return s.canonical }

// Challenge, ResourceDiscovery and ServerDiscovery return what discovery
// found (nil before it ran).
func (s *Session) Challenge() *Challenge {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.challenge
}

// ResourceDiscovery returns the protected-resource metadata found.
func (s *Session) ResourceDiscovery() *ResourceDiscovery {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.resource
}

// ServerDiscovery returns the authorization server metadata found.
func (s *Session) ServerDiscovery() *ServerDiscovery {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.server
}

// Stats returns the session's counters.
func (s *Session) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

func (s *Session) lock(ctx context.Context) error {
	select {
	case s.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *Session) unlock() { <-s.sem }

// Authorization returns the Authorization header for a request to
// endpoint: "Bearer <token>" once a token is held, "" before the first 401
// and for any other origin. A token about to expire is re-requested first;
// if that fails while the old one is still valid, the old one is sent.
func (s *Session) Authorization(ctx context.Context, endpoint string) (string, error) {
	if !SameOrigin(endpoint, s.cfg.ServerURL) {
		return "", nil
	}
	s.mu.Lock()
	tok := s.token
	s.mu.Unlock()
	if tok == nil {
		return "", nil
	}
	if !s.expiring(tok) {
		return "Bearer " + tok.AccessToken, nil
	}
	if err := s.lock(ctx); err != nil {
		return "", err
	}
	defer s.unlock()
	s.mu.Lock()
	cur, failedAt := s.token, s.renewFailed
	s.mu.Unlock()
	if cur != tok && !s.expiring(cur) {
		return "Bearer " + cur.AccessToken, nil // renewed meanwhile
	}
	valid := s.now().Before(cur.Expiry)
	if valid && !failedAt.IsZero() && s.now().Sub(failedAt) < renewRetry {
		return "Bearer " + cur.AccessToken, nil // the last try failed a moment ago
	}
	next, err := s.fetchToken(ctx, "expiry")
	if err != nil {
		s.mu.Lock()
		s.renewFailed = s.now()
		s.mu.Unlock()
		if valid {
			s.logf("mcp-eval: OAuth: could not renew the access token before it expires (%v); using it until then", err)
			return "Bearer " + cur.AccessToken, nil
		}
		return "", err
	}
	return "Bearer " + next.AccessToken, nil
}

// renewRetry is how long a renewal that failed waits before the next try
// while the token it would replace is still valid: the requests of those
// seconds do not each ask a failing token endpoint again.
const renewRetry = 5 * time.Second

// reRequestWindow is how soon after a re-request its token may be refused
// before the session stops asking: a server that refuses every token costs
// one token request a minute, not one per request.
const reRequestWindow = time.Minute

// renewBefore is how long before its expiry a token is re-requested: a
// quarter of its lifetime, at most a minute (a 5-minute token is renewed
// at 4 minutes; a 10-second one at 7.5 s), which leaves room for clock
// skew and a slow token endpoint.
func renewBefore(t *Token) time.Duration {
	life := t.Expiry.Sub(t.Obtained)
	return min(time.Minute, life/4)
}

func (s *Session) expiring(t *Token) bool {
	if t == nil || t.Expiry.IsZero() {
		return false
	}
	return !s.now().Before(t.Expiry.Add(-renewBefore(t)))
}

// Refused is told that a request to endpoint carrying sent (the
// Authorization value, "" for none) got status with header h. For a 401 it
// reports whether to re-send the request once: the first 401 runs
// discovery and the first token request (an error is why no token could
// be had); a token refused mid-run is re-requested once, and a request
// refused with a token already replaced is simply re-sent. Other statuses
// (403 insufficient_scope) are not retried: the run's scope is fixed.
func (s *Session) Refused(ctx context.Context, endpoint, sent string, status int, h http.Header) (bool, error) {
	if status != http.StatusUnauthorized || !SameOrigin(endpoint, s.cfg.ServerURL) {
		return false, nil
	}
	if err := s.lock(ctx); err != nil {
		return false, err
	}
	defer s.unlock()
	s.mu.Lock()
	fatal, tok, discovered := s.fatal, s.token, s.server != nil
	s.mu.Unlock()
	if fatal != nil {
		return false, fatal
	}
	if !discovered {
		var ch *Challenge
		if c, ok := BearerChallenge(h); ok {
			ch = &c
		}
		if err := s.discover(ctx, ch); err != nil {
			s.mu.Lock()
			s.fatal = err
			s.mu.Unlock()
			return false, err
		}
		tok = nil
	}
	if tok != nil && "Bearer "+tok.AccessToken != sent {
		s.count(func(st *Stats) { st.Retries++ })
		return true, nil // replaced since the request was sent
	}
	s.mu.Lock()
	burnt := tok != nil && s.reRequested && s.now().Sub(tok.Obtained) < reRequestWindow
	s.mu.Unlock()
	if burnt {
		return false, nil // refused twice in a row: the server does not take our tokens
	}
	why := "first 401"
	if tok != nil {
		why = "401 mid-run"
	}
	if _, err := s.fetchToken(ctx, why); err != nil {
		return false, err
	}
	s.mu.Lock()
	s.reRequested = tok != nil
	s.mu.Unlock()
	s.count(func(st *Stats) { st.Retries++ })
	return true, nil
}

func (s *Session) count(f func(*Stats)) {
	s.mu.Lock()
	f(&s.stats)
	s.mu.Unlock()
}

func (s *Session) logf(format string, args ...any) {
	if s.cfg.Logf != nil {
		s.cfg.Logf(format, args...)
	}
}

// ResourceMismatchError says the protected-resource metadata names another
// resource than the server (RFC 9728 §3.3, §7.3).
type ResourceMismatchError struct {
	URL, Resource, Server string
}

func (e *ResourceMismatchError) Error() string {
	return fmt.Sprintf("the protected-resource metadata at %s names resource %q, not this server (%s): RFC 9728 §3.3 says a client MUST NOT use it",
		e.URL, clipText(e.Resource, 200), e.Server)
}

// Discover runs discovery now, with the challenge of a 401 if there was
// one: the protected-resource metadata (its resource must cover the
// server, Covers), then the metadata of the first authorization server
// listed that has any, whose token endpoint must be https or loopback.
// Refused calls it on the first 401; a check may call it first.
func (s *Session) Discover(ctx context.Context, ch *Challenge) error {
	if err := s.lock(ctx); err != nil {
		return err
	}
	defer s.unlock()
	return s.discover(ctx, ch)
}

func (s *Session) discover(ctx context.Context, ch *Challenge) error {
	start := time.Now()
	defer func() { s.count(func(st *Stats) { st.Discoveries++; st.DiscoveryTime += time.Since(start) }) }()
	// What discovery finds decides where the client secret and the
	// assertion go: it is learned only over HTTPS or on loopback
	// (security-considerations.mdx §Communication Security), or a document
	// rewritten on the way could name any token endpoint.
	if ch != nil && ch.ResourceMetadata() != "" {
		if err := RequireSecure("the challenge's resource_metadata", ch.ResourceMetadata()); err != nil {
			return fmt.Errorf("no credentials sent: %w", err)
		}
	}
	rd, err := s.f.DiscoverResource(ctx, s.cfg.ServerURL, ch)
	if err != nil {
		return err
	}
	if err := RequireSecure("the protected-resource metadata", rd.URL); err != nil {
		return fmt.Errorf("no credentials sent: %w", err)
	}
	md := rd.Metadata
	if !Covers(md.Resource, s.cfg.ServerURL) {
		return &ResourceMismatchError{URL: rd.URL, Resource: md.Resource, Server: s.canonical}
	}
	if len(md.AuthorizationServers) == 0 {
		return fmt.Errorf("the protected-resource metadata at %s lists no authorization_servers (authorization-server-discovery.mdx: it MUST include at least one)", rd.URL)
	}
	var sd *ServerDiscovery
	var errs []error
	for _, issuer := range md.AuthorizationServers {
		if err := RequireSecure("authorization server", issuer); err != nil {
			errs = append(errs, fmt.Errorf("no credentials sent: %w", err))
			continue
		}
		if sd, err = s.f.DiscoverAuthServer(ctx, issuer); err == nil {
			break
		}
		errs = append(errs, err)
	}
	if sd == nil {
		return errors.Join(errs...)
	}
	if sd.Metadata.TokenEndpoint == "" {
		return fmt.Errorf("the authorization server metadata at %s has no token_endpoint", sd.URL)
	}
	if err := RequireSecure("token endpoint", sd.Metadata.TokenEndpoint); err != nil {
		return err
	}
	via, err := s.authMethod(sd)
	if err != nil {
		return err
	}
	target := s.canonical
	if !SameResource(md.Resource, s.cfg.ServerURL) {
		// The metadata names a prefix of the endpoint: tokens are checked
		// against that identifier, so that is the one to ask for.
		target, _ = CanonicalURI(md.Resource)
	}
	s.mu.Lock()
	s.challenge, s.resource, s.server, s.target, s.authVia = ch, rd, sd, target, via
	s.mu.Unlock()
	return nil
}

// authMethod picks the client authentication the metadata allows:
// client_secret_basic, else client_secret_post (RFC 8414 §2: an absent
// token_endpoint_auth_methods_supported means client_secret_basic). An
// assertion without a secret authenticates no client.
func (s *Session) authMethod(sd *ServerDiscovery) (string, error) {
	if s.cfg.ClientSecret == "" {
		return AuthNone, nil
	}
	have := sd.Metadata.TokenEndpointAuthMethodsSupported
	switch {
	case len(have) == 0 || slices.Contains(have, AuthSecretBasic):
		return AuthSecretBasic, nil
	case slices.Contains(have, AuthSecretPost):
		return AuthSecretPost, nil
	}
	return "", fmt.Errorf("the authorization server %s accepts neither %s nor %s at its token endpoint (token_endpoint_auth_methods_supported: %s)",
		sd.Issuer, AuthSecretBasic, AuthSecretPost, strings.Join(have, ", "))
}

// TokenOptions override the parameters of one token request. A nil field
// keeps the session's value; a pointer to "" leaves the parameter out.
type TokenOptions struct {
	Resource, Scope, Audience *string
}

// ErrNotDiscovered is returned by RequestToken before discovery ran.
var ErrNotDiscovered = errors.New("oauth: discovery has not run")

// RequestToken asks the authorization server for a token with the
// session's credentials and o's overrides, without keeping it: a check
// asks for a token for another resource, or with a narrower scope. The
// token is given to OnSecret like every other.
func (s *Session) RequestToken(ctx context.Context, o TokenOptions) (*Token, error) {
	s.mu.Lock()
	ok := s.server != nil
	s.mu.Unlock()
	if !ok {
		return nil, ErrNotDiscovered
	}
	return s.request(ctx, o)
}

// fetchToken requests the session's token and keeps it. The caller holds
// sem.
func (s *Session) fetchToken(ctx context.Context, why string) (*Token, error) {
	t, err := s.request(ctx, TokenOptions{})
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	first := s.token == nil
	s.token, s.reRequested, s.renewFailed = t, false, time.Time{}
	endpoint := s.server.Metadata.TokenEndpoint
	quiet := s.quiet
	s.mu.Unlock()
	if quiet && !first {
		return t, nil
	}
	life := "no expiry given"
	if !t.Expiry.IsZero() {
		life = fmt.Sprintf("expires in %s", t.Expiry.Sub(t.Obtained).Round(time.Second))
	}
	if first {
		// What authentication cost the run: the discovery requests and the
		// token request (the assertion's fetch included).
		st := s.Stats()
		life += fmt.Sprintf("; discovery %s, token request %s", st.DiscoveryTime.Round(time.Millisecond), st.TokenTime.Round(time.Millisecond))
	}
	if target := s.targetResource(); target != s.canonical {
		life += "; requested for resource " + target + ", the protected-resource metadata's, which covers " + s.canonical
	}
	s.logf("mcp-eval: OAuth: access token from %s (%s, %s; %s)", endpoint, s.cfg.Grant(), why, life)
	return t, nil
}

// targetResource is the resource= of the session's token requests.
func (s *Session) targetResource() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.target
}

// Request parameters as sent; exported for the checks' evidence.
func (s *Session) params(o TokenOptions) (resource, scope, audience string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	resource = s.target
	scope = s.cfg.Scope
	if scope == "" && s.challenge != nil {
		scope = s.challenge.Scope()
	}
	if scope == "" && s.resource != nil {
		scope = strings.Join(s.resource.Metadata.ScopesSupported, " ")
	}
	// Authorization servers without resource indicators (Ory Hydra,
	// Auth0) read the audience from audience=; RFC 8707 registers no
	// metadata for resource indicators, so audience is sent with resource
	// unless the server says it supports them.
	if !s.server.Metadata.ResourceIndicatorsSupported {
		audience = resource
	}
	if o.Resource != nil {
		resource = *o.Resource
		if o.Audience == nil && audience != "" {
			audience = resource
		}
	}
	if o.Scope != nil {
		scope = *o.Scope
	}
	if o.Audience != nil {
		audience = *o.Audience
	}
	return resource, scope, audience
}

func (s *Session) request(ctx context.Context, o TokenOptions) (*Token, error) {
	resource, scope, audience := s.params(o)
	s.mu.Lock()
	endpoint, via := s.server.Metadata.TokenEndpoint, s.authVia
	grants := s.server.Metadata.GrantTypesSupported
	s.mu.Unlock()
	r := TokenRequest{Endpoint: endpoint, GrantType: s.cfg.Grant(), ClientID: s.cfg.ClientID, ClientSecret: s.cfg.ClientSecret,
		AuthMethod: via, Resource: resource, Scope: scope, Audience: audience}
	start := time.Now()
	if s.cfg.Assertion != nil {
		a, err := s.cfg.Assertion(ctx, endpoint)
		if err != nil {
			return nil, fmt.Errorf("the assertion for %s: %w", endpoint, err)
		}
		if err := s.secret("jwt-bearer assertion", a); err != nil {
			return nil, err
		}
		r.Assertion = a
	}
	sum := sha256.Sum256([]byte(r.Assertion))
	s.mu.Lock()
	reused := r.Assertion != "" && s.presented[sum]
	if r.Assertion != "" {
		if s.presented == nil {
			s.presented = map[[32]byte]bool{}
		}
		s.presented[sum] = true
	}
	s.mu.Unlock()
	t, err := s.f.requestToken(ctx, r, s.now)
	s.count(func(st *Stats) { st.TokenRequests++; st.TokenTime += time.Since(start) })
	var te *TokenError
	if err != nil && reused && errors.As(err, &te) && te.Status >= 400 && te.Status < 500 {
		return nil, fmt.Errorf("%w: %w", ErrAssertionReused, err)
	}
	if err != nil {
		var te *TokenError
		if errors.As(err, &te) && len(grants) > 0 && !slices.Contains(grants, r.GrantType) {
			te.Detail = strings.TrimPrefix(te.Detail+"; ", "; ") + "its metadata lists grant_types_supported: " + strings.Join(grants, ", ")
		}
		return nil, err
	}
	if err := s.secret("OAuth access token", t.AccessToken); err != nil {
		return nil, err
	}
	if err := s.secret("OAuth refresh token", t.RefreshToken); err != nil {
		return nil, err
	}
	t.Expiry = expiry(t)
	return t, nil
}

func (s *Session) secret(source, v string) error {
	if s.cfg.OnSecret == nil || v == "" {
		return nil
	}
	return s.cfg.OnSecret(source, v)
}

// expiry is when t expires: Expiry from expires_in, or a JWT's exp when the
// answer gave no expires_in or when exp falls a little before it (exp
// counts from an iat cut to the second, up to a second before the request
// was sent); an exp far from expires_in is another clock's and is ignored,
// as is one before the token was obtained.
func expiry(t *Token) time.Time {
	exp, ok := jwtExpiry(t.AccessToken)
	switch {
	case !ok || !exp.After(t.Obtained):
		return t.Expiry
	case t.Expiry.IsZero():
		return exp
	case exp.Before(t.Expiry) && exp.After(t.Expiry.Add(-2*time.Second)):
		return exp
	}
	return t.Expiry
}

// jwtExpiry reads the exp claim of a JWT access token, for a token
// response without expires_in. The token is not verified: the time only
// decides when to ask for a new one.
func jwtExpiry(tok string) (time.Time, bool) {
	parts := strings.Split(tok, ".")
	if len(parts) != 3 || len(parts[1]) > 64<<10 {
		return time.Time{}, false
	}
	payload, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	if err != nil {
		return time.Time{}, false
	}
	var claims struct {
		Exp json.Number `json:"exp"`
	}
	if json.Unmarshal(payload, &claims) != nil {
		return time.Time{}, false
	}
	f, err := claims.Exp.Float64()
	if err != nil || f <= 0 || f > 1e11 {
		return time.Time{}, false
	}
	return time.Unix(int64(f), 0), true
}
