package pipeline_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-eval/mcp-eval/app/apptest"
	"github.com/mcp-eval/mcp-eval/internal/mcptest"
	"github.com/mcp-eval/mcp-eval/internal/oauth/oauthtest"
	"github.com/mcp-eval/mcp-eval/internal/redact/redacttest"
	"github.com/mcp-eval/mcp-eval/report"
)

// TestPassthroughDuringModelLayers: a protected server whose tool calls
// its upstream with the client's token (a proxy tool) for a city, which
// only the model run names: the listener is empty when the conformance
// layer ends; the model run's tools/call
// forwards the run's token, and auth/no-token-passthrough fails the run
// (exit 1) with that request as evidence, token masked. The same server
// with a tool that forwards nothing passes the check with the listener's
// count.
func TestPassthroughDuringModelLayers(t *testing.T) {
	for _, forward := range []bool{true, false} {
		t.Run(map[bool]string{true: "forwards", false: "own credential"}[forward], func(t *testing.T) {
			listener := apptest.FreeAddr(t)
			as := oauthtest.NewAuthServer(t, oauthtest.Options{})
			h := mcptest.NewHandler(mcptest.Options{})
			var toolCalls atomic.Int64
			proxy := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("Mcp-Method") == "tools/call" {
					// The tool calls its upstream for a city only: the
					// conformance layer's setup calls the safe tools with
					// sample arguments ({}), the model with Paris.
					b, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
					r.Body = io.NopCloser(bytes.NewReader(b))
					if !bytes.Contains(b, []byte(`"city"`)) {
						h.ServeHTTP(w, r)
						return
					}
					toolCalls.Add(1)
					auth := "Bearer the-upstream-s-own-token-0123456789"
					if forward {
						auth = r.Header.Get("Authorization")
					}
					req, _ := http.NewRequest(http.MethodGet, "http://"+listener+"/upstream/forecast", nil)
					req.Header.Set("Authorization", auth)
					hc := &http.Client{Timeout: 5 * time.Second}
					if resp, err := hc.Do(req); err == nil {
						resp.Body.Close()
					}
				}
				h.ServeHTTP(w, r)
			})
			res := &oauthtest.Resource{AS: as, Path: "/mcp", Next: proxy}
			res.Serve(t)
			as.AddClient(oauthtest.Client{ID: "mcp-eval-ci", Secret: "cl1ent-secret-value", Audiences: []string{res.ID}})

			dir := t.TempDir()
			var calls atomic.Int64
			model := scriptedOpenAI(t, &calls)
			t.Cleanup(model.Close)
			tasks := filepath.Join(dir, "tasks.yaml")
			if err := os.WriteFile(tasks, []byte("version: 1\ncases:\n  - id: forecast-paris\n    prompt: What is the forecast for Paris?\n    expect_tool: get_forecast\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "out")
			env := apptest.Env(map[string]string{"OPENAI_BASE_URL": model.URL + "/v1", "MCP_EVAL_CLIENT_SECRET": "cl1ent-secret-value"})
			code, stdout, stderr := runCommand(t, env, "run", "--server-url", res.URL(), "--oauth-client-id", "mcp-eval-ci",
				"--oauth-client-secret", "$MCP_EVAL_CLIENT_SECRET", "--passthrough-listener", listener, "--checks", "auth",
				"--layers", "conformance,behavior", "--models", "openai:scripted", "--golden", tasks, "--runs", "1", "--gate", "fixed",
				"--out", out, "--cache-dir", filepath.Join(dir, "cache"))
			if toolCalls.Load() == 0 {
				t.Fatalf("no tools/call reached the server (exit %d)\n%s\n%s", code, stdout, stderr)
			}
			r := apptest.LoadReport(t, filepath.Join(out, "report.json"))
			var got *report.Check
			for i := range r.Checks {
				if r.Checks[i].ID == "auth/no-token-passthrough" {
					got = &r.Checks[i]
				}
			}
			if got == nil {
				t.Fatalf("no auth/no-token-passthrough in the report\n%s", stderr)
			}
			if !forward {
				if code != 0 || got.Status != report.StatusPass || !strings.Contains(got.Info, "during the run") {
					t.Fatalf("exit %d, %s %q %q\n%s", code, got.Status, got.Message, got.Info, stderr)
				}
				return
			}
			if code != 1 || got.Status != report.StatusFail || !got.Hard ||
				!strings.Contains(got.Message, "GET /upstream/forecast") || !strings.Contains(got.Message, "while the model layers called tools") {
				t.Fatalf("exit %d, %s hard=%v %q\n%s", code, got.Status, got.Hard, got.Message, stderr)
			}
			var ev map[string]any
			if err := json.Unmarshal(got.Evidence, &ev); err != nil || ev["foundIn"] != "header Authorization" {
				t.Errorf("evidence %s (%v)", got.Evidence, err)
			}
			for name, text := range apptest.Sinks(out, stdout, stderr) {
				for _, tok := range as.Issued() {
					for _, sp := range redacttest.Spellings(tok) {
						if strings.Contains(text, sp) {
							t.Errorf("%s holds a token the run presented", name)
						}
					}
				}
			}
		})
	}
}
