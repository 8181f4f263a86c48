package main

import (
	"bytes"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-eval/mcp-eval/internal/oauth"
	"github.com/mcp-eval/mcp-eval/internal/proc"
	"github.com/mcp-eval/mcp-eval/llm/llmtest"
	"github.com/mcp-eval/mcp-eval/mcp"
)

// The client half of issue 17 against real components: the Go SDK
// v1.8.0's protected server (testdata/servers/go-sdk-auth) behind
// oidc-provider 9.13.3 and Ory Hydra v2.3.0, as .ci/install-deps.sh
// installs them. Each test skips with one line without them (fails under
// CI=true, where .ci/run requires them).

const realAuthSecret = "mcp-eval-real-client-secret-0123"

// realAuth are the installed components.
type realAuth struct{ node22, oidcProvider, hydra, goAuthServer string }

func requireRealAuth(t *testing.T) realAuth {
	t.Helper()
	if testing.Short() {
		t.Skip("real authorization servers skipped in -short mode")
	}
	d := realAuth{node22: os.Getenv("MCP_EVAL_NODE22"), oidcProvider: os.Getenv("MCP_EVAL_OIDC_PROVIDER"), hydra: os.Getenv("MCP_EVAL_HYDRA")}
	var missing []string
	for name, v := range map[string]string{"MCP_EVAL_NODE22": d.node22, "MCP_EVAL_OIDC_PROVIDER": d.oidcProvider, "MCP_EVAL_HYDRA": d.hydra} {
		if v == "" {
			missing = append(missing, name)
		}
	}
	_, noSource := os.Stat("testdata/servers/go-sdk-auth")
	if noSource != nil {
		missing = append(missing, "testdata/servers/go-sdk-auth")
	}
	if len(missing) > 0 {
		msg := fmt.Sprintf("oidc-provider, Hydra and the Go SDK's protected server are not installed (%s): run .ci/install-deps.sh and source its env.sh", strings.Join(missing, ", "))
		// Under CI the components must be there once their sources are.
		if os.Getenv("CI") == "true" && noSource == nil {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	d.goAuthServer = filepath.Join(t.TempDir(), "go-sdk-auth")
	build := exec.Command("go", "build", "-o", d.goAuthServer, "./testdata/servers/go-sdk-auth")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./testdata/servers/go-sdk-auth: %v\n%s", err, out)
	}
	return d
}

// startProc runs argv with extra environment in its own process group
// (internal/proc), waits until ready answers 200 (30 s at most), and stops
// it with everything it started when the test ends.
func startProc(t *testing.T, name string, argv, extra []string, ready string) {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), extra...)
	log := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = log, log
	p, err := proc.Start(cmd)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	t.Cleanup(func() { p.Stop(nil) })
	hc := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if resp, err := hc.Get(ready); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		select {
		case <-p.Exited():
			t.Fatalf("%s exited before %s answered:\n%s", name, ready, log.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %s did not answer 200 within 30 s:\n%s", name, ready, log.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// lockedBuffer is a process's output, read while it still writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// realAS is one running authorization server with a protected server
// behind it.
type realAS struct {
	name, issuer, server string
	admin                string // Hydra's admin API
}

// startRealAS starts the authorization server kind and the Go SDK's
// protected server trusting it, and registers the client mcp-eval-ci with
// realAuthSecret (Hydra: allowed the server as its audience).
func startRealAS(t *testing.T, d realAuth, kind string) *realAS {
	asPort, srvPort := freePort(t), freePort(t)
	a := &realAS{name: kind, issuer: "http://127.0.0.1:" + strconv.Itoa(asPort), server: fmt.Sprintf("http://127.0.0.1:%d/mcp", srvPort)}
	switch kind {
	case "oidc-provider":
		startProc(t, kind, []string{d.node22, d.oidcProvider, "--port", strconv.Itoa(asPort), "--client", "mcp-eval-ci:" + realAuthSecret,
			"--resource", a.server, "--scope", "mcp:tools"}, nil, a.issuer+"/.well-known/openid-configuration")
	case "hydra":
		adminPort := freePort(t)
		a.admin = "http://127.0.0.1:" + strconv.Itoa(adminPort)
		startProc(t, kind, []string{d.hydra, "serve", "all", "--dev", "--sqa-opt-out"}, []string{
			"DSN=memory", "SECRETS_SYSTEM=mcp-eval-real-system-secret-0123456789", "URLS_SELF_ISSUER=" + a.issuer,
			"SERVE_PUBLIC_HOST=127.0.0.1", "SERVE_PUBLIC_PORT=" + strconv.Itoa(asPort),
			"SERVE_ADMIN_HOST=127.0.0.1", "SERVE_ADMIN_PORT=" + strconv.Itoa(adminPort),
			"STRATEGIES_ACCESS_TOKEN=jwt", "LOG_LEVEL=warn"}, a.issuer+"/.well-known/openid-configuration")
		a.hydraPost(t, "/admin/clients", map[string]any{"client_id": "mcp-eval-ci", "client_secret": realAuthSecret,
			"grant_types": []string{"client_credentials"}, "audience": []string{a.server}, "scope": "mcp:tools",
			"token_endpoint_auth_method": "client_secret_basic"})
	}
	startProc(t, "go-sdk-auth", []string{d.goAuthServer, "-http", fmt.Sprintf("127.0.0.1:%d", srvPort), "-issuer", a.issuer}, nil,
		fmt.Sprintf("http://127.0.0.1:%d/.well-known/oauth-protected-resource/mcp", srvPort))
	return a
}

// hydraPost posts body to Hydra's admin API and wants 201.
func (a *realAS) hydraPost(t *testing.T, path string, body any) {
	t.Helper()
	b, _ := json.Marshal(body)
	resp, err := http.Post(a.admin+path, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatalf("hydra %s: %v", path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
		t.Fatalf("hydra %s: HTTP %d %s", path, resp.StatusCode, msg)
	}
}

// trustRunner makes Hydra take the runner's job tokens as jwt-bearer
// assertions (its trust relationships for RFC 7523 grants) and registers
// the public client mcp-eval-federation for them: Hydra authenticates a
// client on every token request, so a federated run names this one.
func (a *realAS) trustRunner(t *testing.T, issuer string, key *rsa.PublicKey) {
	t.Helper()
	jwk := map[string]string{"kty": "RSA", "kid": "runner-key", "use": "sig", "alg": "RS256",
		"n": base64.RawURLEncoding.EncodeToString(key.N.Bytes()),
		"e": base64.RawURLEncoding.EncodeToString(big.NewInt(int64(key.E)).Bytes())}
	a.hydraPost(t, "/admin/trust/grants/jwt-bearer/issuers", map[string]any{"issuer": issuer,
		"subject": "repo:org/repo:ref:refs/heads/main", "scope": []string{"mcp:tools"}, "jwk": jwk,
		"expires_at": time.Now().Add(time.Hour).UTC().Format(time.RFC3339)})
	a.hydraPost(t, "/admin/clients", map[string]any{"client_id": "mcp-eval-federation",
		"grant_types": []string{"urn:ietf:params:oauth:grant-type:jwt-bearer"}, "audience": []string{a.server},
		"scope": "mcp:tools", "token_endpoint_auth_method": "none"})
}

// jwtRE finds a JWT: an access token that reached an output.
var jwtRE = regexp.MustCompile(`eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`)

// whoamiModel is an OpenAI Chat Completions endpoint whose model calls the
// protected server's whoami tool when asked who it is, and answers the
// tool's result in text; it refuses what the real API refuses.
func whoamiModel(t *testing.T, calls *atomic.Int64) string {
	srv := httptest.NewServer(withModelList(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		b, _ := io.ReadAll(r.Body)
		if msg := llmtest.Reject(r.URL.Path, b); msg != "" {
			http.Error(w, `{"error":{"message":`+strconv.Quote(msg)+`}}`, http.StatusBadRequest)
			return
		}
		var req struct {
			Model    string `json:"model"`
			Messages []struct {
				Role    string `json:"role"`
				Content any    `json:"content"`
			} `json:"messages"`
		}
		if json.Unmarshal(b, &req) != nil || len(req.Messages) == 0 {
			http.Error(w, `{"error":{"message":"'messages' is required"}}`, http.StatusBadRequest)
			return
		}
		last := req.Messages[len(req.Messages)-1]
		msg, finish := `{"role":"assistant","content":"I cannot help with that."}`, "stop"
		switch {
		case last.Role == "user" && strings.Contains(fmt.Sprint(last.Content), "who"):
			msg, finish = `{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"whoami","arguments":"{}"}}]}`, "tool_calls"
		case last.Role == "tool":
			msg = `{"role":"assistant","content":"You are the mcp-eval CI client."}`
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":%q,"choices":[{"index":0,"message":%s,"finish_reason":%q}],"usage":{"prompt_tokens":40,"completion_tokens":8,"total_tokens":48}}`, req.Model, msg, finish)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestOAuthEveryLayerRealAS is the "done when" for a new user with
// a client id and a secret: mcp-eval run with every layer against the Go
// SDK's protected server behind oidc-provider and behind Hydra, with
// nothing but --oauth-client-id and --oauth-client-secret. One token per
// run; the model's tool call reached the server with it; no JWT in any
// output.
func TestOAuthEveryLayerRealAS(t *testing.T) {
	d := requireRealAuth(t)
	for _, kind := range []string{"oidc-provider", "hydra"} {
		t.Run(kind, func(t *testing.T) {
			a := startRealAS(t, d, kind)
			var calls atomic.Int64
			model := whoamiModel(t, &calls)
			dir := t.TempDir()
			golden := filepath.Join(dir, "tasks.yaml")
			os.WriteFile(golden, []byte("version: 1\ncases:\n  - id: who\n    prompt: Tell me who I am.\n    expect_tool: whoami\n    kind: hard\n"), 0o644)
			out := filepath.Join(dir, "out")
			code, stdout, stderr := runCLI(t, env(map[string]string{"OPENAI_BASE_URL": model + "/v1", "CLIENT_SECRET": realAuthSecret}),
				"run", "--server-url", a.server, "--oauth-client-id", "mcp-eval-ci", "--oauth-client-secret", "$CLIENT_SECRET",
				"--layers", "conformance,behavior,resilience,telemetry", "--models", "openai:scripted", "--judge-model", "none",
				"--golden", golden, "--runs", "1", "--out", out, "--cache-dir", filepath.Join(dir, "cache"), "--verbose")
			// The Go SDK server fails some hard checks of its own (exit 1);
			// what matters is a verdict on every layer, not exit 2 or 3.
			if code != 0 && code != 1 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			if n := strings.Count(stderr, "mcp-eval: OAuth: access token from "+a.issuer); n != 1 {
				t.Errorf("%d access tokens for one run, want 1:\n%s", n, stderr)
			}
			r := loadReport(t, filepath.Join(out, "report.json"))
			if strings.Join(r.Layers, ",") != "conformance,behavior,resilience,telemetry" || len(r.Cases) != 1 || r.Cases[0].Passed != 1 {
				t.Errorf("layers %v, cases %+v", r.Layers, r.Cases)
			}
			if calls.Load() == 0 || r.Telemetry.ToolCalls["whoami"].Count == 0 {
				t.Errorf("the model's whoami call never reached the server (%d model calls, telemetry %+v)", calls.Load(), r.Telemetry.ToolCalls)
			}
			for name, text := range outputs(out, stdout, stderr) {
				if m := jwtRE.FindString(text); m != "" {
					t.Errorf("%s holds a JWT (an access token?): %.40s…", name, m)
				}
				if strings.Contains(text, realAuthSecret) {
					t.Errorf("%s holds the client secret", name)
				}
			}
		})
	}
}

// TestOAuthShortTokensRealAS: oidc-provider issues 6-second JWTs, which
// the Go SDK's server refuses once expired (it checks exp); requests from
// four goroutines for 20 s, on the real clock, are never refused but for
// the first, unauthenticated one: each token is renewed before it expires.
func TestOAuthShortTokensRealAS(t *testing.T) {
	d := requireRealAuth(t)
	asPort, srvPort := freePort(t), freePort(t)
	issuer := "http://127.0.0.1:" + strconv.Itoa(asPort)
	server := fmt.Sprintf("http://127.0.0.1:%d/mcp", srvPort)
	startProc(t, "oidc-provider", []string{d.node22, d.oidcProvider, "--port", strconv.Itoa(asPort), "--client", "mcp-eval-ci:" + realAuthSecret,
		"--resource", server, "--scope", "mcp:tools", "--ttl", "6"}, nil, issuer+"/.well-known/openid-configuration")
	startProc(t, "go-sdk-auth", []string{d.goAuthServer, "-http", fmt.Sprintf("127.0.0.1:%d", srvPort), "-issuer", issuer}, nil,
		fmt.Sprintf("http://127.0.0.1:%d/.well-known/oauth-protected-resource/mcp", srvPort))
	s, err := oauth.NewSession(oauth.SessionConfig{ServerURL: server, Credentials: oauth.Credentials{ClientID: "mcp-eval-ci", ClientSecret: realAuthSecret}})
	if err != nil {
		t.Fatal(err)
	}
	c, err := mcp.Connect(t.Context(), &mcp.HTTPTarget{URL: server}, mcp.Options{Timeout: 10 * time.Second, Authorizer: s})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	deadline := time.Now().Add(20 * time.Second)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				if _, err := c.ListTools(t.Context()); err != nil {
					t.Error(err)
					return
				}
				time.Sleep(50 * time.Millisecond)
			}
		}()
	}
	wg.Wait()
	st := s.Stats()
	if st.Retries != 1 {
		t.Errorf("%d requests re-sent after a 401, want only the first (the unauthenticated one): a token expired mid-run", st.Retries)
	}
	if st.TokenRequests < 4 {
		t.Errorf("%d token requests over 20 s of 6-second tokens, want renewals", st.TokenRequests)
	}
	t.Logf("20 s of 6-second tokens from oidc-provider: %d token requests, %d re-sent requests", st.TokenRequests, st.Retries)
}
