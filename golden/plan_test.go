package golden

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-eval/mcp-eval/llm"
)

// TestModelRetryBudget: --model-retry-budget bounds the retries of every
// model call, the judge's too: a provider that answers 429 with a
// Retry-After of 2 s fails the call at once under a 1 s budget, with the
// budget named, where the default budget would wait and retry.
func TestModelRetryBudget(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "2")
		http.Error(w, `{"error":{"message":"slow down","type":"rate_limit"}}`, http.StatusTooManyRequests)
	}))
	defer srv.Close()
	golden := filepath.Join(t.TempDir(), "tasks.yaml")
	if err := os.WriteFile(golden, []byte("- {id: a, prompt: hi, expect_tool: null}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"OPENAI_BASE_URL": srv.URL + "/v1"}
	p, err := NewPlan(PlanOptions{Behavior: true, Getenv: func(k string) string { return env[k] },
		PlanFlags: PlanFlags{Golden: golden, Models: "openai:m", JudgeModel: "openai:j", ModelTimeout: time.Second, ModelConcurrency: 1, ModelRetryBudget: time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	for name, prov := range map[string]llm.Provider{"model": p.providers["openai"], "judge": p.judges["openai:j"].provider} {
		start := time.Now()
		_, err := prov.Complete(context.Background(), llm.Request{Model: "m", MaxTokens: 16, Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}})
		if err == nil || !strings.Contains(err.Error(), "retry budget of 1s spent") {
			t.Errorf("%s: error %v, want the retry budget named", name, err)
		}
		// A hang guard, not a speed bound (the suite runs on loaded
		// machines): the error above names the budget that ended the call.
		if d := time.Since(start); d > 30*time.Second {
			t.Errorf("%s: the call took %v under a 1 s retry budget", name, d)
		}
	}
}
