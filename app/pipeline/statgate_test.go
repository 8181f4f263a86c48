package pipeline_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcp-eval/mcp-eval/app/apptest"
	"github.com/mcp-eval/mcp-eval/report"
)

// forecastGolden is one soft case that the flaky model passes 3 of its
// first 5 runs.
const forecastGolden = `version: 1
cases:
  - id: forecast-paris
    prompt: What is the forecast for Paris?
    expect_tool: get_forecast
`

// flakyOpenAI is an OpenAI Chat Completions endpoint whose model calls
// get_forecast for the forecast prompt, except on the first and third
// conversations, which it answers in text: three of the first five runs
// pass, every later run passes.
func flakyOpenAI(t *testing.T, conversations *atomic.Int64) *httptest.Server {
	return httptest.NewServer(withModelList(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		b, _ := io.ReadAll(r.Body)
		body := string(b)
		msg := `{"role":"assistant","content":"It will be sunny in Paris."}`
		finish := "stop"
		if !strings.Contains(body, `"role":"tool"`) {
			if n := conversations.Add(1); n != 1 && n != 3 {
				msg = `{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_forecast","arguments":"{\"city\":\"Paris\"}"}}]}`
				finish = "tool_calls"
			} else {
				msg = `{"role":"assistant","content":"I cannot look that up."}`
			}
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"scripted","choices":[{"index":0,"message":%s,"finish_reason":%q}],"usage":{"prompt_tokens":50,"completion_tokens":10,"total_tokens":60}}`, msg, finish)
	}))
}

// TestStatisticalGate runs the default gate end to end: a soft case that
// passes 3 of its first 5 runs (which the fixed rule fails) is undecided,
// runs again at the design's looks (8, then 12 runs), is decided at 10 of
// 12 (P(X ≥ 10 | 12, 0.5) = 0.019 ≤ 0.05: futility), and passes, with its
// decision in report.json and the gate's statistics in every output; the
// same cache under --gate fixed replays the first five runs and fails, as
// the fixed rule always did.
func TestStatisticalGate(t *testing.T) {
	t.Parallel()
	golden := forecastGolden
	var conversations atomic.Int64
	model := flakyOpenAI(t, &conversations)
	defer model.Close()
	m := newModelRig(t, golden)
	m.use(golden, model.URL)
	code, stdout, stderr, path := m.run("stat", "--layers", "behavior", "--runs", "5", "--model-concurrency", "1", "--gate", "statistical", "--judge-model", "none")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	r := apptest.LoadReport(t, path)
	c := r.Cases[0]
	d := c.Decision
	if c.Runs != 12 || c.Passed != 10 || d == nil || d.Verdict != report.VerdictPass || d.Look != 3 || c.Status != report.StatusPass {
		t.Fatalf("case %+v decision %+v", c, d)
	}
	st := r.Gate.Statistics
	if st == nil || st.RunsUsed != 12 || st.FixedRuns != 5 || st.Cases != 1 || st.Alpha != 0.05 {
		t.Fatalf("statistics %+v", st)
	}
	if n := conversations.Load(); n != 12 {
		t.Errorf("%d conversations, want 12", n)
	}
	summary, _ := os.ReadFile(filepath.Join(filepath.Dir(path), "summary.md"))
	for _, want := range []string{"Statistical gate: a run on an unchanged server and model fails with probability at most 0.05", "Runs: 12, 2.40×"} {
		if !strings.Contains(stdout, want) || !strings.Contains(string(summary), want) {
			t.Errorf("stdout or summary.md lacks %q:\n%s\n%s", want, stdout, summary)
		}
	}

	// The seed rule on the same cache: the first five runs replay (no model
	// call), 3 of 5 is below 4 of 5, and the case fails.
	code, stdout, _, path = m.run("fixed", "--layers", "behavior", "--runs", "5", "--model-concurrency", "1", "--judge-model", "none")
	if code != 1 || conversations.Load() != 12 {
		t.Fatalf("--gate fixed: exit %d, %d conversations (want 1, 12)\n%s", code, conversations.Load(), stdout)
	}
	if r := apptest.LoadReport(t, path); r.Cases[0].Decision != nil || r.Gate.Statistics != nil || r.Cases[0].Runs != 5 {
		t.Errorf("--gate fixed recorded statistics: %+v %+v", r.Cases[0], r.Gate.Statistics)
	}
}

// TestStatisticalGateBudget: a case its first runs leave undecided (3 of
// 5) whose further runs the model budget cuts short is incomplete: not a
// pass, not a regression; the run exits 1 with that reason and records
// the case's decision as incomplete, naming the budget.
func TestStatisticalGateBudget(t *testing.T) {
	t.Parallel()
	golden := forecastGolden
	var conversations atomic.Int64
	flaky := flakyOpenAI(t, &conversations)
	defer flaky.Close()
	var calls atomic.Int64
	stop := make(chan struct{})
	client := &http.Client{Transport: &http.Transport{}}
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The first look's eight calls (three runs that call the tool,
		// two that answer in text) go through; every later call hangs
		// until the budget cuts it.
		if r.Method == http.MethodPost && calls.Add(1) > 8 {
			select {
			case <-r.Context().Done():
			case <-stop:
			}
			return
		}
		req, _ := http.NewRequestWithContext(r.Context(), r.Method, flaky.URL+r.URL.Path, r.Body)
		req.Header = r.Header.Clone()
		resp, err := client.Do(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
		w.WriteHeader(resp.StatusCode)
		io.Copy(w, resp.Body)
	}))
	defer slow.Close()
	defer close(stop)
	m := newModelRig(t, golden)
	m.use(golden, slow.URL)
	code, stdout, stderr, path := m.run("budget", "--layers", "behavior", "--runs", "5", "--model-concurrency", "1",
		"--gate", "statistical", "--judge-model", "none", "--model-budget", "3s", "--model-timeout", "30s")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, stdout, stderr)
	}
	r := apptest.LoadReport(t, path)
	c := r.Cases[0]
	if d := c.Decision; d == nil || d.Verdict != report.VerdictIncomplete || !strings.Contains(d.Stopped, "--model-budget 3s") || c.Runs != 5 {
		t.Fatalf("case %+v decision %+v", c, c.Decision)
	}
	if st := r.Gate.Statistics; st == nil || len(st.Incomplete) != 1 || len(r.Gate.Regressions)+len(r.Gate.New) != 0 {
		t.Fatalf("gate %+v", r.Gate)
	}
	if !strings.Contains(stdout, "left undecided when the run stopped") {
		t.Errorf("the terminal does not say the run is incomplete:\n%s", stdout)
	}
}
