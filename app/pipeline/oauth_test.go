package pipeline_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-eval/mcp-eval/app/apptest"
	"github.com/mcp-eval/mcp-eval/internal/oauth/oauthtest"
	"github.com/mcp-eval/mcp-eval/internal/redact/redacttest"
	"github.com/mcp-eval/mcp-eval/report"
)

// TestOAuthClientCredentialsRun: a conformance run of a server behind
// OAuth with nothing but a client id and a secret variable; the token the
// server echoes is in no output in any spelling, nor is the secret.
func TestOAuthClientCredentialsRun(t *testing.T) {
	const secret = "cl1ent/secret+value"
	for _, mode := range []struct {
		name string
		o    oauthtest.Options
		auth string
		// waive is a hard auth check the authorization server fails on
		// purpose, accepted with a waiver.
		waive string
	}{
		{"RFC 8707 resource, client_secret_basic", oauthtest.Options{}, "client_secret_basic", ""},
		// The ext-auth client-credentials extension wants client_secret_basic
		// or private_key_jwt listed; this server offers only _post to
		// exercise that path, which auth/as-client-credentials-metadata
		// reports.
		{"Hydra-like: OpenID only, audience, client_secret_post", oauthtest.Options{Mode: oauthtest.AudienceMode, OpenIDOnly: true, AuthMethods: []string{"client_secret_post"}}, "client_secret_post",
			"auth/as-client-credentials-metadata"},
	} {
		t.Run(mode.name, func(t *testing.T) {
			as, res, declared := apptest.EchoingAuthServerDeclared(t, mode.o, oauthtest.Client{ID: "mcp-eval-ci", Secret: secret, AuthMethod: mode.auth})
			out := filepath.Join(t.TempDir(), "out")
			args := []string{"conformance", "--server-url", res.URL(),
				"--oauth-client-id", "mcp-eval-ci", "--oauth-client-secret", "$MCP_EVAL_CLIENT_SECRET", "--out", out, "--runs", "1", "--verbose"}
			if mode.waive != "" {
				wf := filepath.Join(t.TempDir(), "waivers.yaml")
				if err := os.WriteFile(wf, []byte("- id: "+mode.waive+"\n  reason: the test authorization server lists only client_secret_post\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				args = append(args, "--waivers", wf)
			}
			code, stdout, stderr := runCommand(t, apptest.Env(map[string]string{"MCP_EVAL_CLIENT_SECRET": secret}), args...)
			if code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			// The run fetches its own token once; the auth group's probes
			// (auth/expired-token, auth/other-audience-refused…) ask the same
			// authorization server for tokens of their own, which are masked
			// like it.
			issued := as.Issued()
			if n := strings.Count(stderr, "mcp-eval: OAuth: access token from"); n != 1 || len(issued) == 0 {
				t.Fatalf("the run fetched its token %d times (%d tokens issued in all), want once", n, len(issued))
			}
			sinks := apptest.Sinks(out, stdout, stderr)
			if !strings.Contains(sinks["report.json"], "ECHO[") {
				t.Fatal("the echo never reached report.json, so this tests nothing")
			}
			var forbidden []string
			for _, v := range append([]string{"Bearer " + issued[0], secret}, issued...) {
				for _, sp := range redacttest.Spellings(v) {
					forbidden = append(forbidden, sp)
				}
			}
			for name, text := range sinks {
				for _, f := range forbidden {
					if strings.Contains(text, f) {
						t.Errorf("%s contains a credential as %q", name, f)
					}
				}
			}
			var r report.Report
			json.Unmarshal([]byte(sinks["report.json"]), &r)
			if !r.Passed() || r.Server.Era != "modern" {
				t.Errorf("report: passed %v, era %s", r.Passed(), r.Server.Era)
			}
			apptest.MustContain(t, "stderr", stderr, "mcp-eval: OAuth: access token from "+as.TokenEndpoint())
			// The extension is declared in the per-request capabilities
			// (the probes that send capabilities of their own aside).
			for _, m := range []string{"server/discover", "tools/list", "tools/call", "resources/list"} {
				if !declared(m) {
					t.Errorf("no %s request declared the oauth-client-credentials extension", m)
				}
			}
			if reqs := as.Requests(); reqs[0].Get("resource") != res.ID || reqs[0].Get("audience") != res.ID {
				t.Errorf("token request %v", reqs[0])
			}
		})
	}
}

func TestOAuthUsageErrors(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	rn := oauthtest.NewRunner(t)
	base := []string{"conformance", "--out", t.TempDir()}
	tests := []struct {
		name   string
		env    map[string]string
		args   []string
		code   int
		want   []string
		hidden string // must not appear
	}{
		{"with a stdio server", nil, []string{"--server-cmd", "node server.js", "--oauth-client-id", "x"}, 2,
			[]string{"--oauth-client-id is for an HTTP server", "environment"}, ""},
		{"a secret on the command line", nil, []string{"--server-url", srv.URL, "--oauth-client-id", "x", "--oauth-client-secret", "hunter2-hunter2"}, 2,
			[]string{"--oauth-client-secret: give the name of an environment variable", "'$CLIENT_SECRET'"}, "hunter2"},
		{"an unset secret variable", nil, []string{"--server-url", srv.URL, "--oauth-client-id", "x", "--oauth-client-secret", "$NOT_SET_ANYWHERE"}, 2,
			[]string{"--oauth-client-secret: environment variable NOT_SET_ANYWHERE is not set"}, ""},
		{"an id without a secret", nil, []string{"--server-url", srv.URL, "--oauth-client-id", "x"}, 2,
			[]string{"--oauth-client-id needs --oauth-client-secret"}, ""},
		{"plain HTTP off loopback", map[string]string{"S": "client-secret-1"}, []string{"--server-url", "http://mcp.example.com/mcp", "--oauth-client-id", "x", "--oauth-client-secret", "$S"}, 2,
			[]string{"only over HTTPS or to loopback"}, ""},
		{"federation outside a job with id-token: write", nil, []string{"--server-url", srv.URL, "--oauth-federation", "github"}, 2,
			[]string{"--oauth-federation", "ACTIONS_ID_TOKEN_REQUEST_URL", "id-token: write"}, ""},
		{"federation from elsewhere", nil, []string{"--server-url", srv.URL, "--oauth-federation", "gitlab"}, 2,
			[]string{"--oauth-federation must be github"}, ""},
		{"two assertions", map[string]string{"A": "a.b.c-assertion"}, []string{"--server-url", srv.URL, "--oauth-federation", "github", "--oauth-assertion", "$A"}, 2,
			[]string{"are exclusive"}, ""},
		{"a missing assertion file", nil, []string{"--server-url", srv.URL, "--oauth-assertion-file", "/nonexistent/token.jwt"}, 2,
			[]string{"--oauth-assertion-file", "/nonexistent/token.jwt"}, ""},
		{"a static Authorization header too", map[string]string{"S": "client-secret-1"}, []string{"--server-url", srv.URL, "--header", "Authorization: Bearer abcdefghij", "--oauth-client-id", "x", "--oauth-client-secret", "$S"}, 2,
			[]string{"--header Authorization and --oauth-client-id are exclusive"}, ""},
		{"a short secret cannot be masked", map[string]string{"S": "short"}, []string{"--server-url", srv.URL, "--oauth-client-id", "x", "--oauth-client-secret", "$S"}, 2,
			[]string{"--oauth-client-secret", "cannot be masked"}, ""},
		{"federation with the runner's variables is fine until the network", rn.Env(), []string{"--server-url", srv.URL, "--oauth-federation", "github"}, 3,
			[]string{"no MCP server at the target"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCommand(t, apptest.Env(tt.env), append(base, tt.args...)...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout, stderr)
			}
			apptest.MustContain(t, "stderr", stderr, tt.want...)
			if tt.hidden != "" && strings.Contains(stderr+stdout, tt.hidden) {
				t.Errorf("the output quotes %q:\n%s", tt.hidden, stderr)
			}
		})
	}
}

// TestOAuthCannotEvaluate: each way authorization fails is one line and
// exit 3, naming what went wrong.
func TestOAuthCannotEvaluate(t *testing.T) {
	noMetadata := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="mcp"`)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer noMetadata.Close()
	_, refusing := apptest.EchoingAuthServer(t, oauthtest.Options{}, oauthtest.Client{ID: "ci", Secret: "another-secret-value"})
	tests := []struct {
		name string
		url  string
		want []string
	}{
		{"no metadata", noMetadata.URL + "/mcp", []string{"no protected-resource metadata found: tried " + noMetadata.URL + "/.well-known/oauth-protected-resource/mcp (HTTP 401), " + noMetadata.URL + "/.well-known/oauth-protected-resource (HTTP 401)"}},
		{"the token endpoint refuses", refusing.URL(), []string{`error="invalid_client"`, `error_description="client authentication failed"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCommand(t, apptest.Env(map[string]string{"S": "client-secret-1"}), "conformance", "--out", t.TempDir(),
				"--server-url", tt.url, "--oauth-client-id", "ci", "--oauth-client-secret", "$S")
			if code != 3 || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || stdout != "" {
				t.Fatalf("exit %d, want 3 with one line\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			apptest.MustContain(t, "stderr", stderr, tt.want...)
		})
	}
}
