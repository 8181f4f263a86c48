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

// TestJudgeRotation: without --judge-model each tested model is graded by
// the next one of --models (the last by the first), so none grades itself
// when another is tested; a single model grades itself, said with the fix;
// --judge-model grades every model; none turns the judge off.
func TestJudgeRotation(t *testing.T) {
	t.Parallel()
	golden := filepath.Join(t.TempDir(), "tasks.yaml")
	if err := os.WriteFile(golden, []byte("- {id: a, prompt: hi, expect_tool: null, rubric: says hello}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		models, judge string
		want          map[string]string // tested model → judge
		spec, text    string
		self          bool
	}{
		{"openai:a,anthropic:b,openai:c", "", map[string]string{"openai:a": "anthropic:b", "anthropic:b": "openai:c", "openai:c": "openai:a"},
			"", "openai:c graded anthropic:b, anthropic:b graded openai:a, openai:a graded openai:c", false},
		{"openai:a,openai:b", "", map[string]string{"openai:a": "openai:b", "openai:b": "openai:a"}, "", "openai:b graded openai:a, openai:a graded openai:b", false},
		{"openai:a", "", map[string]string{"openai:a": "openai:a"}, "openai:a", "openai:a", true},
		{"openai:a,openai:b", "openai:j", map[string]string{"openai:a": "openai:j", "openai:b": "openai:j"}, "openai:j", "openai:j", false},
		{"openai:a,openai:b", "openai:b", map[string]string{"openai:a": "openai:b", "openai:b": "openai:b"}, "openai:b", "openai:b", true},
		{"openai:a,openai:b", "none", map[string]string{"openai:a": "", "openai:b": ""}, "", "", false},
	} {
		p, err := NewPlan(PlanOptions{Behavior: true, DryRun: true, PlanFlags: PlanFlags{Golden: golden, Models: tt.models, JudgeModel: tt.judge}})
		if err != nil {
			t.Fatal(err)
		}
		for m, want := range tt.want {
			if got := p.JudgeOf(m); got != want {
				t.Errorf("--models %s --judge-model %q: %s is judged by %q; want %q", tt.models, tt.judge, m, got, want)
			}
		}
		if p.JudgeSpec() != tt.spec || p.JudgeText() != tt.text || p.JudgeOff() != (tt.judge == "none") {
			t.Errorf("--models %s --judge-model %q: spec %q text %q off %v; want %q %q", tt.models, tt.judge, p.JudgeSpec(), p.JudgeText(), p.JudgeOff(), tt.spec, tt.text)
		}
		w := p.selfGradingWarning()
		if tested, byDefault := p.JudgeTested(); tested != tt.self || (w != "") != tt.self || byDefault != (tt.self && tt.judge == "") {
			t.Errorf("--models %s --judge-model %q: self-graded %v (by default %v), warning %q; want self-graded %v", tt.models, tt.judge, tested, byDefault, w, tt.self)
		}
		if tt.self && tt.judge == "" && !strings.Contains(w, "add a second model to --models or set --judge-model") {
			t.Errorf("single model: warning %q lacks the fix", w)
		}
	}
}
