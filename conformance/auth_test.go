package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcp-eval/mcp-eval/internal/mcptest"
	"github.com/mcp-eval/mcp-eval/internal/oauth"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/report"
)

// fixtureTokens is a client_credentials client of the fixture's
// authorization server, standing in for the run's OAuth client. ttl, when
// set, asks for tokens that expire that soon (the fixture's own parameter).
type fixtureTokens struct {
	tokenURL, resource string
	ttl                time.Duration
}

// Current mints a token as the run's own would be (the fixture's tokens
// are stateless).
func (f *fixtureTokens) Current(ctx context.Context, _ string) (string, error) {
	long := *f
	long.ttl = 0
	t, err := long.Token(ctx, TokenRequest{})
	if err != nil {
		return "", err
	}
	return t.AccessToken, nil
}

func (f *fixtureTokens) Token(ctx context.Context, req TokenRequest) (*Token, error) {
	form := url.Values{"grant_type": {"client_credentials"}, "resource": {f.resource}}
	if req.Resource != "" {
		form.Set("resource", req.Resource)
	}
	if req.Scope != "" {
		form.Set("scope", req.Scope)
	}
	if f.ttl > 0 {
		form.Set(mcptest.AuthTTLParam, strconv.Itoa(int(f.ttl/time.Second)))
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, f.tokenURL, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	hr.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	hr.SetBasicAuth(mcptest.AuthClientID, mcptest.AuthClientSecret)
	resp, err := http.DefaultClient.Do(hr)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var tr struct {
		AccessToken string `json:"access_token"`
		ExpiresIn   int    `json:"expires_in"`
		Scope       string `json:"scope"`
		Error       string `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&tr); err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("token endpoint: HTTP %d %s", resp.StatusCode, tr.Error)
	}
	return &Token{AccessToken: tr.AccessToken, ExpiresIn: time.Duration(tr.ExpiresIn) * time.Second, Scope: tr.Scope}, nil
}

// evaluateAuth runs the checks against the fixture in auth mode with
// defects: the client carries a token from the fixture's authorization
// server as a static header, and Options.Auth has a client of it whose
// own tokens live ttl (0: the fixture's default).
func evaluateAuth(t *testing.T, defects string, ttl time.Duration, opts Options) *Result {
	t.Helper()
	srv := mcptest.NewHandler(mcptest.Options{Auth: true, Defects: mcptest.ParseDefects(defects)})
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	endpoint := hs.URL + "/mcp"
	tokens := &fixtureTokens{tokenURL: hs.URL + "/as/token", resource: endpoint, ttl: ttl}
	main := srv.IssueToken(endpoint, mcptest.AuthScope, time.Hour)
	target := &mcp.HTTPTarget{URL: endpoint, Header: http.Header{"Authorization": {"Bearer " + main}}}
	ctx := context.Background()
	c, err := mcp.Connect(ctx, target, mcp.Options{Timeout: 4 * time.Second})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	if opts.Runs == 0 {
		opts.Runs = 1
	}
	opts.Auth = &Auth{Tokens: tokens, Grant: "client_credentials", Secrets: []string{mcptest.AuthClientSecret}}
	res, err := Run(ctx, c, opts)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return res
}

// TestAuthChecksPassOnCorrectFixture: every auth check passes on the
// correct protected fixture, expired-token included (its client's tokens
// live 2 s), and every other check still passes behind the guard.
func TestAuthChecksPassOnCorrectFixture(t *testing.T) {
	t.Parallel()
	res := evaluateAuth(t, "", 2*time.Second, Options{})
	for _, c := range res.Checks {
		if c.Status == report.StatusFail || c.Status == report.StatusError {
			t.Errorf("%s: %s: %s\n%s", c.ID, c.Status, c.Message, c.Evidence)
		}
		if c.Group == "auth" && c.Status != report.StatusPass && (c.ID != "auth/no-token-passthrough" || c.Message != noPassthroughListener) {
			t.Errorf("%s: %s (%s), want pass", c.ID, c.Status, c.Message)
		}
	}
}

// TestAuthSkipsWithReasons: without an OAuth client (a static token only)
// the checks that need a second token skip, saying why; an unprotected
// server skips the group.
func TestAuthSkipsWithReasons(t *testing.T) {
	t.Parallel()
	res, _ := evaluate(t, "http", "", false, Options{Only: []string{"auth"}})
	for _, c := range res.Checks {
		if c.Status != report.StatusSkip || !strings.Contains(c.Message, "not protected") {
			t.Errorf("unprotected server: %s %s %q", c.ID, c.Status, c.Message)
		}
	}
	srv := mcptest.NewHandler(mcptest.Options{Auth: true})
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	target := &mcp.HTTPTarget{URL: hs.URL + "/mcp", Header: http.Header{"Authorization": {"Bearer " + srv.IssueToken(hs.URL+"/mcp", mcptest.AuthScope, time.Hour)}}}
	c, err := mcp.Connect(context.Background(), target, mcp.Options{Timeout: 4 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, err = Run(context.Background(), c, Options{Runs: 1, Only: []string{"auth"}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, ch := range res.Checks {
		if ch.Status != report.StatusPass {
			got[ch.ID] = string(ch.Status)
		}
	}
	want := map[string]string{"auth/as-client-credentials-metadata": "skip", "auth/as-grant-type": "skip", "auth/expired-token": "skip",
		"auth/insufficient-scope": "skip", "auth/single-challenge": "skip", "auth/other-audience-refused": "skip", "auth/no-token-passthrough": "skip"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("static token only (-want +got):\n%s", diff)
	}
}

// TestAuthWithOAuthSession runs the auth group the way mcp-eval does with
// --oauth-client-id: the client reaches the protected fixture through an
// internal/oauth Session (discovery from the 401, client credentials with
// resource) and the checks ask the same Session for their tokens. Every
// auth check that needs no short-lived token passes.
func TestAuthWithOAuthSession(t *testing.T) {
	t.Parallel()
	fx := mcptest.Serve(t, mcptest.Options{Auth: true})
	endpoint := fx.URL + "/mcp"
	sess, err := oauth.NewSession(oauth.SessionConfig{ServerURL: endpoint,
		Credentials: oauth.Credentials{ClientID: mcptest.AuthClientID, ClientSecret: mcptest.AuthClientSecret}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c, err := mcp.Connect(ctx, &mcp.HTTPTarget{URL: endpoint}, mcp.Options{Timeout: 4 * time.Second, Authorizer: sess})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	defer c.Close()
	res, err := Run(ctx, c, Options{Runs: 1, Only: []string{"auth"}, Auth: SessionAuth(sess, oauth.GrantClientCredentials, mcptest.AuthClientSecret)})
	if err != nil {
		t.Fatal(err)
	}
	for _, ch := range res.Checks {
		want := report.StatusPass
		if ch.ID == "auth/expired-token" || ch.ID == "auth/no-token-passthrough" {
			want = report.StatusSkip // the fixture's tokens live an hour; no listener
		}
		if ch.Status != want {
			t.Errorf("%s: %s (%s), want %s", ch.ID, ch.Status, ch.Message, want)
		}
	}
}
