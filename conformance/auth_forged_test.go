package conformance

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcp-eval/mcp-eval/internal/mcptest"
	"github.com/mcp-eval/mcp-eval/internal/oauth"
	"github.com/mcp-eval/mcp-eval/internal/oauth/oauthtest"
	"github.com/mcp-eval/mcp-eval/internal/passthrough"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/report"
)

// evaluateAuthStatic runs the auth group against the protected fixture
// with defects as a user with a static --header does: no OAuth client.
func evaluateAuthStatic(t *testing.T, defects string) *Result {
	t.Helper()
	srv := mcptest.NewHandler(mcptest.Options{Auth: true, Defects: mcptest.ParseDefects(defects)})
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	endpoint := hs.URL + "/mcp"
	target := &mcp.HTTPTarget{URL: endpoint, Header: http.Header{"Authorization": {"Bearer " + srv.IssueToken(endpoint, mcptest.AuthScope, time.Hour)}}}
	c, err := mcp.Connect(context.Background(), target, mcp.Options{Timeout: 4 * time.Second})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	res, err := Run(context.Background(), c, Options{Runs: 1, Only: []string{"auth"}})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return res
}

// TestForgeries: every forgery of a JWT changes the signing input or the
// signature (so no key verifies it), keeps the claims but the one named,
// and an opaque token's forgery differs in one character, not the last.
func TestForgeries(t *testing.T) {
	t.Parallel()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	jwt := oauthtest.SignRS256(key, "k1", map[string]any{"iss": "https://as.example", "aud": "https://mcp.example/mcp", "exp": 1893456000, "sub": "c"})
	parts := strings.Split(jwt, ".")
	got := forgeries(jwt)
	if len(got) != 4 {
		t.Fatalf("%d forgeries of a JWT, want 4: %v", len(got), got)
	}
	seen := map[string]bool{jwt: true}
	for _, f := range got {
		if seen[f.Token] {
			t.Errorf("%s: not a new token", f.Name)
		}
		seen[f.Token] = true
		fp := strings.Split(f.Token, ".")
		if len(fp) != 3 {
			t.Fatalf("%s: %d parts", f.Name, len(fp))
		}
		if fp[0]+"."+fp[1] == parts[0]+"."+parts[1] && fp[2] == parts[2] {
			t.Errorf("%s: same signing input and signature", f.Name)
		}
		hdr, ok1 := jwtObject(fp[0])
		claims, ok2 := jwtObject(fp[1])
		if !ok1 || !ok2 {
			t.Fatalf("%s: header or claims no longer decode", f.Name)
		}
		switch {
		case strings.HasPrefix(f.Name, "alg"):
			if hdr["alg"] != "none" || fp[2] != "" {
				t.Errorf("alg none: header %v, signature %q", hdr, fp[2])
			}
		case strings.HasPrefix(f.Name, "a kid"):
			if hdr["kid"] != probeKid || fp[2] != parts[2] {
				t.Errorf("unknown kid: header %v", hdr)
			}
		case strings.HasPrefix(f.Name, "iss"):
			if claims["iss"] != probeIssuer || claims["aud"] != "https://mcp.example/mcp" || claims["exp"].(interface{ String() string }).String() != "1893456000" {
				t.Errorf("another issuer: claims %v", claims)
			}
		case strings.HasPrefix(f.Name, "the signature"):
			if fp[0] != parts[0] || fp[1] != parts[1] || fp[2] == parts[2] || len(fp[2]) != len(parts[2]) {
				t.Errorf("signature altered: %q", f.Token)
			}
		default:
			t.Errorf("unexpected forgery %q", f.Name)
		}
	}
	op := forgeries("opaque-token_0123456789abcdefXY")
	if len(op) != 1 || op[0].Token == "opaque-token_0123456789abcdefXY" || op[0].Token[len(op[0].Token)-1] != 'Y' || len(op[0].Token) != 31 {
		t.Errorf("opaque forgery: %v", op)
	}
	if forgeries("x") != nil {
		t.Error("a one-character token has no forgery")
	}
}

