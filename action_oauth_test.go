package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mcp-eval/mcp-eval/internal/oauth/oauthtest"
)

// scheduleStep is the environment of an Action step on a nightly run with
// its workspace in dir, plus more.
func scheduleStep(dir string, more map[string]string) (vars map[string]string, outputs, summary string) {
	outputs, summary = stepFiles(dir)
	vars = map[string]string{
		"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "schedule", "GITHUB_EVENT_PATH": "github/testdata/schedule.json",
		"GITHUB_REF": "refs/heads/main", "GITHUB_STEP_SUMMARY": summary, "GITHUB_OUTPUT": outputs,
		"GITHUB_WORKSPACE": dir, "RUNNER_TEMP": dir, "INPUT_RUNS": "1",
	}
	for k, v := range more {
		vars[k] = v
	}
	return vars, outputs, summary
}

// TestActionOAuthFederation: with oauth-federation: github and nothing
// else (no stored secret), the Action asks the runner's OIDC token service
// for the job's token, its audience the token endpoint, exchanges it for
// an access token and evaluates the protected server. Every credential is
// registered with the runner's log masking and appears in no output.
func TestActionOAuthFederation(t *testing.T) {
	rn := oauthtest.NewRunner(t)
	as, res := echoingAuthServer(t, oauthtest.Options{}, oauthtest.Client{})
	as.Trust(oauthtest.RunnerIssuer, &rn.Key.PublicKey)
	dir := t.TempDir()
	more := rn.Env()
	more["INPUT_SERVER-URL"] = res.URL()
	more["INPUT_OAUTH-FEDERATION"] = "github"
	vars, outputs, summary := scheduleStep(dir, more)
	code, stdout, stderr := runCLI(t, env(vars), "action")
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
	mustContain(t, "stdout", stdout, "::add-mask::"+rn.RequestToken+"\n")
	for _, tok := range issued {
		mustContain(t, "stdout", stdout, "::add-mask::"+tok+"\n")
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

// stepSinks is outputs with the step files in place of stdout (which holds
// the ::add-mask:: commands, the one place a secret must appear).
func stepSinks(out, stderr, stepFiles string) map[string]string {
	s := outputs(out, "", stderr)
	s["step files"] = stepFiles
	delete(s, "stdout")
	return s
}

// TestActionOAuthClientSecret: the client secret input reaches the CLI as
// a reference, is masked in the runner's log, and a missing permission for
// federation is exit 2 that says which.
func TestActionOAuthClientSecret(t *testing.T) {
	const secret = "action-client/secret+1"
	_, res := echoingAuthServer(t, oauthtest.Options{}, oauthtest.Client{ID: "ci-action", Secret: secret})
	dir := t.TempDir()
	vars, outputs, _ := scheduleStep(dir, map[string]string{
		"INPUT_SERVER-URL": res.URL(), "INPUT_OAUTH-CLIENT-ID": "ci-action", "INPUT_OAUTH-CLIENT-SECRET": secret,
	})
	code, stdout, stderr := runCLI(t, env(vars), "action")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if o := readOutputs(t, outputs); o["exit-code"] != "0" || o["passed"] != "true" {
		t.Errorf("outputs %v, want exit-code 0 and passed true", o)
	}
	mustContain(t, "stdout", stdout, "::add-mask::"+secret+"\n")
	if strings.Contains(stderr, secret) {
		t.Error("stderr holds the secret")
	}
	// Host mode: the secret as a $VAR the step's env sets.
	vars, _, _ = scheduleStep(t.TempDir(), map[string]string{"OAUTH_SECRET": secret})
	code, stdout, stderr = runCLI(t, env(vars), "action", "--server-url", res.URL(), "--oauth-client-id", "ci-action", "--oauth-client-secret", "$OAUTH_SECRET")
	if code != 0 {
		t.Fatalf("host mode: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	// Federation without permissions: id-token: write.
	vars, outputs, _ = scheduleStep(t.TempDir(), map[string]string{"INPUT_SERVER-URL": res.URL(), "INPUT_OAUTH-FEDERATION": "github"})
	code, _, stderr = runCLI(t, env(vars), "action")
	o := readOutputs(t, outputs)
	if code != 2 || o["exit-code"] != "2" || !strings.Contains(o["error"], "id-token: write") {
		t.Errorf("federation without the permission: exit %d, outputs %v\n%s", code, o, stderr)
	}
}

// dockerFederation is the Docker action's federation run, as the runner
// starts it for a job with permissions: id-token: write: the runner adds
// ACTIONS_ID_TOKEN_REQUEST_URL and ACTIONS_ID_TOKEN_REQUEST_TOKEN to the
// container's environment (ContainerActionHandler.cs), and the only input
// is oauth-federation: github. The OIDC token service, the authorization
// server and the protected server listen on the host's loopback, which the
// container shares (--network host).
func dockerFederation(t *testing.T, image, apiURL string) {
	rn := oauthtest.NewRunner(t)
	as, res := echoingAuthServer(t, oauthtest.Options{}, oauthtest.Client{})
	as.Trust(oauthtest.RunnerIssuer, &rn.Key.PublicKey)
	l := newRunnerLayout(t)
	inputs := rn.Env()
	inputs["INPUT_SERVER-URL"] = res.URL()
	inputs["INPUT_OAUTH-FEDERATION"] = "github"
	inputs["INPUT_COMMENT"] = "false"
	inputs["INPUT_GITHUB-TOKEN"] = "ghs_0123456789abcdefDOCKER"
	r := runDockerAction(t, image, l, inputs, apiURL)
	if r.code != 0 || r.outputs["passed"] != "true" {
		t.Fatalf("exit %d, passed %q\nstdout:\n%s\nstderr:\n%s", r.code, r.outputs["passed"], r.stdout, r.stderr)
	}
	// One assertion per token request: the run's, and those of the auth
	// group's probes (auth/query-token-refused, auth/other-audience-refused…),
	// each for the token endpoint, each token masked.
	issued := as.Issued()
	if aud := rn.Audiences(); len(issued) == 0 || len(aud) == 0 || slices.ContainsFunc(aud, func(a string) bool { return a != as.TokenEndpoint() }) {
		t.Fatalf("tokens issued %d, ID token audiences %q, want the token endpoint each time", len(issued), aud)
	}
	mustContain(t, "stdout", r.stdout, "::add-mask::"+rn.RequestToken)
	for _, tok := range issued {
		mustContain(t, "stdout", r.stdout, "::add-mask::"+tok)
	}
	report, _ := os.ReadFile(filepath.Join(l.workspace, filepath.FromSlash(r.outputs["report-path"])))
	if !bytes.Contains(report, []byte("ECHO[")) {
		t.Fatal("the echo never reached report.json")
	}
	for name, b := range map[string][]byte{"report.json": report, "outputs": r.rawOutputFile, "summary": r.summary, "stderr": []byte(r.stderr)} {
		for _, secret := range append([]string{rn.RequestToken}, issued...) {
			if bytes.Contains(b, []byte(secret)) {
				t.Errorf("a credential leaked into %s", name)
			}
		}
	}
}

// TestExampleWorkflowsIDToken: id-token: write, which lets a job mint
// tokens in the repository's name, appears only where a job uses
// oauth-federation, and each OAuth example skips fork pull requests, which
// get neither secrets nor that permission.
func TestExampleWorkflowsIDToken(t *testing.T) {
	files, _ := filepath.Glob("examples/workflows/*.yml")
	federation := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		uses := strings.Contains(s, "oauth-federation: github")
		if strings.Contains(s, "id-token: write") != uses {
			t.Errorf("%s: id-token: write %v, oauth-federation %v: the permission belongs to the federation example only", f, strings.Contains(s, "id-token: write"), uses)
		}
		if uses {
			federation++
		}
		if strings.Contains(s, "oauth-") && !strings.Contains(s, "github.event.pull_request.head.repo.full_name == github.repository") {
			t.Errorf("%s: an OAuth example must skip fork pull requests", f)
		}
	}
	if federation != 1 {
		t.Errorf("%d federation examples, want 1", federation)
	}
}

// dockerFederationHydra is dockerFederation against real components: Ory
// Hydra trusting the runner's issuer for this repository's subject (its
// jwt-bearer trust relationship), and the Go SDK's protected server. Hydra
// authenticates a client on every token request, so the run names the
// public client registered for federation (oauth-client-id, no secret).
func dockerFederationHydra(t *testing.T, image, apiURL string) {
	d := requireRealAuth(t)
	rn := oauthtest.NewRunner(t)
	a := startRealAS(t, d, "hydra")
	a.trustRunner(t, oauthtest.RunnerIssuer, &rn.Key.PublicKey)
	l := newRunnerLayout(t)
	inputs := rn.Env()
	inputs["INPUT_SERVER-URL"] = a.server
	inputs["INPUT_OAUTH-FEDERATION"] = "github"
	inputs["INPUT_OAUTH-CLIENT-ID"] = "mcp-eval-federation"
	inputs["INPUT_COMMENT"] = "false"
	inputs["INPUT_GITHUB-TOKEN"] = "ghs_0123456789abcdefDOCKER"
	r := runDockerAction(t, image, l, inputs, apiURL)
	// The Go SDK server fails hard checks of its own: a verdict (exit 0 or
	// 1) means the token was obtained and taken.
	if r.code != 0 && r.code != 1 || r.outputs["exit-code"] != strconv.Itoa(r.code) {
		t.Fatalf("exit %d, outputs %v\nstdout:\n%s\nstderr:\n%s", r.code, r.outputs, r.stdout, r.stderr)
	}
	if aud := rn.Audiences(); len(aud) == 0 || slices.ContainsFunc(aud, func(x string) bool { return x != a.issuer+"/oauth2/token" }) {
		t.Errorf("the runner was asked for audiences %q, want Hydra's token endpoint each time", aud)
	}
	report, _ := os.ReadFile(filepath.Join(l.workspace, filepath.FromSlash(r.outputs["report-path"])))
	if !bytes.Contains(report, []byte(`"auth/`)) && !bytes.Contains(report, []byte(`"discover/`)) {
		t.Fatalf("no checks in the report:\n%.500s", report)
	}
	var masked []string
	for _, line := range strings.Split(r.stdout, "\n") {
		if v, ok := strings.CutPrefix(line, "::add-mask::"); ok && jwtRE.MatchString(v) {
			masked = append(masked, v)
		}
	}
	if len(masked) < 2 {
		t.Errorf("want the job's ID token and Hydra's access token masked in the log, got %d JWTs masked", len(masked))
	}
	for name, b := range map[string][]byte{"report.json": report, "outputs": r.rawOutputFile, "summary": r.summary, "stderr": []byte(r.stderr)} {
		if m := jwtRE.Find(b); m != nil {
			t.Errorf("%s holds a JWT: %.40s…", name, m)
		}
	}
}
