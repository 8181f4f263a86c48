package pipeline_test

import (
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcp-eval/mcp-eval/app/apptest"
	"github.com/mcp-eval/mcp-eval/llm/llmtest"
)

// fakeModels are the models the tests' scripted OpenAI endpoints serve,
// listed at GET /v1/models as the real API lists them, so that the probe
// before the cases finds them.
var fakeModels = []string{"scripted", "judge", "lenient-judge", "strict-judge", "a", "b", "m"}

// withModelList answers GET …/models with fakeModels and leaves every
// other request to h.
func withModelList(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models") {
			llmtest.WriteJSON(w, llmtest.ModelList(fakeModels))
			return
		}
		h(w, r)
	}
}

// TestModelEndpointRefused: a model endpoint that refuses connections
// stops the run before the server starts, in under 3 s, with one line
// naming the provider, the base URL and the model (it cost 47 s and 25
// identical lines at --runs 1 before the probe).
func TestModelEndpointRefused(t *testing.T) {
	apptest.AtRoot(t) // the shipped files, named as at the checkout
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	for _, tt := range []struct {
		name, model, envVar, base, want string
	}{
		{"ollama", "ollama:qwen2.5:7b", "OLLAMA_HOST", addr, "mcp-eval: model ollama:qwen2.5:7b at http://" + addr + ": GET http://" + addr + "/api/tags: dial tcp " + addr + ": connect: connection refused"},
		{"openai-compatible", "openai:gpt-4.1-mini", "OPENAI_BASE_URL", "http://" + addr + "/v1", "mcp-eval: model openai:gpt-4.1-mini at http://" + addr + "/v1: GET http://" + addr + "/v1/models: dial tcp " + addr + ": connect: connection refused"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			start := time.Now()
			// The server command would sleep for a minute: the run must end
			// before it would have started it.
			code, stdout, stderr := runCommand(t, apptest.Env(map[string]string{tt.envVar: tt.base}), "run", "--server-cmd", "sleep 60",
				"--models", tt.model, "--golden", "golden/tasks.yaml", "--layers", "behavior", "--runs", "1", "--out", dir+"/out", "--cache-dir", dir+"/cache")
			// Under the server's 60 s sleep, with room for a loaded machine:
			// the run must not have started the server and waited for it.
			if d := time.Since(start); d > 40*time.Second {
				t.Errorf("took %v, want well under the server's 60 s", d)
			}
			if code != 3 {
				t.Errorf("exit %d, want 3\n%s\n%s", code, stdout, stderr)
			}
			if lines := strings.Split(strings.TrimSpace(stderr), "\n"); len(lines) != 1 || lines[0] != tt.want {
				t.Errorf("stderr:\n%s\nwant the one line\n%s", stderr, tt.want)
			}
		})
	}
}