// TestForgedTokenOnFixture: the correct fixture refuses the forgery with
// 401; the one that does not check its MAC fails the hard check, with the
// forgery named and no token in the evidence.
func TestForgedTokenOnFixture(t *testing.T) {
	t.Parallel()
	ok := byID(evaluateAuthStatic(t, ""))["auth/forged-token-refused"]
	if ok.Status != report.StatusPass || !strings.Contains(ok.Info, "one character changed") {
		t.Errorf("correct fixture: %s %q %q", ok.Status, ok.Message, ok.Info)
	}
	bad := byID(evaluateAuthStatic(t, "auth/forged-token-refused"))["auth/forged-token-refused"]
	if bad.Status != report.StatusFail || !bad.Hard || !strings.Contains(bad.Message, "one character changed (HTTP 200)") {
		t.Errorf("defect: %s hard=%v %q", bad.Status, bad.Hard, bad.Message)
	}
}

// TestAPIKeyServer: a server that refuses requests without its key and
// advertises no MCP authorization, reached with a static credential, gets
// one SHOULD finding and every other auth check skips with that reason;
// with an OAuth client the chapter is judged as before (the MUST of
// discovery fails); a server that advertises authorization is judged too.
func TestAPIKeyServer(t *testing.T) {
	t.Parallel()
	res := evaluateAuthStatic(t, "auth/mcp-authorization")
	for _, c := range res.Checks {
		switch {
		case c.Group != "auth":
		case c.ID == "auth/mcp-authorization":
			if c.Status != report.StatusFail || c.Hard || !strings.HasPrefix(c.Message, "this server does not implement MCP authorization; it was reached with a static credential") {
				t.Errorf("%s: %s hard=%v %q", c.ID, c.Status, c.Hard, c.Message)
			}
		case c.Status != report.StatusSkip || c.Message != noMCPAuthorization:
			t.Errorf("%s: %s %q, want skip %q", c.ID, c.Status, c.Message, noMCPAuthorization)
		}
	}
	withClient := byID(evaluateAuth(t, "auth/mcp-authorization", 0, Options{Only: []string{"auth"}}))
	if c := withClient["auth/resource-metadata-discoverable"]; c.Status != report.StatusFail || !c.Hard {
		t.Errorf("with an OAuth client: discoverable %s hard=%v", c.Status, c.Hard)
	}
	if c := withClient["auth/mcp-authorization"]; c.Status != report.StatusSkip {
		t.Errorf("with an OAuth client: mcp-authorization %s %q", c.Status, c.Message)
	}
	advertised := byID(evaluateAuthStatic(t, ""))
	if c := advertised["auth/mcp-authorization"]; c.Status != report.StatusPass {
		t.Errorf("advertised: mcp-authorization %s %q", c.Status, c.Message)
	}
	if c := advertised["auth/resource-metadata-valid"]; c.Status != report.StatusPass {
		t.Errorf("advertised: resource-metadata-valid %s %q", c.Status, c.Message)
	}
}

// TestAudienceBySiblingPath: a server that compares the audience's host
// alone passes the other-host probe and fails on the token for a sibling
// path of its own host, which the message names; the correct fixture
// refuses both.
func TestAudienceBySiblingPath(t *testing.T) {
	t.Parallel()
	ok := byID(evaluateAuth(t, "", 0, Options{Only: []string{"auth"}}))["auth/other-audience-refused"]
	if ok.Status != report.StatusPass || !strings.Contains(ok.Info, "/mcp-eval-probe-sibling/mcp: 401") || !strings.Contains(ok.Info, DefaultOtherResource+": 401") {
		t.Errorf("correct fixture: %s %q %q", ok.Status, ok.Message, ok.Info)
	}
	res := evaluateAuth(t, mcptest.DefectAudienceHostOnly, 0, Options{Only: []string{"auth"}})
	for _, c := range res.Checks {
		switch {
		case c.ID == "auth/other-audience-refused":
			if c.Status != report.StatusFail || !c.Hard || !strings.Contains(c.Message, "/mcp-eval-probe-sibling/mcp") || strings.Contains(c.Message, DefaultOtherResource) {
				t.Errorf("host-only audience: %s hard=%v %q", c.Status, c.Hard, c.Message)
			}
		case c.Status == report.StatusFail || c.Status == report.StatusError:
			t.Errorf("host-only audience also failed %s: %s", c.ID, c.Message)
		}
	}
}

// reusedAssertion is a token source whose every token request after the
// run's own fails as a single-use assertion presented twice does.
type reusedAssertion struct{ *fixtureTokens }

