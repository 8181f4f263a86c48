package oauth_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-eval/mcp-eval/internal/mcptest"
	"github.com/mcp-eval/mcp-eval/internal/oauth"
	"github.com/mcp-eval/mcp-eval/internal/oauth/oauthtest"
	"github.com/mcp-eval/mcp-eval/mcp"
)

// fakeClock is a clock a test moves by hand, shared by the authorization
// server, the resource server and the session.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

type protected struct {
	as      *oauthtest.AuthServer
	res     *oauthtest.Resource
	secrets *secretLog
}

type secretLog struct {
	mu   sync.Mutex
	seen map[string]string // value → source
}

func (l *secretLog) add(source, v string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.seen == nil {
		l.seen = map[string]string{}
	}
	l.seen[v] = source
	return nil
}

func (l *secretLog) has(v string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, ok := l.seen[v]
	return ok
}

// serveProtected starts the test fixture behind a resource server of as.
func serveProtected(t *testing.T, as *oauthtest.AuthServer, res *oauthtest.Resource) *protected {
	res.AS = as
	if res.Path == "" {
		res.Path = "/mcp"
	}
	res.Next = mcptest.NewHandler(mcptest.Options{})
	res.Serve(t)
	return &protected{as: as, res: res, secrets: &secretLog{}}
}

