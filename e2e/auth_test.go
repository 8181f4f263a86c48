package e2e

import (
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math/big"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-eval/mcp-eval/app/apptest"
	"github.com/mcp-eval/mcp-eval/conformance"
	"github.com/mcp-eval/mcp-eval/internal/oauth"
	"github.com/mcp-eval/mcp-eval/internal/oauth/oauthtest"
)

// The auth corpus: the protected Go SDK and TS SDK v2 servers
// (testdata/servers/go-sdk-auth, ts-v2-auth), each with audience
// validation on and off (-no-audience), behind each real authorization
// server (oidc-provider 9.13.3, Ory Hydra v2.3.0). Every run evaluates the
// auth group through the binary with --oauth-client-id and a secret
// variable, as a user does, and pins the group's complete set of verdicts:
// every check not listed must pass. e2e/README.md ("Auth corpus") justifies
// each entry with the spec sentence and the wire evidence.

// authTTL is the access-token lifetime both authorization servers are
// given: short enough for auth/expired-token to wait for it, long enough
// for the Session to use each token.
const authTTL = 6 * time.Second

const (
	authClientSecret = "mcp-eval-e2e-secret-0123456789abcdef"
	// authExtraScope is the scope of the insufficient-scope probe
	// (--oauth-scope-insufficient): both authorization servers know it,
	// neither server accepts it alone.
	authExtraScope = "mcp:admin"
	authScopes     = "mcp:tools mcp:admin"
)

// authPins: for each authorization server / correct server, the auth
// checks that do not pass, with their status. Each defect of authDefects
// adds its check's failure to these and nothing else.
var authPins = map[string]map[string]string{
	"oidc-provider/go-sdk": {
		"auth/as-client-registration": "fail", "auth/invalid-token-error": "fail", "auth/insufficient-scope": "fail",
	},
	"oidc-provider/ts-sdk": {
		"auth/as-client-registration": "fail", "auth/no-error-without-credentials": "fail",
	},
	"hydra/go-sdk": {
		"auth/as-client-credentials-metadata": "fail", "auth/as-client-registration": "fail", "auth/as-iss-parameter": "fail",
		"auth/invalid-token-error": "fail", "auth/insufficient-scope": "fail",
	},
	"hydra/ts-sdk": {
		"auth/as-client-credentials-metadata": "fail", "auth/as-client-registration": "fail", "auth/as-iss-parameter": "fail",
		"auth/no-error-without-credentials": "fail",
	},
	"oidc-provider/mcp-go": {"auth/as-client-registration": "fail"},
	"hydra/mcp-go": {
		"auth/as-client-credentials-metadata": "fail", "auth/as-client-registration": "fail", "auth/as-iss-parameter": "fail",
	},
	"zitadel-op/mcp-go": {"auth/as-client-registration": "fail", "auth/as-iss-parameter": "fail"},
	"zitadel-op/go-sdk": {
		"auth/as-client-registration": "fail", "auth/as-iss-parameter": "fail", "auth/invalid-token-error": "fail", "auth/insufficient-scope": "fail",
	},
	"zitadel-op/ts-sdk": {
		"auth/as-client-registration": "fail", "auth/as-iss-parameter": "fail", "auth/no-error-without-credentials": "fail",
	},
	// TestAuthHydraJWTBearer: the jwt-bearer grant (an assertion of an
	// issuer Hydra trusts, with client authentication).
	"hydra/go-sdk/jwt-bearer": {
		"auth/as-client-credentials-metadata": "skip", "auth/as-client-registration": "fail", "auth/as-grant-type": "fail",
		"auth/as-iss-parameter": "fail", "auth/invalid-token-error": "fail", "auth/insufficient-scope": "fail",
	},
}

// authDeps are what .ci/install-deps.sh installs for the auth corpus.
type authDeps struct {
	Node, Node22, Hydra, OIDCProvider, TSAuthServer string
	// ZitadelOP is checked where it is used (startZitadelOP), so
	// an env.sh from before it skips only its runs.
	ZitadelOP string
	// MCPGo is testdata/servers/mcp-go's binary (-issuer protects it).
	MCPGo string
}

