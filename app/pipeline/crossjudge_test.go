package pipeline_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mcp-eval/mcp-eval/app/apptest"
)

// crossJudgeRig is judgingRig with tested models that answer in their own
// words ("Sunny, says a."), so that a judge's request shows whose run
// it grades; judged maps each model to the answers its judge calls read.
// The judge failBy ("" for none) fails every run it grades.
func crossJudgeRig(t *testing.T, failBy string) (*modelRig, func() map[string][]string) {
	m := &modelRig{t: t, dir: t.TempDir()}
	var mu sync.Mutex
	judged := map[string][]string{}
	model := httptest.NewServer(withModelList(func(w http.ResponseWriter, r *http.Request) {
		m.calls.Add(1)
		b, _ := io.ReadAll(r.Body)
		req, bad := strictOpenAIRequest(b)
		if bad != "" {
			http.Error(w, bad, 400)
			return
		}
		if len(req.ResponseFormat) > 0 {
			mu.Lock()
			for _, who := range []string{"a", "b"} {
				if strings.Contains(string(b), "Sunny, says "+who+".") {
					judged[req.Model] = append(judged[req.Model], who)
				}
			}
			mu.Unlock()
			if "openai:"+req.Model == failBy {
				writeOpenAI(w, req.Model, `{"reason": "the answer is vague", "verdict": "fail"}`)
				return
			}
			writeOpenAI(w, req.Model, `{"reason": "the run did it", "verdict": "pass"}`)
			return
		}
		if req.toolMessages() == 0 {
			writeOpenAI(w, req.Model, "", oaCall{"get_forecast", `{"city":"Paris"}`})
			return
		}
		writeOpenAI(w, req.Model, "Sunny, says "+req.Model+".")
	}))
	t.Cleanup(model.Close)
	m.use(`- id: forecast-judged
  prompt: What is the forecast for Paris?
  expect_tool: get_forecast
  rubric: The answer says what the weather in Paris is.
`, model.URL)
	return m, func() map[string][]string {
		mu.Lock()
		defer mu.Unlock()
		return judged
	}
}

// TestModelsJudgeEachOther: with two tested models and no --judge-model,
// each model's runs are graded by the other one, never by itself; the run
// warns of no self-grading and says which judge graded which model, on the
// terminal, in the report and in summary.md.
func TestModelsJudgeEachOther(t *testing.T) {
	m, judged := crossJudgeRig(t, "")
	code, stdout, stderr, path := m.run("out", "--layers", "behavior", "--models", "openai:a,openai:b")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	got := judged()
	for judge, want := range map[string]string{"a": "b", "b": "a"} {
		if len(got[judge]) == 0 {
			t.Errorf("%s judged nothing; want it to grade %s's runs (judge calls: %v)", judge, want, got)
		}
		for _, who := range got[judge] {
			if who != want {
				t.Errorf("%s graded a run of %s; want only %s's (judge calls: %v)", judge, who, want, got)
			}
		}
	}
	if strings.Contains(stderr, "grades its own runs") {
		t.Errorf("a self-grading warning with two models judging each other:\n%s", stderr)
	}
	r := apptest.LoadReport(t, path)
	if j := r.Judge; j == nil || j.Model != "" || j.ByModel["openai:a"] != "openai:b" || j.ByModel["openai:b"] != "openai:a" || !j.Default || len(j.SelfGraded) != 0 {
		t.Fatalf("report judge %+v; want byModel a→b, b→a, default, none self-graded", r.Judge)
	}
	if r.Judge.Calls == 0 || r.Judge.Calls != int64(len(got["a"])+len(got["b"])) {
		t.Errorf("report judge calls %d; the judges saw %v", r.Judge.Calls, got)
	}
	const says = "openai:b graded openai:a, openai:a graded openai:b"
	if _, tail, _ := strings.Cut(stdout, "\nPASS  "); !strings.Contains(tail, "judge: "+says) {
		t.Errorf("the verdict does not say which judge graded which model:\n%s", stdout)
	}
	md, _ := os.ReadFile(filepath.Join(filepath.Dir(path), "summary.md"))
	if !strings.Contains(string(md), says) {
		t.Errorf("summary.md does not say which judge graded which model:\n%s", md)
	}
}

// TestExplicitJudgeGradesEveryModel: --judge-model grades every tested
// model, itself included when it is one of them, with the warning.
func TestExplicitJudgeGradesEveryModel(t *testing.T) {
	m, judged := crossJudgeRig(t, "")
	code, stdout, stderr, path := m.run("out", "--layers", "behavior", "--models", "openai:a,openai:b", "--judge-model", "openai:a")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	got := judged()
	if len(got["b"]) != 0 || !strings.Contains(strings.Join(got["a"], " "), "a") || !strings.Contains(strings.Join(got["a"], " "), "b") {
		t.Errorf("judge calls %v; want a to grade both models and b none", got)
	}
	if !strings.Contains(stderr, "the judge openai:a is also a tested model (--judge-model is openai:a)") {
		t.Errorf("stderr lacks the self-grading warning:\n%s", stderr)
	}
	r := apptest.LoadReport(t, path)
	if j := r.Judge; j == nil || j.Model != "openai:a" || len(j.ByModel) != 0 || j.Default || len(j.SelfGraded) != 1 || j.SelfGraded[0] != "openai:a" {
		t.Fatalf("report judge %+v; want model openai:a, self-graded [openai:a]", r.Judge)
	}
}

// TestCrossJudgeAgainstOldBaseline: a baseline graded by one judge for
// every model (a report from before the models judged each other, with no
// byModel) loads, and a run where the models judge each other names the
// judge change, model by model, when a judge-graded score falls.
func TestCrossJudgeAgainstOldBaseline(t *testing.T) {
	m, _ := crossJudgeRig(t, "openai:b")
	code, stdout, stderr, base := m.run("base", "--layers", "behavior", "--models", "openai:a,openai:b", "--judge-model", "openai:a")
	if code != 0 {
		t.Fatalf("baseline: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if r := apptest.LoadReport(t, base); r.Judge == nil || r.Judge.Model != "openai:a" || r.Judge.ByModel != nil {
		t.Fatalf("baseline judge %+v; want one judge, no byModel", r.Judge)
	}
	code, stdout, stderr, _ = m.run("cross", "--layers", "behavior", "--models", "openai:a,openai:b", "--baseline", base)
	out := stdout + stderr
	if !strings.Contains(out, "Judge changed since the baseline (model openai:a → openai:b graded openai:a, openai:a graded openai:b)") {
		t.Errorf("exit %d; the output does not name the judge change:\n%s", code, out)
	}
	if strings.Contains(out, "likely model drift") {
		t.Errorf("a judge change blamed on model drift:\n%s", out)
	}
}