func (p *protected) session(t *testing.T, cred oauth.Credentials, now func() time.Time) *oauth.Session {
	t.Helper()
	s, err := oauth.NewSession(oauth.SessionConfig{ServerURL: p.res.URL(), Credentials: cred, OnSecret: p.secrets.add, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func connect(t *testing.T, url string, s *oauth.Session) (*mcp.Client, error) {
	c, err := mcp.Connect(t.Context(), &mcp.HTTPTarget{URL: url}, mcp.Options{Timeout: 5 * time.Second, Authorizer: s})
	if c != nil {
		t.Cleanup(func() { c.Close() })
	}
	return c, err
}

func TestSessionClientCredentials(t *testing.T) {
	as := oauthtest.NewAuthServer(t, oauthtest.Options{Scopes: []string{"mcp:read", "mcp:write"}})
	as.AddClient(oauthtest.Client{ID: "ci", Secret: "client-secret-1"})
	p := serveProtected(t, as, &oauthtest.Resource{Scope: "mcp:read"})
	s := p.session(t, oauth.Credentials{ClientID: "ci", ClientSecret: "client-secret-1"}, nil)
	c, err := connect(t, p.res.URL(), s)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := c.ListTools(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	st := s.Stats()
	if st.Discoveries != 1 || st.TokenRequests != 1 || st.Retries != 1 {
		t.Errorf("stats %+v, want one discovery, one token request, one retry (the first 401)", st)
	}
	reqs := as.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d token requests", len(reqs))
	}
	r := reqs[0]
	// The resource parameter is the canonical URI (authorization/index.mdx
	// §Resource Parameter Implementation); audience travels with it, and
	// the scope is the challenge's (§Scope Selection Strategy).
	if r.Get("grant_type") != "client_credentials" || r.Get("resource") != p.res.ID || r.Get("audience") != p.res.ID || r.Get("scope") != "mcp:read" {
		t.Errorf("token request %v", r)
	}
	if r.Has("client_secret") {
		t.Errorf("the secret went in the body although client_secret_basic is allowed: %v", r)
	}
	if p.res.Refusals.Load() != 1 {
		t.Errorf("%d refusals, want the first one only", p.res.Refusals.Load())
	}
	// Discovery results are there for the checks.
	if rd := s.ResourceDiscovery(); rd == nil || !rd.FromChallenge || rd.Metadata.Resource != p.res.ID {
		t.Errorf("resource discovery %+v", rd)
	}
	if sd := s.ServerDiscovery(); sd == nil || sd.Issuer != as.Issuer {
		t.Errorf("server discovery %+v", sd)
	}
	// The token is known to OnSecret, and goes nowhere but the server.
	hdr, _ := s.Authorization(t.Context(), p.res.URL())
	tok := strings.TrimPrefix(hdr, "Bearer ")
	if tok == "" || !p.secrets.has(tok) {
		t.Errorf("the access token was not given to OnSecret")
	}
	for _, other := range []string{as.TokenEndpoint(), "https://evil.example/mcp", strings.Replace(p.res.URL(), "http://", "https://", 1)} {
		if h, _ := s.Authorization(t.Context(), other); h != "" {
			t.Errorf("Authorization for %s = %q, want none", other, h)
		}
	}
}

func TestSessionHydraLike(t *testing.T) {
	// Hydra: OpenID discovery only, resource ignored, audience read and
	// checked against the client's whitelist; client_secret_post only.
	as := oauthtest.NewAuthServer(t, oauthtest.Options{Mode: oauthtest.AudienceMode, OpenIDOnly: true, AuthMethods: []string{"client_secret_post"}})
	p := serveProtected(t, as, &oauthtest.Resource{NoChallengeURL: true})
	as.AddClient(oauthtest.Client{ID: "ci", Secret: "client-secret-1", AuthMethod: "client_secret_post", Audiences: []string{p.res.ID}})
	s := p.session(t, oauth.Credentials{ClientID: "ci", ClientSecret: "client-secret-1"}, nil)
	c, err := connect(t, p.res.URL(), s)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListTools(t.Context()); err != nil {
		t.Fatal(err)
	}
	rd := s.ResourceDiscovery()
	if rd.FromChallenge || rd.URL != p.res.Base+"/.well-known/oauth-protected-resource/mcp" {
		t.Errorf("found the metadata at %s (from the challenge: %v)", rd.URL, rd.FromChallenge)
	}
	if sd := s.ServerDiscovery(); !sd.OpenID {
		t.Errorf("want the OpenID document, got %s", sd.URL)
	}
}

func TestSessionFederation(t *testing.T) {
	rn := oauthtest.NewRunner(t)
	as := oauthtest.NewAuthServer(t, oauthtest.Options{})
	as.Trust(oauthtest.RunnerIssuer, &rn.Key.PublicKey)
	p := serveProtected(t, as, &oauthtest.Resource{})
	idTok, err := oauth.GitHubIDToken(func(k string) string { return rn.Env()[k] }, nil, p.secrets.add)
	if err != nil {
		t.Fatal(err)
	}
	s := p.session(t, oauth.Credentials{Assertion: idTok}, nil)
	c, err := connect(t, p.res.URL(), s)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListTools(t.Context()); err != nil {
		t.Fatal(err)
	}
	// core.getIDToken's contract: the audience is the token endpoint.
	if aud := rn.Audiences(); !slices.Equal(aud, []string{as.TokenEndpoint()}) {
		t.Errorf("ID tokens asked for %q, want the token endpoint", aud)
	}
	r := as.Requests()[0]
	if r.Get("grant_type") != oauth.GrantJWTBearer || r.Get("assertion") != "(set)" || r.Has("client_id") {
		t.Errorf("token request %v", r)
	}
	if !p.secrets.has(rn.RequestToken) {
		t.Error("the runner's request token was not given to OnSecret")
	}
	if _, err := oauth.GitHubIDToken(func(string) string { return "" }, nil, nil); !errors.Is(err, oauth.ErrNoIDToken) || !strings.Contains(err.Error(), "id-token: write") {
		t.Errorf("without the runner's variables: %v", err)
	}
}

func TestSessionErrors(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T) (url string, s *oauth.Session)
		want  []string
	}{
		{"no metadata anywhere", func(t *testing.T) (string, *oauth.Session) {
			srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("WWW-Authenticate", `Bearer realm="x"`)
				w.WriteHeader(401)
			}))
			return srv + "/mcp", mustSession(t, srv+"/mcp")
		}, []string{"no protected-resource metadata found: tried", "/.well-known/oauth-protected-resource/mcp (HTTP 401)", "/.well-known/oauth-protected-resource (HTTP 401)"}},
		{"metadata for another resource", func(t *testing.T) (string, *oauth.Session) {
			as := oauthtest.NewAuthServer(t, oauthtest.Options{})
			p := serveProtected(t, as, &oauthtest.Resource{MetadataResource: "https://elsewhere.example/mcp"})
			return p.res.URL(), mustSession(t, p.res.URL())
		}, []string{"names resource \"https://elsewhere.example/mcp\", not this server", "RFC 9728 §3.3"}},
		{"the token endpoint refuses", func(t *testing.T) (string, *oauth.Session) {
			as := oauthtest.NewAuthServer(t, oauthtest.Options{})
			as.AddClient(oauthtest.Client{ID: "ci", Secret: "another-secret"})
			p := serveProtected(t, as, &oauthtest.Resource{})
			return p.res.URL(), mustSession(t, p.res.URL())
		}, []string{"answered HTTP 401", `error="invalid_client"`, `error_description="client authentication failed"`}},
		{"an issuer mismatch", func(t *testing.T) (string, *oauth.Session) {
			as := oauthtest.NewAuthServer(t, oauthtest.Options{Metadata: map[string]any{"issuer": "https://honest.example"}})
			p := serveProtected(t, as, &oauthtest.Resource{})
			return p.res.URL(), mustSession(t, p.res.URL())
		}, []string{"issuer mismatch", `"https://honest.example"`}},
		{"a plain-HTTP token endpoint off loopback", func(t *testing.T) (string, *oauth.Session) {
			as := oauthtest.NewAuthServer(t, oauthtest.Options{Metadata: map[string]any{"token_endpoint": "http://as.example.invalid/token"}})
			p := serveProtected(t, as, &oauthtest.Resource{})
			return p.res.URL(), mustSession(t, p.res.URL())
		}, []string{"token endpoint http://as.example.invalid/token is plain HTTP and not on loopback"}},
		{"resource_metadata over plain HTTP off loopback", func(t *testing.T) (string, *oauth.Session) {
			srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://metadata.example.invalid/prm"`)
				w.WriteHeader(401)
			}))
			return srv + "/mcp", mustSession(t, srv+"/mcp")
		}, []string{"no credentials sent: the challenge's resource_metadata http://metadata.example.invalid/prm is plain HTTP and not on loopback"}},
		{"an authorization server over plain HTTP off loopback", func(t *testing.T) (string, *oauth.Session) {
			var base string
			srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if strings.HasPrefix(r.URL.Path, "/.well-known/oauth-protected-resource") {
					w.Header().Set("Content-Type", "application/json")
					_, _ = w.Write([]byte(`{"resource":"` + base + `/mcp","authorization_servers":["http://as.example.invalid"]}`))
					return
				}
				w.Header().Set("WWW-Authenticate", `Bearer realm="x"`)
				w.WriteHeader(401)
			}))
			base = srv
			return srv + "/mcp", mustSession(t, srv+"/mcp")
		}, []string{"no credentials sent: authorization server http://as.example.invalid is plain HTTP and not on loopback"}},
		{"no client authentication method in common", func(t *testing.T) (string, *oauth.Session) {
			as := oauthtest.NewAuthServer(t, oauthtest.Options{AuthMethods: []string{"private_key_jwt"}})
			p := serveProtected(t, as, &oauthtest.Resource{})
			return p.res.URL(), mustSession(t, p.res.URL())
		}, []string{"accepts neither client_secret_basic nor client_secret_post", "private_key_jwt"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url, s := tt.setup(t)
			_, err := connect(t, url, s)
			if !errors.Is(err, mcp.ErrAuthorization) {
				t.Fatalf("err = %v, want ErrAuthorization", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err %q lacks %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("err is not one line: %q", err)
			}
		})
	}
}