func requireAuthDeps(t *testing.T) authDeps {
	t.Helper()
	requireDeps(t)
	d := authDeps{Node: os.Getenv("MCP_EVAL_NODE"), Node22: os.Getenv("MCP_EVAL_NODE22"), Hydra: os.Getenv("MCP_EVAL_HYDRA"),
		OIDCProvider: os.Getenv("MCP_EVAL_OIDC_PROVIDER"), TSAuthServer: os.Getenv("MCP_EVAL_TS_AUTH_SERVER"), ZitadelOP: os.Getenv("MCP_EVAL_ZITADEL_OP"),
		MCPGo: os.Getenv("MCP_EVAL_MCP_GO")}
	var missing []string
	for name, v := range map[string]string{"MCP_EVAL_HYDRA": d.Hydra, "MCP_EVAL_OIDC_PROVIDER": d.OIDCProvider, "MCP_EVAL_TS_AUTH_SERVER": d.TSAuthServer,
		"MCP_EVAL_MCP_GO": d.MCPGo} {
		if v == "" {
			missing = append(missing, name)
		} else if _, err := os.Stat(v); err != nil {
			t.Fatalf("%s=%s: %v (re-run bash .ci/install-deps.sh)", name, v, err)
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s (CI=true; unset: %s)", notInstalled, strings.Join(missing, ", "))
		}
		t.Skip(notInstalled)
	}
	return d
}

// authServerUnderTest is one running authorization server.
type authServerUnderTest struct {
	Name, Issuer string
	// client registers a client allowed the resources and returns its id.
	client func(t *testing.T, resources ...string) string
	// grants are the grant types client registers (client_credentials).
	grants []string
	// trustIssuer (Hydra) trusts a JWT issuer of the test for the
	// jwt-bearer grant and returns what signs an assertion of it for
	// subject, with jti when not "".
	trustIssuer func(t *testing.T, subject string) func(jti string) string
	// trustKey (Hydra) trusts issuer's key for subject's assertions.
	trustKey func(t *testing.T, issuer, subject, kid string, key *rsa.PublicKey)
}

// startOIDCProvider runs testdata/servers/oidc-provider on Node 22: any
// loopback resource and the probe's other resource are known, one client.
func startOIDCProvider(t *testing.T, d authDeps) *authServerUnderTest {
	const id = "mcp-eval-e2e"
	srv := startHTTPServer(t, httpServerSpec{Name: "oidc-provider", Path: "", Command: func(port int) ([]string, []string) {
		return []string{d.Node22, d.OIDCProvider, "--port", strconv.Itoa(port), "--client", id + ":" + authClientSecret,
			"--resource", "http://127.0.0.1:*", "--resource", conformance.DefaultOtherResource,
			"--scope", authScopes, "--ttl", strconv.Itoa(int(authTTL / time.Second))}, nil
	}})
	as := &authServerUnderTest{Name: "oidc-provider", Issuer: srv.URL,
		client: func(*testing.T, ...string) string { return id }}
	waitMetadata(t, as.Issuer+"/.well-known/openid-configuration")
	return as
}

// startHydra runs Ory Hydra in memory (plain HTTP on loopback, JWT access
// tokens of authTTL); clients are registered through its admin API with
// the audiences they may ask for.
func startHydra(t *testing.T, d authDeps) *authServerUnderTest {
	return startHydraWith(t, d, true, authTTL)
}