func (r reusedAssertion) Token(context.Context, TokenRequest) (*Token, error) {
	return nil, fmt.Errorf("%w: token endpoint answered HTTP 400: error=\"invalid_grant\"", oauth.ErrAssertionReused)
}

// TestSingleUseAssertionNotVerified: when no second token can be had
// because the assertion was already used, the checks that need one are
// errors saying "not verified", never skips (a skipped hard check would
// let a server that accepts any audience pass).
func TestSingleUseAssertionNotVerified(t *testing.T) {
	t.Parallel()
	srv := mcptest.NewHandler(mcptest.Options{Auth: true})
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	endpoint := hs.URL + "/mcp"
	target := &mcp.HTTPTarget{URL: endpoint, Header: http.Header{"Authorization": {"Bearer " + srv.IssueToken(endpoint, mcptest.AuthScope, time.Hour)}}}
	c, err := mcp.Connect(context.Background(), target, mcp.Options{Timeout: 4 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	tokens := reusedAssertion{&fixtureTokens{tokenURL: hs.URL + "/as/token", resource: endpoint}}
	res, err := Run(context.Background(), c, Options{Runs: 1, Only: []string{"auth"},
		Auth: &Auth{Tokens: tokens, Grant: oauth.GrantJWTBearer, InsufficientScope: mcptest.AuthExtraScope}})
	if err != nil {
		t.Fatal(err)
	}
	got := byID(res)
	for _, id := range []string{"auth/other-audience-refused", "auth/insufficient-scope", "auth/expired-token"} {
		if c := got[id]; c.Status != report.StatusError || !strings.HasPrefix(c.Message, "not verified: ") || !strings.Contains(c.Message, "fresh one per token request") {
			t.Errorf("%s: %s %q, want an error saying not verified", id, c.Status, c.Message)
		}
	}
	if c := got["auth/other-audience-refused"]; !c.Hard {
		t.Error("other-audience-refused is not hard")
	}
}

// evaluateAuthPassthrough is evaluateAuth with a passthrough listener the
// fixture's upstream points at; before, if set, runs first (a request of
// the test's own to the listener).
func evaluateAuthPassthrough(t *testing.T, defects string, before func(listener string)) *Result {
	t.Helper()
	l, err := passthrough.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	if before != nil {
		before(l.Addr())
	}
	srv := mcptest.NewHandler(mcptest.Options{Auth: true, Defects: mcptest.ParseDefects(defects), Upstream: "http://" + l.Addr() + "/upstream/v1"})
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	endpoint := hs.URL + "/mcp"
	target := &mcp.HTTPTarget{URL: endpoint, Header: http.Header{"Authorization": {"Bearer " + srv.IssueToken(endpoint, mcptest.AuthScope, time.Hour)}}}
	c, err := mcp.Connect(context.Background(), target, mcp.Options{Timeout: 4 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	tokens := &fixtureTokens{tokenURL: hs.URL + "/as/token", resource: endpoint, ttl: 2 * time.Second}
	res, err := Run(context.Background(), c, Options{Runs: 1, Only: []string{"auth"},
		Auth: &Auth{Tokens: tokens, Grant: "client_credentials", Secrets: []string{mcptest.AuthClientSecret}, Passthrough: l}})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestTokenPassthrough: a server that forwards the client's token to its
// upstream (pointed at the listener) fails the hard check with the
// request as evidence and no token in it; a listener that saw only the
// upstream's own credential passes; one that saw nothing skips, saying so;
// without a listener the check skips naming the flag.
func TestTokenPassthrough(t *testing.T) {
	t.Parallel()
	bad := byID(evaluateAuthPassthrough(t, "auth/no-token-passthrough", nil))["auth/no-token-passthrough"]
	if bad.Status != report.StatusFail || !bad.Hard || !strings.Contains(bad.Message, "GET /upstream/v1, in header Authorization") {
		t.Errorf("passthrough: %s hard=%v %q", bad.Status, bad.Hard, bad.Message)
	}
	if !strings.Contains(string(bad.Evidence), `"foundIn"`) || strings.Contains(string(bad.Evidence), "Bearer ey") {
		t.Errorf("evidence: %s", bad.Evidence)
	}
	own := func(addr string) {
		req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/upstream/v1", nil)
		req.Header.Set("Authorization", "Bearer the-upstream-s-own-token-0123456789")
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}
	ok := byID(evaluateAuthPassthrough(t, "", own))["auth/no-token-passthrough"]
	if ok.Status != report.StatusPass || !strings.Contains(ok.Info, "1 requests reached the passthrough listener; none carried") {
		t.Errorf("upstream's own token: %s %q %q", ok.Status, ok.Message, ok.Info)
	}
	none := byID(evaluateAuthPassthrough(t, "", nil))["auth/no-token-passthrough"]
	if none.Status != report.StatusSkip || !strings.Contains(none.Message, "no request reached the passthrough listener") {
		t.Errorf("nothing forwarded: %s %q", none.Status, none.Message)
	}
	without := byID(evaluateAuthStatic(t, ""))["auth/no-token-passthrough"]
	if without.Status != report.StatusSkip || !strings.Contains(without.Message, "--passthrough-listener") {
		t.Errorf("no listener: %s %q", without.Status, without.Message)
	}
}

// TestCoveringResourceMessage: metadata whose resource is the server's URI
// with a trailing slash fails auth/resource-metadata-resource without
// claiming that no token can be had (clients that accept a covering
// resource get tokens for it).
func TestCoveringResourceMessage(t *testing.T) {
	t.Parallel()
	srv := mcptest.NewHandler(mcptest.Options{Auth: true})
	var endpoint string
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/.well-known/oauth-protected-resource/mcp" {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"resource":%q,"authorization_servers":[%q]}`, endpoint+"/", strings.TrimSuffix(endpoint, "/mcp")+"/as")
			return
		}
		srv.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	endpoint = hs.URL + "/mcp"
	target := &mcp.HTTPTarget{URL: endpoint, Header: http.Header{"Authorization": {"Bearer " + srv.IssueToken(endpoint, mcptest.AuthScope, time.Hour)}}}
	c, err := mcp.Connect(context.Background(), target, mcp.Options{Timeout: 4 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	res, err := Run(context.Background(), c, Options{Runs: 1, Only: []string{"auth/resource-metadata-resource"}})
	if err != nil {
		t.Fatal(err)
	}
	got := byID(res)["auth/resource-metadata-resource"]
	if got.Status != report.StatusFail || strings.Contains(got.Message, "no token can be had") || !strings.Contains(got.Message, "request tokens for \""+endpoint+"/\"") {
		t.Errorf("%s %q", got.Status, got.Message)
	}
}

// TestInsufficientScopeUnadvertised: a server whose 401 challenge names no
// scope is still probed: with --oauth-scope-insufficient, a 403 without
// scope= fails; with nothing named, a token requested with no scope is
// presented, and its acceptance is a skip that says what was tried.
func TestInsufficientScopeUnadvertised(t *testing.T) {
	t.Parallel()
	run := func(insufficient string) report.Check {
		srv := mcptest.NewHandler(mcptest.Options{Auth: true, Defects: mcptest.ParseDefects("auth/challenge-scope")})
		hs := httptest.NewServer(srv)
		t.Cleanup(hs.Close)
		endpoint := hs.URL + "/mcp"
		target := &mcp.HTTPTarget{URL: endpoint, Header: http.Header{"Authorization": {"Bearer " + srv.IssueToken(endpoint, mcptest.AuthScope, time.Hour)}}}
		c, err := mcp.Connect(context.Background(), target, mcp.Options{Timeout: 4 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		tokens := &fixtureTokens{tokenURL: hs.URL + "/as/token", resource: endpoint}
		res, err := Run(context.Background(), c, Options{Runs: 1, Only: []string{"auth/insufficient-scope"},
			Auth: &Auth{Tokens: tokens, Grant: "client_credentials", InsufficientScope: insufficient}})
		if err != nil {
			t.Fatal(err)
		}
		return byID(res)["auth/insufficient-scope"]
	}
	if c := run(mcptest.AuthExtraScope); c.Status != report.StatusFail || !strings.Contains(c.Message, `a valid token with scope "mcp:admin" only was refused`) || !strings.Contains(c.Message, "no scope= naming what is needed") {
		t.Errorf("named scope: %s %q", c.Status, c.Message)
	}
	if c := run(""); c.Status != report.StatusSkip || !strings.Contains(c.Message, `a token with no scope (granted "mcp:tools") was accepted`) {
		t.Errorf("no scope: %s %q", c.Status, c.Message)
	}
}