// clientCredentials serves the fixture behind an authorization server of
// o with client ci registered, and connects a client-credentials session.
func clientCredentials(t *testing.T, o oauthtest.Options) (*oauthtest.AuthServer, *protected, *oauth.Session, *mcp.Client) {
	t.Helper()
	as := oauthtest.NewAuthServer(t, o)
	as.AddClient(oauthtest.Client{ID: "ci", Secret: "client-secret-1"})
	p := serveProtected(t, as, &oauthtest.Resource{})
	s := p.session(t, oauth.Credentials{ClientID: "ci", ClientSecret: "client-secret-1"}, o.Now)
	c, err := connect(t, p.res.URL(), s)
	if err != nil {
		t.Fatal(err)
	}
	return as, p, s, c
}

func mustSession(t *testing.T, url string) *oauth.Session {
	s, err := oauth.NewSession(oauth.SessionConfig{ServerURL: url, Credentials: oauth.Credentials{ClientID: "ci", ClientSecret: "client-secret-1"}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A 20-minute run with 5-minute tokens never fails on expiry: on a
// simulated clock shared by the authorization server (which issues and
// expires the tokens), the resource server (which refuses expired ones)
// and the session, a request every 10 s for 20 minutes is never refused,
// and each token is renewed before it expires.
func TestSessionLongRunNeverExpires(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)}
	as := oauthtest.NewAuthServer(t, oauthtest.Options{Lifetime: 5 * time.Minute, Now: clock.Now})
	as.AddClient(oauthtest.Client{ID: "ci", Secret: "client-secret-1"})
	p := serveProtected(t, as, &oauthtest.Resource{})
	s := p.session(t, oauth.Credentials{ClientID: "ci", ClientSecret: "client-secret-1"}, clock.Now)
	c, err := connect(t, p.res.URL(), s)
	if err != nil {
		t.Fatal(err)
	}
	for elapsed := time.Duration(0); elapsed <= 20*time.Minute; elapsed += 10 * time.Second {
		if _, err := c.ListTools(t.Context()); err != nil {
			t.Fatalf("at %v: %v", elapsed, err)
		}
		clock.Add(10 * time.Second)
	}
	st := s.Stats()
	if p.res.Refusals.Load() != 1 {
		t.Errorf("%d refusals: want only the first, unauthenticated request's", p.res.Refusals.Load())
	}
	// Renewed at 4 minutes of each 5: 20 min / 4 min + the first.
	if st.TokenRequests < 5 || st.TokenRequests > 7 {
		t.Errorf("%d token requests over 20 minutes of 5-minute tokens, want about 6", st.TokenRequests)
	}
	t.Logf("20 simulated minutes, 5-minute tokens: %d token requests, %d refusals", st.TokenRequests, p.res.Refusals.Load())
}

// The same on the real clock with tokens of 2 s: requests from 4
// goroutines for 7 s, none refused.
func TestSessionShortTokensRealClock(t *testing.T) {
	if testing.Short() {
		t.Skip("7 s on the real clock")
	}
	as := oauthtest.NewAuthServer(t, oauthtest.Options{Lifetime: 2 * time.Second})
	as.AddClient(oauthtest.Client{ID: "ci", Secret: "client-secret-1"})
	p := serveProtected(t, as, &oauthtest.Resource{})
	s := p.session(t, oauth.Credentials{ClientID: "ci", ClientSecret: "client-secret-1"}, nil)
	c, err := connect(t, p.res.URL(), s)
	if err != nil {
		t.Fatal(err)
	}
	var failed atomic.Int64
	var wg sync.WaitGroup
	deadline := time.Now().Add(7 * time.Second)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				if _, err := c.ListTools(context.Background()); err != nil {
					failed.Add(1)
					t.Error(err)
					return
				}
				time.Sleep(20 * time.Millisecond)
			}
		}()
	}
	wg.Wait()
	if p.res.Refusals.Load() != 1 {
		t.Errorf("%d refusals, want the first only", p.res.Refusals.Load())
	}
}