// startHydraWith is startHydra with jti required in jwt-bearer assertions
// unless jtiOptional (Hydra then refuses an assertion whose jti it saw
// before), and access tokens of ttl.
func startHydraWith(t *testing.T, d authDeps, jtiOptional bool, ttl time.Duration) *authServerUnderTest {
	admin := freePort(t)
	srv := startHTTPServer(t, httpServerSpec{Name: "hydra", Path: "", Command: func(port int) ([]string, []string) {
		return []string{d.Hydra, "serve", "all", "--dev", "--sqa-opt-out"}, []string{
			"DSN=memory", "SECRETS_SYSTEM=mcp-eval-e2e-system-secret-0123456789",
			"URLS_SELF_ISSUER=http://127.0.0.1:" + strconv.Itoa(port),
			"SERVE_PUBLIC_HOST=127.0.0.1", "SERVE_PUBLIC_PORT=" + strconv.Itoa(port),
			"SERVE_ADMIN_HOST=127.0.0.1", "SERVE_ADMIN_PORT=" + strconv.Itoa(admin),
			"STRATEGIES_ACCESS_TOKEN=jwt", "TTL_ACCESS_TOKEN=" + ttl.String(), "LOG_LEVEL=warn",
			"OAUTH2_GRANT_JWT_JTI_OPTIONAL=" + strconv.FormatBool(jtiOptional), "OAUTH2_GRANT_JWT_IAT_OPTIONAL=true",
		}
	}})
	adminURL := "http://127.0.0.1:" + strconv.Itoa(admin)
	var n atomic.Int32 // clients are registered by parallel subtests
	var as *authServerUnderTest
	as = &authServerUnderTest{Name: "hydra", Issuer: srv.URL, grants: []string{"client_credentials"}, client: func(t *testing.T, resources ...string) string {
		id := fmt.Sprintf("mcp-eval-e2e-%d", n.Add(1))
		body, _ := json.Marshal(map[string]any{"client_id": id, "client_secret": authClientSecret,
			"grant_types": as.grants, "audience": resources, "scope": authScopes,
			"token_endpoint_auth_method": "client_secret_basic"})
		resp, err := http.Post(adminURL+"/admin/clients", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatalf("hydra: register client: %v", err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusCreated {
			t.Fatalf("hydra: register client: HTTP %d", resp.StatusCode)
		}
		return id
	}}
	as.trustKey = func(t *testing.T, issuer, subject, kid string, key *rsa.PublicKey) {
		jwk := map[string]any{"kty": "RSA", "kid": kid, "alg": "RS256", "use": "sig",
			"n": base64.RawURLEncoding.EncodeToString(key.N.Bytes()),
			"e": base64.RawURLEncoding.EncodeToString(big.NewInt(int64(key.E)).Bytes())}
		body, _ := json.Marshal(map[string]any{"issuer": issuer, "subject": subject, "scope": strings.Fields(authScopes),
			"jwk": jwk, "expires_at": time.Now().Add(time.Hour).UTC().Format(time.RFC3339)})
		resp, err := http.Post(adminURL+"/admin/trust/grants/jwt-bearer/issuers", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatalf("hydra: trust issuer: %v", err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusCreated {
			t.Fatalf("hydra: trust issuer: HTTP %d %s", resp.StatusCode, b)
		}
	}
	as.trustIssuer = func(t *testing.T, subject string) func(string) string {
		key, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			t.Fatal(err)
		}
		const issuer, kid = "https://workload.mcp-eval-e2e.invalid", "mcp-eval-e2e-workload"
		as.trustKey(t, issuer, subject, kid, &key.PublicKey)
		return func(jti string) string {
			now := time.Now()
			claims := map[string]any{"iss": issuer, "sub": subject, "aud": as.Issuer + "/oauth2/token",
				"iat": now.Unix(), "exp": now.Add(30 * time.Minute).Unix()}
			if jti != "" {
				claims["jti"] = jti
			}
			return oauthtest.SignRS256(key, kid, claims)
		}
	}
	// The first discovery request makes Hydra generate its signing keys;
	// the first token request generates the access-token keys (seconds of
	// RSA on a loaded machine, longer than a run's --timeout): one here.
	waitMetadata(t, as.Issuer+"/.well-known/openid-configuration")
	apptest.WarmHydraToken(t, as.Issuer, as.client(t), authClientSecret, "grant_type=client_credentials")
	return as
}

// startZitadelOP runs testdata/tools/zitadel-op (zitadel/oidc v3's op
// package): like oidc-provider, one client allowed any loopback resource
// and the probe's other resource, JWT access tokens of authTTL whose aud
// is the resource asked for.
func startZitadelOP(t *testing.T, d authDeps) *authServerUnderTest {
	return startZitadelOPWith(t, d)
}

// startZitadelOPWith is startZitadelOP with more of its flags.
func startZitadelOPWith(t *testing.T, d authDeps, flags ...string) *authServerUnderTest {
	if d.ZitadelOP == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s (CI=true; unset: MCP_EVAL_ZITADEL_OP)", notInstalled)
		}
		t.Skip(notInstalled + " (MCP_EVAL_ZITADEL_OP)")
	}
	const id = "mcp-eval-e2e"
	srv := startHTTPServer(t, httpServerSpec{Name: "zitadel-op", Path: "", Command: func(port int) ([]string, []string) {
		return append([]string{d.ZitadelOP, "-port", strconv.Itoa(port), "-client", id + ":" + authClientSecret,
			"-resource", "http://127.0.0.1:*", "-resource", conformance.DefaultOtherResource,
			"-scope", authScopes, "-ttl", strconv.Itoa(int(authTTL / time.Second))}, flags...), nil
	}})
	as := &authServerUnderTest{Name: "zitadel-op", Issuer: srv.URL,
		client: func(*testing.T, ...string) string { return id }}
	waitMetadata(t, as.Issuer+"/.well-known/openid-configuration")
	return as
}

// waitMetadata waits until url answers 200 (2 min at most: a readiness
// wait, long enough for an authorization server starting on a loaded machine).
func waitMetadata(t *testing.T, url string) {
	t.Helper()
	hc := &http.Client{Timeout: time.Minute} // Hydra makes its keys inside the first request
	deadline := time.Now().Add(2 * time.Minute)
	for {
		resp, err := hc.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not answer 200 within 2 min (last: %v)", url, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// protectedServer says how to start one of the two protected servers.
// defect is "" (correct), "no-audience", "no-signature" or
// "audience-host-only" (go-sdk only): the server's flag of that name.
func protectedServer(d authDeps, goBin, kind, issuer string, defect string) httpServerSpec {
	return httpServerSpec{Name: kind, Path: "/mcp", Command: func(port int) ([]string, []string) {
		if kind == "mcp-go" {
			argv := []string{d.MCPGo, "-http", fmt.Sprintf("127.0.0.1:%d", port), "-issuer", issuer}
			if defect != "" {
				argv = append(argv, "-"+defect)
			}
			return argv, nil
		}
		if kind == "go-sdk" {
			argv := []string{goBin, "-http", fmt.Sprintf("127.0.0.1:%d", port), "-issuer", issuer}
			if defect != "" {
				argv = append(argv, "-"+defect)
			}
			return argv, nil
		}
		argv := []string{d.Node, d.TSAuthServer, "--port", strconv.Itoa(port), "--issuer", issuer}
		if defect != "" {
			argv = append(argv, "--"+defect)
		}
		return argv, nil
	}}
}

// authDefects are the negative corpus: each server flag, the check that
// must catch it (its only verdict beyond the correct server's pins), and
// the servers that have it.
var authDefects = []struct {
	Flag, Check string
	Kinds       []string
}{
	{"no-audience", "auth/other-audience-refused", []string{"go-sdk", "ts-sdk", "mcp-go"}},
	{"no-signature", "auth/forged-token-refused", []string{"go-sdk", "ts-sdk", "mcp-go"}},
	{"audience-host-only", "auth/other-audience-refused", []string{"go-sdk"}},
}

// siblingResource is the resource auth/other-audience-refused asks a
// token for on the server's own host (conformance.siblingResource).
func siblingResource(serverURL string) string {
	return strings.TrimSuffix(serverURL, "/mcp") + "/mcp-eval-probe-sibling/mcp"
}

// authSecretVar holds the client secret for the runs, which name it the
// way a user does (--oauth-client-secret '$VAR').
const authSecretVar = "MCP_EVAL_E2E_CLIENT_SECRET"

// evaluateAuthGroup runs the binary's auth group against url as a user
// with a client id and a secret does, and returns its checks and exit code.
func evaluateAuthGroup(t *testing.T, url, clientID string) ([]check, int) {
	t.Helper()
	run := runMCPEval(t, "--server-url", url, "--oauth-client-id", clientID, "--oauth-client-secret", "$"+authSecretVar,
		"--oauth-scope-insufficient", authExtraScope, "--checks", "auth", "--runs", "1")
	rep := run.mustReport(t)
	// The auth group's own time (for the note; no bound asserted):
	// go test ./e2e -run TestAuthCorpus -v | grep 'auth group took'.
	t.Logf("auth group took %.1f s (exit %d)", run.Wall.Seconds(), run.Exit)
	hardFailed := false
	for _, c := range rep.Checks {
		if c.Hard && (c.Status == "fail" || c.Status == "error") {
			hardFailed = true
		}
	}
	if want := map[bool]int{false: 0, true: 1}[hardFailed]; run.Exit != want {
		t.Errorf("exit %d, want %d (hard auth failure: %v)", run.Exit, want, hardFailed)
	}
	return rep.Checks, run.Exit
}

func buildGoAuthServer(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "go-sdk-auth")
	cmd := exec.Command("go", "build", "-buildvcs=false", "-o", bin, "./testdata/servers/go-sdk-auth")
	cmd.Dir = moduleRoot
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build go-sdk-auth: %v\n%s", err, out)
	}
	return bin
}

func TestAuthCorpus(t *testing.T) {
	d := requireAuthDeps(t)
	t.Setenv(authSecretVar, authClientSecret)
	goBin := buildGoAuthServer(t)
	for _, start := range []struct {
		name  string
		start func(*testing.T, authDeps) *authServerUnderTest
	}{{"oidc-provider", startOIDCProvider}, {"hydra", startHydra}, {"zitadel-op", startZitadelOP}} {
		t.Run(start.name, func(t *testing.T) {
			// Started inside the subtest, so -run picks one; its
			// cleanup waits for the parallel runs below.
			as := start.start(t, d)
			for _, kind := range []string{"go-sdk", "ts-sdk", "mcp-go"} {
				type variant struct{ defect, check string }
				variants := []variant{{}}
				for _, df := range authDefects {
					if slices.Contains(df.Kinds, kind) {
						variants = append(variants, variant{df.Flag, df.Check})
					}
				}
				for _, v := range variants {
					key := as.Name + "/" + kind
					pins := maps.Clone(authPins[key])
					// No --passthrough-listener in the corpus
					// (TestAuthPassthroughListener has one).
					pins["auth/no-token-passthrough"] = "skip"
					if v.defect != "" {
						key += "-" + v.defect
						pins[v.check] = "fail"
					}
					t.Run(strings.TrimPrefix(key, as.Name+"/"), func(t *testing.T) {
						t.Parallel()
						srv := startHTTPServer(t, protectedServer(d, goBin, kind, as.Issuer, v.defect))
						id := as.client(t, srv.URL, siblingResource(srv.URL), conformance.DefaultOtherResource)
						checks, exit := evaluateAuthGroup(t, srv.URL, id)
						wantAuthVerdicts(t, key, checks, pins)
						// Every defect's check is a MUST: the correct
						// server passes the run, each defect fails it.
						if want := map[bool]int{false: 0, true: 1}[v.defect != ""]; exit != want {
							t.Errorf("%s: exit %d, want %d", key, exit, want)
						}
					})
				}
			}
		})
	}
}

// wantAuthVerdicts fails unless every auth check passes except the pinned
// ones, which have exactly the pinned status.
func wantAuthVerdicts(t *testing.T, key string, checks []check, pins map[string]string) {
	t.Helper()
	got := map[string]string{}
	n := 0
	for _, c := range checks {
		if c.Group != "auth" {
			continue
		}
		n++
		t.Logf("%s %s: %s %s", key, c.ID, c.Status, firstOf(c.Message, c.Info))
		if c.Status != "pass" {
			got[c.ID] = c.Status
		}
	}
	if n == 0 {
		t.Fatalf("%s: no auth check ran", key)
	}
	var diff []string
	for id, st := range got {
		if pins[id] != st {
			diff = append(diff, fmt.Sprintf("  %s: %s, pinned %q", id, st, pins[id]))
		}
	}
	for id, st := range pins {
		if _, ok := got[id]; !ok {
			diff = append(diff, fmt.Sprintf("  %s: pass, pinned %s", id, st))
		}
	}
	if len(diff) > 0 {
		sort.Strings(diff)
		t.Errorf("%s: auth verdicts differ from the pins:\n%s", key, strings.Join(diff, "\n"))
	}
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// TestAuthStaticHeader runs the binary as a user with a token minted by
// hand runs it (--header 'Authorization: Bearer …', no OAuth client):
// against the Go SDK server behind oidc-provider, the auth group runs, the
// checks that need a second token skip with the reason, the exit code
// follows the hard checks (every auth failure here is a SHOULD), and the
// token appears in no file the run wrote.
func TestAuthStaticHeader(t *testing.T) {
	d := requireAuthDeps(t)
	goBin := buildGoAuthServer(t)
	as := startOIDCProvider(t, d)
	srv := startHTTPServer(t, protectedServer(d, goBin, "go-sdk", as.Issuer, ""))
	form := "grant_type=client_credentials&scope=mcp%3Atools&resource=" + strings.ReplaceAll(srv.URL, ":", "%3A")
	req, _ := http.NewRequest(http.MethodPost, as.Issuer+"/token", strings.NewReader(form))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth("mcp-eval-e2e", authClientSecret)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var tr struct {
		AccessToken string `json:"access_token"`
	}
	err = json.NewDecoder(resp.Body).Decode(&tr)
	resp.Body.Close()
	if err != nil || tr.AccessToken == "" {
		t.Fatalf("token: HTTP %d %v", resp.StatusCode, err)
	}
	run := runMCPEval(t, "--server-url", srv.URL, "--header", "Authorization: Bearer "+tr.AccessToken, "--checks", "auth", "--runs", "1")
	rep := run.mustReport(t)
	if run.Exit != 0 {
		t.Errorf("exit %d, want 0 (no hard auth check fails)", run.Exit)
	}
	got := map[string]string{}
	for _, c := range rep.Checks {
		if c.Status != "pass" {
			got[c.ID] = c.Status
			if c.Status == "skip" && c.Message == "" {
				t.Errorf("%s skipped without a reason", c.ID)
			}
		}
	}
	want := map[string]string{
		"auth/as-client-registration": "fail", "auth/invalid-token-error": "fail",
		"auth/as-client-credentials-metadata": "skip", "auth/as-grant-type": "skip",
		"auth/insufficient-scope": "skip", "auth/single-challenge": "skip", "auth/other-audience-refused": "skip", "auth/no-token-passthrough": "skip",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("verdicts %v, want %v", got, want)
	}
	err = filepath.Walk(filepath.Dir(run.Dir), func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err == nil && bytes.Contains(b, []byte(tr.AccessToken)) {
			t.Errorf("%s contains the access token", p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestAuthHydraJWTBearer is workload identity federation against a real
// authorization server: Hydra trusts an issuer of ours (its public key
// registered through /admin/trust/grants/jwt-bearer/issuers, as a cloud
// or CI identity provider would be), and mcp-eval presents a JWT of that
// issuer with --oauth-assertion-file (RFC 7523). Hydra v2.3.0 always
// wants the client authenticated as well on this grant (fosite's
// GetGrantTypeJWTBearerCanSkipClientAuth is false in Hydra's config), so
// the run gives a client id and secret too: with Hydra, federation still
// needs a stored secret. The auth group's verdicts are pinned like
// TestAuthCorpus's.
func TestAuthHydraJWTBearer(t *testing.T) {
	d := requireAuthDeps(t)
	t.Setenv(authSecretVar, authClientSecret)
	goBin := buildGoAuthServer(t)
	as := startHydra(t, d)
	as.grants = []string{oauth.GrantJWTBearer}
	srv := startHTTPServer(t, protectedServer(d, goBin, "go-sdk", as.Issuer, ""))
	id := as.client(t, srv.URL, siblingResource(srv.URL), conformance.DefaultOtherResource)
	// No jti: the file is presented for every token request
	// (OAUTH2_GRANT_JWT_JTI_OPTIONAL), and Hydra refuses a jti twice
	// (TestAuthHydraSingleUseAssertion).
	assertion := as.trustIssuer(t, "mcp-eval-e2e-workload")("")
	file := filepath.Join(t.TempDir(), "assertion.jwt")
	if err := os.WriteFile(file, []byte(assertion), 0o600); err != nil {
		t.Fatal(err)
	}
	run := runMCPEval(t, "--server-url", srv.URL, "--oauth-assertion-file", file,
		"--oauth-client-id", id, "--oauth-client-secret", "$"+authSecretVar,
		"--oauth-scope-insufficient", authExtraScope, "--checks", "auth", "--runs", "1")
	rep := run.mustReport(t)
	pins := maps.Clone(authPins["hydra/go-sdk/jwt-bearer"])
	pins["auth/no-token-passthrough"] = "skip"
	wantAuthVerdicts(t, "hydra/go-sdk/jwt-bearer", rep.Checks, pins)
}

// TestAuthAPIKeyServer: the Go SDK server protected by a static key (401
// without it, no protected-resource metadata, no authorization server),
// evaluated as its team would with --header: exit 0, one auth warning
// (auth/mcp-authorization, a SHOULD: authorization is OPTIONAL), every
// other auth check skipped with that reason, and the key in no file.
func TestAuthAPIKeyServer(t *testing.T) {
	requireDeps(t)
	goBin := buildGoAuthServer(t)
	const key = "mcp-eval-e2e-api-key-0123456789abcdef"
	srv := startHTTPServer(t, httpServerSpec{Name: "go-sdk-api-key", Path: "/mcp", Command: func(port int) ([]string, []string) {
		return []string{goBin, "-http", fmt.Sprintf("127.0.0.1:%d", port), "-api-key", key}, nil
	}})
	run := runMCPEval(t, "--server-url", srv.URL, "--header", "Authorization: Bearer "+key, "--checks", "auth", "--runs", "1")
	rep := run.mustReport(t)
	if run.Exit != 0 {
		t.Errorf("exit %d, want 0", run.Exit)
	}
	n := 0
	for _, c := range rep.Checks {
		if c.Group != "auth" {
			continue
		}
		n++
		switch {
		case c.ID == "auth/mcp-authorization":
			if c.Status != "fail" || c.Hard || !strings.HasPrefix(c.Message, "this server does not implement MCP authorization; it was reached with a static credential") {
				t.Errorf("%s: %s hard=%v %q", c.ID, c.Status, c.Hard, c.Message)
			}
		case c.Status != "skip" || !strings.HasPrefix(c.Message, "this server does not implement MCP authorization"):
			t.Errorf("%s: %s %q, want skipped for the API-key server", c.ID, c.Status, c.Message)
		}
	}
	if n < 20 {
		t.Errorf("only %d auth checks reported", n)
	}
	err := filepath.Walk(filepath.Dir(run.Dir), func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err == nil && bytes.Contains(b, []byte(key)) {
			t.Errorf("%s contains the API key", p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestAuthPassthroughListener: the Go SDK server behind oidc-provider with
// its upstream pointed at --passthrough-listener: passing the client's
// token on (-passthrough) fails auth/no-token-passthrough with exit 1; the
// correct server never calls the listener, and the check skips saying so.
func TestAuthPassthroughListener(t *testing.T) {
	d := requireAuthDeps(t)
	t.Setenv(authSecretVar, authClientSecret)
	goBin := buildGoAuthServer(t)
	as := startOIDCProvider(t, d)
	for _, forward := range []bool{true, false} {
		listener := fmt.Sprintf("127.0.0.1:%d", freePort(t))
		srv := startHTTPServer(t, httpServerSpec{Name: "go-sdk", Path: "/mcp", Command: func(port int) ([]string, []string) {
			argv := []string{goBin, "-http", fmt.Sprintf("127.0.0.1:%d", port), "-issuer", as.Issuer}
			if forward {
				argv = append(argv, "-passthrough", "http://"+listener+"/upstream")
			}
			return argv, nil
		}})
		run := runMCPEval(t, "--server-url", srv.URL, "--oauth-client-id", as.client(t), "--oauth-client-secret", "$"+authSecretVar,
			"--passthrough-listener", listener, "--checks", "auth/no-token-passthrough,auth/unauthenticated-401", "--runs", "1")
		rep := run.mustReport(t)
		var got check
		for _, c := range rep.Checks {
			if c.ID == "auth/no-token-passthrough" {
				got = c
			}
		}
		t.Logf("forward=%v: exit %d, %s %s", forward, run.Exit, got.Status, firstOf(got.Message, got.Info))
		switch {
		case forward && (run.Exit != 1 || got.Status != "fail" || !got.Hard || !strings.Contains(got.Message, "in header Authorization")):
			t.Errorf("passthrough: exit %d, %s hard=%v %q", run.Exit, got.Status, got.Hard, got.Message)
		case !forward && (run.Exit != 0 || got.Status != "skip" || !strings.Contains(got.Message, "no request reached the passthrough listener")):
			t.Errorf("correct server: exit %d, %s %q", run.Exit, got.Status, got.Message)
		}
	}
}
