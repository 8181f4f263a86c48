package e2e

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-eval/mcp-eval/conformance"
	"github.com/mcp-eval/mcp-eval/internal/oauth"
	"github.com/mcp-eval/mcp-eval/internal/oauth/oauthtest"
)

// TestAuthHydraSingleUseAssertion: Hydra with jti required in jwt-bearer
// assertions (OAUTH2_GRANT_JWT_JTI_OPTIONAL=false, its default) refuses an
// assertion whose jti it has seen (RFC 7523 §3: jti "may be used … to
// prevent the JWT from being replayed"). The Go SDK server behind it
// validates audiences, so every check that runs passes.
//
// With --oauth-assertion-file holding one assertion, the run's first token
// is had and every check that needs another token cannot run: each is
// reported as an error ("not verified: …", counted in the tally, exit 1),
// never as a skip, the hard auth/other-audience-refused included. With
// --oauth-federation github (the runner's OIDC service, here
// oauthtest.Runner, signs a fresh JWT with a fresh jti for each token
// request) the same checks run and pass.
func TestAuthHydraSingleUseAssertion(t *testing.T) {
	d := requireAuthDeps(t)
	t.Setenv(authSecretVar, authClientSecret)
	goBin := buildGoAuthServer(t)
	as := startHydraWith(t, d, false, authTTL)
	as.grants = []string{oauth.GrantJWTBearer}
	srv := startHTTPServer(t, protectedServer(d, goBin, "go-sdk", as.Issuer, ""))
	id := as.client(t, srv.URL, siblingResource(srv.URL), conformance.DefaultOtherResource)

	// The checks that need a token of their own: the run's token
	// cannot stand in for one asked for another audience, a smaller
	// scope, or to be let expire.
	second := []string{"auth/other-audience-refused", "auth/insufficient-scope", "auth/single-challenge", "auth/expired-token"}

	t.Run("assertion-file", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "assertion.jwt")
		if err := os.WriteFile(file, []byte(as.trustIssuer(t, "mcp-eval-e2e-workload")("mcp-eval-e2e-jti-once")), 0o600); err != nil {
			t.Fatal(err)
		}
		run := runMCPEval(t, "--server-url", srv.URL, "--oauth-assertion-file", file,
			"--oauth-client-id", id, "--oauth-client-secret", "$"+authSecretVar,
			"--oauth-scope-insufficient", authExtraScope, "--checks", "auth", "--runs", "1")
		rep := run.mustReport(t)
		pins := maps.Clone(authPins["hydra/go-sdk/jwt-bearer"])
		pins["auth/no-token-passthrough"] = "skip"
		for _, id := range second {
			pins[id] = "error"
		}
		wantAuthVerdicts(t, "hydra/go-sdk/jwt-bearer/jti-once", rep.Checks, pins)
		for _, id := range second {
			c, _ := rep.check(id)
			if !strings.HasPrefix(c.Message, "not verified: ") || !strings.Contains(c.Message, "jti") {
				t.Errorf("%s: %q, want it not verified, naming the reused jti", id, c.Message)
			}
		}
		// An errored hard check fails the run (exit 1); the comment
		// counts the errors and says of each that it was not verified.
		if run.Exit != 1 {
			t.Errorf("exit %d, want 1 (hard checks not verified)", run.Exit)
		}
		b, err := os.ReadFile(filepath.Join(run.Dir, "summary.md"))
		if err != nil {
			t.Fatal(err)
		}
		md := string(b)
		if want := fmt.Sprintf(", %d errors", len(second)); !strings.Contains(md, want) {
			t.Errorf("summary.md does not count %d errors:\n%s", len(second), md)
		}
		// Each check's row in the Checks table says it was not verified
		// (the findings above may group checks of one cause).
		_, table, _ := strings.Cut(md, "### Checks")
		for _, id := range second {
			_, row, _ := strings.Cut(table, "| `"+id+"` |")
			row, _, _ = strings.Cut(row, "\n")
			if !strings.Contains(row, "not verified: ") {
				t.Errorf("summary.md's row for %s does not say it was not verified:\n%s", id, md)
			}
		}
		// The gate says why, never that the server timed out.
		if strings.Contains(md, "timed out or got an unreadable answer") || !strings.Contains(md, "auth/expired-token was not verified (") {
			t.Errorf("summary.md's gate blames the server for checks it could not verify:\n%s", md)
		}
	})

	t.Run("federation", func(t *testing.T) {
		rn := oauthtest.NewRunner(t)
		as.trustKey(t, oauthtest.RunnerIssuer, "repo:org/repo:ref:refs/heads/main", "runner-key", &rn.Key.PublicKey)
		for k, v := range rn.Env() {
			t.Setenv(k, v)
		}
		run := runMCPEval(t, "--server-url", srv.URL, "--oauth-federation", "github",
			"--oauth-client-id", id, "--oauth-client-secret", "$"+authSecretVar,
			"--oauth-scope-insufficient", authExtraScope, "--checks", "auth", "--runs", "1")
		rep := run.mustReport(t)
		if run.Exit != 0 {
			t.Errorf("exit %d, want 0", run.Exit)
		}
		pins := maps.Clone(authPins["hydra/go-sdk/jwt-bearer"])
		pins["auth/no-token-passthrough"] = "skip"
		wantAuthVerdicts(t, "hydra/go-sdk/jwt-bearer/federation", rep.Checks, pins)
		// One ID token per token request: the run's, its renewals and
		// the probes' (each for Hydra's token endpoint).
		aud := rn.Audiences()
		if len(aud) < 1+len(second) || slices.ContainsFunc(aud, func(a string) bool { return a != as.Issuer+"/oauth2/token" }) {
			t.Errorf("ID tokens for %q, want at least %d, each for %s", aud, 1+len(second), as.Issuer+"/oauth2/token")
		}
	})
}

