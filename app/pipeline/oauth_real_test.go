package pipeline_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-eval/mcp-eval/app/apptest"
	"github.com/mcp-eval/mcp-eval/internal/oauth"
	"github.com/mcp-eval/mcp-eval/llm/llmtest"
	"github.com/mcp-eval/mcp-eval/mcp"
)

// The OAuth client against real components: the Go SDK
// v1.8.0's protected server (testdata/servers/go-sdk-auth) behind
// oidc-provider 9.13.3 and Ory Hydra v2.3.0, as .ci/install-deps.sh
// installs them. Each test skips with one line without them (fails under
// CI=true, where .ci/run requires them).

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
	d := apptest.RequireRealAuth(t)
	for _, kind := range []string{"oidc-provider", "hydra"} {
		t.Run(kind, func(t *testing.T) {
			a := apptest.StartRealAS(t, d, kind)
			var calls atomic.Int64
			model := whoamiModel(t, &calls)
			dir := t.TempDir()
			golden := filepath.Join(dir, "tasks.yaml")
			os.WriteFile(golden, []byte("version: 1\ncases:\n  - id: who\n    prompt: Tell me who I am.\n    expect_tool: whoami\n    kind: hard\n"), 0o644)
			out := filepath.Join(dir, "out")
			code, stdout, stderr := runCommand(t, apptest.Env(map[string]string{"OPENAI_BASE_URL": model + "/v1", "CLIENT_SECRET": apptest.RealAuthSecret}),
				"run", "--server-url", a.Server, "--oauth-client-id", "mcp-eval-ci", "--oauth-client-secret", "$CLIENT_SECRET",
				"--layers", "conformance,behavior,resilience,telemetry", "--models", "openai:scripted", "--judge-model", "none",
				"--golden", golden, "--runs", "1", "--out", out, "--cache-dir", filepath.Join(dir, "cache"), "--verbose")
			// The Go SDK server fails some hard checks of its own (exit 1);
			// what matters is a verdict on every layer, not exit 2 or 3.
			if code != 0 && code != 1 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			if n := strings.Count(stderr, "mcp-eval: OAuth: access token from "+a.Issuer); n != 1 {
				t.Errorf("%d access tokens for one run, want 1:\n%s", n, stderr)
			}
			r := apptest.LoadReport(t, filepath.Join(out, "report.json"))
			if strings.Join(r.Layers, ",") != "conformance,behavior,resilience,telemetry" || len(r.Cases) != 1 || r.Cases[0].Passed != 1 {
				t.Errorf("layers %v, cases %+v", r.Layers, r.Cases)
			}
			if calls.Load() == 0 || r.Telemetry.ToolCalls["whoami"].Count == 0 {
				t.Errorf("the model's whoami call never reached the server (%d model calls, telemetry %+v)", calls.Load(), r.Telemetry.ToolCalls)
			}
			for name, text := range apptest.Sinks(out, stdout, stderr) {
				if m := apptest.JWT.FindString(text); m != "" {
					t.Errorf("%s holds a JWT (an access token?): %.40s…", name, m)
				}
				if strings.Contains(text, apptest.RealAuthSecret) {
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
	d := apptest.RequireRealAuth(t)
	asPort, srvPort := apptest.FreePort(t), apptest.FreePort(t)
	issuer := "http://127.0.0.1:" + strconv.Itoa(asPort)
	server := fmt.Sprintf("http://127.0.0.1:%d/mcp", srvPort)
	apptest.StartProc(t, "oidc-provider", []string{d.Node22, d.OIDCProvider, "--port", strconv.Itoa(asPort), "--client", "mcp-eval-ci:" + apptest.RealAuthSecret,
		"--resource", server, "--scope", "mcp:tools", "--ttl", "6"}, nil, issuer+"/.well-known/openid-configuration")
	apptest.StartProc(t, "go-sdk-auth", []string{d.GoAuthServer, "-http", fmt.Sprintf("127.0.0.1:%d", srvPort), "-issuer", issuer}, nil,
		fmt.Sprintf("http://127.0.0.1:%d/.well-known/oauth-protected-resource/mcp", srvPort))
	s, err := oauth.NewSession(oauth.SessionConfig{ServerURL: server, Credentials: oauth.Credentials{ClientID: "mcp-eval-ci", ClientSecret: apptest.RealAuthSecret}})
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
