package action_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-eval/mcp-eval/app/apptest"
	"github.com/mcp-eval/mcp-eval/internal/oauth/oauthtest"
)

// TestActionOAuthFederation: with oauth-federation: github and nothing
// else (no stored secret), the Action asks the runner's OIDC token service
// for the job's token, its audience the token endpoint, exchanges it for
// an access token and evaluates the protected server. Every credential is
// registered with the runner's log masking and appears in no output.
func TestActionOAuthFederation(t *testing.T) {
	rn := oauthtest.NewRunner(t)
	as, res := apptest.EchoingAuthServer(t, oauthtest.Options{}, oauthtest.Client{})
	as.Trust(oauthtest.RunnerIssuer, &rn.Key.PublicKey)
	dir := t.TempDir()
	more := rn.Env()
	more["INPUT_SERVER-URL"] = res.URL()
	more["INPUT_OAUTH-FEDERATION"] = "github"
	vars, outputs, summary := scheduleStep(dir, more)
	code, stdout, stderr := runAction(t, apptest.Env(vars))
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	// One assertion per token request: the run's, and those of the auth
	// group's probes (auth/query-token-refused, auth/other-audience-refused…),
	// each for the token endpoint.
	if aud := rn.Audiences(); len(aud) == 0 || slices.ContainsFunc(aud, func(a string) bool { return a != as.TokenEndpoint() }) {
		t.Errorf("the runner was asked for audiences %q, want the token endpoint each time", aud)
	}
	issued := as.Issued()
	if len(issued) == 0 {
		t.Fatal("no access token issued")
	}
	apptest.MustContain(t, "stdout", stdout, "::add-mask::"+rn.RequestToken+"\n")
	for _, tok := range issued {
		apptest.MustContain(t, "stdout", stdout, "::add-mask::"+tok+"\n")
	}
	if r := as.Requests()[0]; r.Get("grant_type") != "urn:ietf:params:oauth:grant-type:jwt-bearer" || r.Get("resource") != res.ID {
		t.Errorf("token request %v", r)
	}
	sum, _ := os.ReadFile(summary)
	outs, _ := os.ReadFile(outputs)
	sinks := stepSinks(filepath.Join(dir, "mcp-eval-report"), stderr, string(sum)+string(outs))
	for _, f := range []string{"report.json", "step files"} {
		if !strings.Contains(sinks[f], "ECHO[") && !strings.Contains(sinks[f], `ECHO\[`) {
			t.Fatalf("the echo never reached %s, so the masking there is untested:\n%s", f, sinks[f])
		}
	}
	for name, text := range sinks {
		for _, secret := range append([]string{rn.RequestToken}, issued...) {
			if strings.Contains(text, secret) {
				t.Errorf("%s holds a credential", name)
			}
		}
	}
}

// TestActionOAuthClientSecret: the client secret input reaches the CLI as
// a reference, is masked in the runner's log, and a missing permission for
// federation is exit 2 that says which.
func TestActionOAuthClientSecret(t *testing.T) {
	const secret = "action-client/secret+1"
	_, res := apptest.EchoingAuthServer(t, oauthtest.Options{}, oauthtest.Client{ID: "ci-action", Secret: secret})
	dir := t.TempDir()
	vars, outputs, _ := scheduleStep(dir, map[string]string{
		"INPUT_SERVER-URL": res.URL(), "INPUT_OAUTH-CLIENT-ID": "ci-action", "INPUT_OAUTH-CLIENT-SECRET": secret,
	})
	code, stdout, stderr := runAction(t, apptest.Env(vars))
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if o := readOutputs(t, outputs); o["exit-code"] != "0" || o["passed"] != "true" {
		t.Errorf("outputs %v, want exit-code 0 and passed true", o)
	}
	apptest.MustContain(t, "stdout", stdout, "::add-mask::"+secret+"\n")
	if strings.Contains(stderr, secret) {
		t.Error("stderr holds the secret")
	}
	// Host mode: the secret as a $VAR the step's env sets.
	vars, _, _ = scheduleStep(t.TempDir(), map[string]string{"OAUTH_SECRET": secret})
	code, stdout, stderr = runAction(t, apptest.Env(vars), "--server-url", res.URL(), "--oauth-client-id", "ci-action", "--oauth-client-secret", "$OAUTH_SECRET")
	if code != 0 {
		t.Fatalf("host mode: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	// Federation without permissions: id-token: write.
	vars, outputs, _ = scheduleStep(t.TempDir(), map[string]string{"INPUT_SERVER-URL": res.URL(), "INPUT_OAUTH-FEDERATION": "github"})
	code, _, stderr = runAction(t, apptest.Env(vars))
	o := readOutputs(t, outputs)
	if code != 2 || o["exit-code"] != "2" || !strings.Contains(o["error"], "id-token: write") {
		t.Errorf("federation without the permission: exit %d, outputs %v\n%s", code, o, stderr)
	}
}