// TestAuthZitadelNoResource: zitadel/oidc as the library is, without
// resource indicators (zitadel-op -no-resource): every token's aud is the
// client id, whatever resource was asked for. The Go SDK server, which
// validates its audience, refuses the run's first token; mcp-eval stops
// with exit 3 and the server's own words, no verdict on the server. The
// same server with -no-audience takes the token and fails the hard
// auth/other-audience-refused, its defect, naming the aud it accepted.
func TestAuthZitadelNoResource(t *testing.T) {
	d := requireAuthDeps(t)
	t.Setenv(authSecretVar, authClientSecret)
	as := startZitadelOPWith(t, d, "-no-resource") // skips first without it
	goBin := buildGoAuthServer(t)
	for _, defect := range []string{"", "no-audience"} {
		srv := startHTTPServer(t, protectedServer(d, goBin, "go-sdk", as.Issuer, defect))
		run := runMCPEval(t, "--server-url", srv.URL, "--oauth-client-id", as.client(t), "--oauth-client-secret", "$"+authSecretVar,
			"--oauth-scope-insufficient", authExtraScope, "--checks", "auth", "--runs", "1")
		if defect == "" {
			stderr, _ := os.ReadFile(filepath.Join(filepath.Dir(run.Dir), "stderr.txt"))
			if run.Exit != 3 || !strings.Contains(string(stderr), "the server refused the OAuth access token obtained for it") ||
				!strings.Contains(string(stderr), "not issued for this resource") {
				t.Errorf("correct server: exit %d, want 3 with the server's refusal; stderr:\n%s", run.Exit, stderr)
			}
			continue
		}
		rep := run.mustReport(t)
		c, _ := rep.check("auth/other-audience-refused")
		if run.Exit != 1 || c.Status != "fail" || !strings.Contains(c.Message, "a JWT with aud ["+"mcp-eval-e2e]") {
			t.Errorf("-no-audience: exit %d, %s %q", run.Exit, c.Status, c.Message)
		}
	}
}