// A token refused mid-run (the authorization server rotated its keys) is
// re-requested once and the request re-sent; when the server refuses
// every token, the run does not hammer the token endpoint.
func TestSessionRefusedMidRun(t *testing.T) {
	as, p, s, c := clientCredentials(t, oauthtest.Options{})
	as.RevokeAll()
	if _, err := c.ListTools(t.Context()); err != nil {
		t.Fatalf("after a revocation: %v", err)
	}
	if n := s.Stats().TokenRequests; n != 2 {
		t.Errorf("%d token requests, want 2", n)
	}
	// Now the resource server takes no token at all.
	p.res.ID = "https://renamed.example/mcp"
	for range 5 {
		c.ListTools(t.Context())
	}
	if n := s.Stats().TokenRequests; n > 3 {
		t.Errorf("%d token requests after the server stopped taking tokens, want at most one more", n)
	}
}

// A probe that sets or omits Authorization itself is sent as it is: no
// token added, no retry.
func TestSessionProbesAreLeftAlone(t *testing.T) {
	_, _, s, c := clientCredentials(t, oauthtest.Options{})
	before := s.Stats()
	call := c.NewCall("tools/list", nil)
	call.Omit = []string{"Authorization"}
	x, err := c.Do(t.Context(), call)
	if err != nil || x.Status != 401 || x.SentHeader.Get("Authorization") != "" || x.Retried != nil {
		t.Errorf("omitted: status %d, sent %q, retried %v, err %v", x.Status, x.SentHeader.Get("Authorization"), x.Retried != nil, err)
	}
	call = c.NewCall("tools/list", nil)
	call.Header.Set("Authorization", "Bearer not-a-real-token")
	x, err = c.Do(t.Context(), call)
	if err != nil || x.Status != 401 || x.SentHeader.Get("Authorization") != "Bearer not-a-real-token" {
		t.Errorf("own token: status %d, sent %q, err %v", x.Status, x.SentHeader.Get("Authorization"), err)
	}
	if s.Stats() != before {
		t.Errorf("probes changed the session: %+v → %+v", before, s.Stats())
	}
	// A check asks for a token for another resource without replacing
	// the run's.
	other := "https://other.example/mcp"
	_, err = s.RequestToken(t.Context(), oauth.TokenOptions{Resource: &other})
	var te *oauth.TokenError
	if !errors.As(err, &te) || te.Code != "invalid_target" {
		t.Errorf("a token for an unknown resource: %v", err)
	}
	if _, err := c.ListTools(t.Context()); err != nil {
		t.Errorf("the run's token was disturbed: %v", err)
	}
}

