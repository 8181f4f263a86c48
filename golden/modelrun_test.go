package golden

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-eval/mcp-eval/llm/llmtest"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/report"
	"github.com/mcp-eval/mcp-eval/tasks/taskstest"
)

// noServer answers every tool call with a fixed text.
type noServer struct{}

func (noServer) CallTool(context.Context, string, map[string]any, map[string]any) (*mcp.CallToolResult, error) {
	return &mcp.CallToolResult{Content: []json.RawMessage{json.RawMessage(`{"type":"text","text":"sunny"}`)}}, nil
}

// chatServer is a Chat Completions endpoint that calls get_weather for a
// prompt about the weather and answers in text after the tool result; it
// counts the requests whose first user message contains each marker. A
// request for structured output (the judge's) gets the next of verdicts.
func chatServer(t *testing.T, asked map[string]*atomic.Int64, verdicts ...string) *httptest.Server {
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if bad := llmtest.Reject(r.URL.Path, b); bad != "" {
			http.Error(w, bad, http.StatusBadRequest)
			return
		}
		var req struct {
			Model          string          `json:"model"`
			ResponseFormat json.RawMessage `json:"response_format"`
			Messages       []struct {
				Role    string `json:"role"`
				Content any    `json:"content"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(b, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		for _, m := range req.Messages {
			if m.Role != "user" {
				continue
			}
			for marker, n := range asked {
				if strings.Contains(fmt.Sprint(m.Content), marker) {
					n.Add(1)
				}
			}
			break
		}
		msg := `{"role":"assistant","content":"It is sunny in Paris."}`
		finish := "stop"
		if len(req.ResponseFormat) > 0 {
			mu.Lock()
			v := verdicts[0]
			if len(verdicts) > 1 {
				verdicts = verdicts[1:]
			}
			mu.Unlock()
			b, _ := json.Marshal(v)
			msg = `{"role":"assistant","content":` + string(b) + `}`
		} else if last := req.Messages[len(req.Messages)-1]; last.Role == "user" {
			msg = `{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]}`
			finish = "tool_calls"
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"c1","object":"chat.completion","created":1,"model":%q,"choices":[{"index":0,"message":%s,"finish_reason":%q}],"usage":{"prompt_tokens":5,"completion_tokens":5,"total_tokens":10}}`, req.Model, msg, finish)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// rubricCase is a golden case graded by the judge.
const rubricCase = `- id: judged
  prompt: "Weather in Paris? (rubric case)"
  expect_tool: get_weather
  rubric: The answer says what the weather in Paris is.
`

// writeGolden writes a golden file in dir and returns its path.
func writeGolden(t *testing.T, dir, text string) string {
	t.Helper()
	path := filepath.Join(dir, "tasks.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// baseURL is an environment that points the openai provider at srv.
func baseURL(srv *httptest.Server) func(string) string {
	return func(k string) string {
		if k == "OPENAI_BASE_URL" {
			return srv.URL + "/v1"
		}
		return ""
	}
}

// TestJudgeNoneSkipsBeforeRunning: with --judge-model none a case with a
// rubric is skipped before it runs: the model is never asked (nothing is
// billed), the case has no runs and no "failed run" lines, and it counts
// against nothing; the other cases run as usual.
func TestJudgeNoneSkipsBeforeRunning(t *testing.T) {
	dir := t.TempDir()
	golden := writeGolden(t, dir, rubricCase+`- id: plain
  prompt: "Weather in Paris? (plain case)"
  expect_tool: get_weather
`)
	asked := map[string]*atomic.Int64{"rubric case": {}, "plain case": {}}
	getenv := baseURL(chatServer(t, asked))
	p, err := NewPlan(PlanOptions{Behavior: true, Getenv: getenv, PlanFlags: PlanFlags{Golden: golden, Models: "openai:m",
		JudgeModel: JudgeNone, ModelConcurrency: 2, ModelTimeout: 10 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	mr, err := p.Bind(noServer{}, taskstest.WeatherTools(t), RunOptions{Runs: 3, ModelConcurrency: 2, Stderr: io.Discard,
		RunFlags: RunFlags{NoCache: true, CacheDir: filepath.Join(dir, "cache"), MaxCallsPerTurn: 32}})
	if err != nil {
		t.Fatal(err)
	}
	s := mr.Behavior(context.Background())
	if n := asked["rubric case"].Load(); n != 0 {
		t.Errorf("the skipped rubric case asked the model %d times; want none", n)
	}
	if n := asked["plain case"].Load(); n != 6 {
		t.Errorf("the plain case asked the model %d times; want 6 (3 runs × 2 turns)", n)
	}
	byID := map[string]report.Case{}
	for _, c := range s.Cases {
		byID[c.ID] = c
	}
	j := byID["judged"]
	if j.Status != report.StatusSkip || j.Runs != 0 || j.Passed != 0 || len(j.Failures)+len(j.Errors)+len(j.RunOutcomes) != 0 ||
		!strings.Contains(j.Skipped, "--judge-model none") {
		t.Errorf("rubric case %+v; want skip with no runs, no failures and the reason", j)
	}
	if j.Failed() {
		t.Error("the skipped case counts against the run")
	}
	if c := byID["plain"]; c.Status != report.StatusPass || c.Runs != 3 {
		t.Errorf("plain case %+v; want 3 passing runs", c)
	}
	if got := s.Scores[KeyPassRate]; got != 1 {
		t.Errorf("behavior.passRate %v; want 1 (the skipped case counts nowhere)", got)
	}
}

// TestJudgeAnswerNotVerdictNotReplayed: a judge answer that is no verdict
// errors the run and is not recorded, so the next run with the same cache
// asks the judge again instead of replaying the error; the verdict it then
// gives is recorded with its reason, a pass included.
func TestJudgeAnswerNotVerdictNotReplayed(t *testing.T) {
	dir := t.TempDir()
	golden := writeGolden(t, dir, rubricCase)
	getenv := baseURL(chatServer(t, map[string]*atomic.Int64{}, "PASS, clearly", `{"reason": "it names the weather", "verdict": "pass"}`))
	run := func() report.Case {
		p, err := NewPlan(PlanOptions{Behavior: true, Getenv: getenv, PlanFlags: PlanFlags{Golden: golden, Models: "openai:m",
			JudgeModel: "openai:judge", ModelConcurrency: 1, ModelTimeout: 10 * time.Second}})
		if err != nil {
			t.Fatal(err)
		}
		mr, err := p.Bind(noServer{}, taskstest.WeatherTools(t), RunOptions{Runs: 1, ModelConcurrency: 1, Stderr: io.Discard,
			RunFlags: RunFlags{CacheDir: filepath.Join(dir, "cache"), MaxCallsPerTurn: 32}})
		if err != nil {
			t.Fatal(err)
		}
		return mr.Behavior(context.Background()).Cases[0]
	}
	first := run()
	if first.Status != report.StatusError || len(first.Errors) != 1 || !strings.Contains(first.Errors[0], "malformed verdict") {
		t.Fatalf("first run: %+v; want an error naming the malformed verdict", first)
	}
	second := run()
	if second.Status != report.StatusPass {
		t.Fatalf("second run: %+v; want the judge asked again and the run passed (the malformed answer was replayed)", second)
	}
	if want := []string{"run 1: pass: it names the weather"}; !slices.Equal(second.JudgeReasons, want) {
		t.Errorf("judge reasons %q; want %q", second.JudgeReasons, want)
	}
}