// A renewal that fails while the token is still valid keeps the token in
// use (one line on Logf) and is tried again every few seconds, not on
// every request; once the token has expired, the failure is the request's.
func TestSessionRenewalFails(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)}
	as, _, s, c := clientCredentials(t, oauthtest.Options{Lifetime: 5 * time.Minute, Now: clock.Now})
	as.RefuseWith("temporarily_unavailable")
	clock.Add(4*time.Minute + 30*time.Second) // inside the renewal minute
	for range 10 {
		if _, err := c.ListTools(t.Context()); err != nil {
			t.Fatalf("with the old token still valid: %v", err)
		}
		clock.Add(time.Second)
	}
	if n := s.Stats().TokenRequests; n < 2 || n > 4 {
		t.Errorf("%d token requests in 10 s of failing renewals, want one every 5 s or so", n)
	}
	clock.Add(time.Minute) // expired
	_, err := c.ListTools(t.Context())
	var te *oauth.TokenError
	if !errors.Is(err, mcp.ErrAuthorization) || !errors.As(err, &te) || te.Code != "temporarily_unavailable" {
		t.Errorf("after expiry: %v, want the token endpoint's refusal", err)
	}
}

// TestSessionSingleUseAssertion: against an authorization server that
// accepts each assertion once, a source that gives the same JWT again (a
// file not rotated) makes the second token request fail with
// ErrAssertionReused, saying what to do; the runner's OIDC service gives
// a fresh one per request, and every token request succeeds.
func TestSessionSingleUseAssertion(t *testing.T) {
	rn := oauthtest.NewRunner(t)
	as := oauthtest.NewAuthServer(t, oauthtest.Options{SingleUseAssertions: true})
	as.Trust(oauthtest.RunnerIssuer, &rn.Key.PublicKey)
	p := serveProtected(t, as, &oauthtest.Resource{})
	fixed := oauthtest.SignRS256(rn.Key, "runner-key", map[string]any{"iss": oauthtest.RunnerIssuer, "sub": "repo:org/repo",
		"aud": as.TokenEndpoint(), "exp": time.Now().Add(time.Hour).Unix(), "jti": "one-jti"})
	s := p.session(t, oauth.Credentials{Assertion: oauth.StaticAssertion(fixed)}, nil)
	if _, err := connect(t, p.res.URL(), s); err != nil {
		t.Fatal(err)
	}
	other := "https://other.example/mcp"
	as.AddResource(other)
	_, err := s.RequestToken(t.Context(), oauth.TokenOptions{Resource: &other})
	if !errors.Is(err, oauth.ErrAssertionReused) || !strings.Contains(err.Error(), "invalid_grant") || !strings.Contains(err.Error(), "fresh one per token request") {
		t.Errorf("second token with the same assertion: %v, want ErrAssertionReused with the server's answer", err)
	}

	idTok, err := oauth.GitHubIDToken(func(k string) string { return rn.Env()[k] }, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	s = p.session(t, oauth.Credentials{Assertion: idTok}, nil)
	if _, err := connect(t, p.res.URL(), s); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := s.RequestToken(t.Context(), oauth.TokenOptions{Resource: &other}); err != nil {
			t.Errorf("fresh assertions: %v", err)
		}
	}
}

// TestSessionSaysPrefixResource: when the protected-resource metadata
// names a path prefix of the server, the token is requested for that
// prefix, and the first token's line says so.
func TestSessionSaysPrefixResource(t *testing.T) {
	as := oauthtest.NewAuthServer(t, oauthtest.Options{})
	as.AddClient(oauthtest.Client{ID: "ci", Secret: "client-secret-1"})
	p := serveProtected(t, as, &oauthtest.Resource{Path: "/tenant/mcp"})
	p.res.ID = p.res.Base + "/tenant"
	as.AddResource(p.res.ID)
	var mu sync.Mutex
	var lines []string
	s, err := oauth.NewSession(oauth.SessionConfig{ServerURL: p.res.URL(), Credentials: oauth.Credentials{ClientID: "ci", ClientSecret: "client-secret-1"},
		Logf: func(format string, args ...any) {
			mu.Lock()
			lines = append(lines, fmt.Sprintf(format, args...))
			mu.Unlock()
		}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := connect(t, p.res.URL(), s); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	want := "requested for resource " + p.res.Base + "/tenant, the protected-resource metadata's, which covers " + p.res.URL()
	if len(lines) == 0 || !strings.Contains(lines[0], want) {
		t.Errorf("log %q lacks %q", lines, want)
	}
}
