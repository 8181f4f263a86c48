package golden

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcp-eval/mcp-eval/agent"
	"github.com/mcp-eval/mcp-eval/internal/spectest"
	"github.com/mcp-eval/mcp-eval/judge"
	"github.com/mcp-eval/mcp-eval/report"
	"github.com/mcp-eval/mcp-eval/tasks"
	"github.com/mcp-eval/mcp-eval/tasks/taskstest"
)

// scoreSuite is the golden set of the exact-scores test: a hard
// single-tool case, a soft one with a contains match, a negative case, a
// chain and a case graded by the judge.
const scoreSuite = `version: 1
cases:
  - id: weather
    prompt: Weather in Paris?
    expect_tool: get_weather
    expect_args: {city: Paris}
    kind: hard
  - id: invoices
    prompt: Acme's open invoices?
    expect_tool: search_invoices
    expect_args: {customer: acme, status: open}
    arg_match: {customer: contains}
    tags: [invoices]
  - id: neg
    prompt: Hi!
    expect_tool: null
  - id: chain
    prompt: Find Acme's invoices and mail them to Ana.
    expect_sequence:
      - search_invoices
      - tool: send_email
        expect_args: {to: ana@example.com}
  - id: judged
    prompt: Temperature in Tokyo?
    expect_tool: get_weather
    expect_args: {city: Tokyo}
    rubric: The answer gives 30.1 °C.
`

func mkCall(name, args string) agent.Call {
	return agent.Call{Name: name, Arguments: json.RawMessage(args)}
}

// finished is a run that ended with final; a call without a turn gets a
// turn of its own (one call per model turn), as a sequential model makes.
func finished(final string, calls ...agent.Call) *agent.Transcript {
	for i := range calls {
		if calls[i].Turn == 0 {
			calls[i].Turn = i + 1
		}
	}
	return &agent.Transcript{Calls: calls, Final: final, Stop: agent.StopFinal}
}

// inTurn puts calls in model turn n (parallel calls of one message).
func inTurn(n int, calls ...agent.Call) []agent.Call {
	for i := range calls {
		calls[i].Turn = n
	}
	return calls
}

func erroredRun(msg string) *agent.Transcript {
	return &agent.Transcript{Stop: agent.StopError, Err: msg}
}

func repeatRun(n int, t *agent.Transcript) []*agent.Transcript {
	out := make([]*agent.Transcript, n)
	for i := range out {
		out[i] = t
	}
	return out
}

// finalJudge passes a run unless its final answer says "wrong".
type finalJudge struct{}

func (finalJudge) Grade(_ context.Context, rubric string, t *agent.Transcript) (bool, string, error) {
	if rubric != "The answer gives 30.1 °C." {
		return false, "", errors.New("unexpected rubric " + rubric)
	}
	if strings.Contains(t.Final, "wrong") {
		return false, "the answer gives 25 °C", nil
	}
	return true, "it does", nil
}

func fracPtr(f float64) *float64 { return &f }

// TestScoresExact is the test: on a scripted golden set where the
// model is right on some cases and wrong on others, calls a tool on a
// negative case, gets a chain's order wrong and is right 4 times out of 5
// on one case, every number comes out exactly right.
func TestScoresExact(t *testing.T) {
	t.Parallel()
	s, err := tasks.Parse([]byte(scoreSuite), "score.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(taskstest.WeatherTools(t)); err != nil {
		t.Fatal(err)
	}
	cases := map[string]*tasks.Case{}
	for _, c := range s.Cases {
		cases[c.ID] = c
	}

	paris := mkCall("get_weather", `{"city":"paris"}`)
	tokyo := mkCall("get_weather", `{"city":"Tokyo","units":"celsius"}`)
	acmeOpen := mkCall("search_invoices", `{"customer":"Acme Corp","status":"open"}`)
	acmePaid := mkCall("search_invoices", `{"customer":"Acme Corp","status":"paid"}`)
	acme := mkCall("search_invoices", `{"customer":"acme"}`)
	mail := mkCall("send_email", `{"to":"ana@example.com","subject":"Invoices","body":"…"}`)

	const a, b = "openai:model-a", "anthropic:model-b"
	runs := map[string]map[string][]*agent.Transcript{
		a: {
			// Right 4 times out of 5: a hard case at 0.8 fails, and is flaky.
			"weather": {finished("", paris), finished("", paris), finished("", paris), finished("", paris),
				finished("", mkCall("search_invoices", `{"customer":"paris"}`), paris)},
			// Right tool every time, wrong status twice.
			"invoices": {finished("", acmeOpen), finished("", acmePaid), finished("", acmeOpen), finished("", acmePaid), finished("", acmeOpen)},
			// Calls a tool on the negative case once.
			"neg": {finished("", mail), finished("hello"), finished("hello"), finished("hello"), finished("hello")},
			// The order of the chain wrong once; one run errored.
			"chain": {finished("", acme, mail), finished("", acme, paris, mail), finished("", acme, mail), finished("", mail, acme),
				erroredRun("anthropic: 529 overloaded")},
			// The judge fails one run.
			"judged": {finished("30.1 °C", tokyo), finished("30.1 °C", tokyo), finished("wrong", tokyo), finished("30.1 °C", tokyo), finished("30.1 °C", tokyo)},
		},
		b: {
			"weather": repeatRun(5, finished("", paris)),
			// No tool once: selection wrong, arguments not counted.
			"invoices": {finished("I can't"), finished("", acmeOpen), finished("", acmeOpen), finished("", acmeOpen), finished("", acmeOpen)},
			"neg":      repeatRun(5, finished("", mkCall("get_weather", `{"city":"Paris"}`))),
			// Never sends the mail: selection and sequence wrong.
			"chain": repeatRun(5, finished("", acme)),
			// Every run errored: status error, no fractions.
			"judged": {erroredRun("rate limited"), erroredRun("rate limited"), erroredRun("rate limited"), nil, erroredRun("rate limited")},
		},
	}
	var scored []*CaseScore
	for _, m := range []string{a, b} {
		for _, c := range s.Cases {
			scored = append(scored, ScoreCase(t.Context(), c, m, runs[m][c.ID], ScoreOptions{Judge: finalJudge{}}))
		}
	}
	sum := Summarize(scored)

	const (
		w45lo, w45hi = 0.375534630, 0.963775891
		w35lo, w35hi = 0.230724281, 0.882379226
		w34lo, w34hi = 0.300641843, 0.954412739
		w55lo, w55hi = 0.565517535, 1.0
		w05lo, w05hi = 0.0, 0.434482465
	)
	want := []report.Case{
		{ID: "chain", Model: b, RunOutcomes: []string{"fail", "fail", "fail", "fail", "fail"}, Kind: "soft", Runs: 5, Passed: 0, PassRate: 0, Floor: 0.8, Status: report.StatusFail,
			Selection: fracPtr(0), Sequence: fracPtr(0), WilsonLow: w05lo, WilsonHigh: w05hi,
			Failures: []string{
				"run 1: chain: never called send_email", "run 2: chain: never called send_email", "run 3: chain: never called send_email",
				"run 4: chain: never called send_email", "run 5: chain: never called send_email",
			}},
		{ID: "chain", Model: a, RunOutcomes: []string{"pass", "pass", "pass", "fail", "error"}, Kind: "soft", Runs: 5, Passed: 3, Errored: 1, PassRate: 0.75, Floor: 0.8, Status: report.StatusFail,
			Selection: fracPtr(1), Arguments: fracPtr(1), Sequence: fracPtr(0.75), WilsonLow: w34lo, WilsonHigh: w34hi, Flaky: true,
			Failures: []string{"run 4: chain: want the order search_invoices → send_email, calls were send_email → search_invoices"},
			Errors:   []string{"run 5: anthropic: 529 overloaded"}},
		{ID: "invoices", Model: b, RunOutcomes: []string{"fail", "pass", "pass", "pass", "pass"}, Kind: "soft", Runs: 5, Passed: 4, PassRate: 0.8, Floor: 0.8, Status: report.StatusPass,
			Selection: fracPtr(0.8), Arguments: fracPtr(1), WilsonLow: w45lo, WilsonHigh: w45hi, Flaky: true, Tags: []string{"invoices"},
			Failures: []string{"run 1: called no tool, want search_invoices"}},
		{ID: "invoices", Model: a, RunOutcomes: []string{"pass", "fail", "pass", "fail", "pass"}, Kind: "soft", Runs: 5, Passed: 3, PassRate: 0.6, Floor: 0.8, Status: report.StatusFail,
			Selection: fracPtr(1), Arguments: fracPtr(0.6), WilsonLow: w35lo, WilsonHigh: w35hi, Flaky: true, Tags: []string{"invoices"},
			Failures: []string{`run 2: status: got "paid", want "open" (exact)`, `run 4: status: got "paid", want "open" (exact)`}},
		{ID: "judged", Model: b, RunOutcomes: []string{"error", "error", "error", "error", "error"}, Kind: "soft", Runs: 5, Errored: 5, Floor: 0.8, Status: report.StatusError,
			WilsonLow: 0, WilsonHigh: 1,
			Errors: []string{"run 1: rate limited", "run 2: rate limited", "run 3: rate limited", "run 4: no transcript", "run 5: rate limited"}},
		{ID: "judged", Model: a, RunOutcomes: []string{"pass", "pass", "fail", "pass", "pass"}, Kind: "soft", Runs: 5, Passed: 4, PassRate: 0.8, Floor: 0.8, Status: report.StatusPass,
			Selection: fracPtr(1), Arguments: fracPtr(1), Judge: fracPtr(0.8), WilsonLow: w45lo, WilsonHigh: w45hi, Flaky: true,
			Failures: []string{"run 3: judge: the answer gives 25 °C"},
			// The judge's reasons are kept for the passing runs too.
			JudgeReasons: []string{"run 1: pass: it does", "run 2: pass: it does", "run 3: fail: the answer gives 25 °C",
				"run 4: pass: it does", "run 5: pass: it does"}},
		{ID: "neg", Model: b, RunOutcomes: []string{"fail", "fail", "fail", "fail", "fail"}, Kind: "soft", Negative: true, Runs: 5, Passed: 0, PassRate: 0, Floor: 0.8, Status: report.StatusFail,
			Selection: fracPtr(0), WilsonLow: w05lo, WilsonHigh: w05hi,
			Failures: []string{
				"run 1: called get_weather, want no tool call", "run 2: called get_weather, want no tool call", "run 3: called get_weather, want no tool call",
				"run 4: called get_weather, want no tool call", "run 5: called get_weather, want no tool call",
			}},
		{ID: "neg", Model: a, RunOutcomes: []string{"fail", "pass", "pass", "pass", "pass"}, Kind: "soft", Negative: true, Runs: 5, Passed: 4, PassRate: 0.8, Floor: 0.8, Status: report.StatusPass,
			Selection: fracPtr(0.8), WilsonLow: w45lo, WilsonHigh: w45hi, Flaky: true,
			Failures: []string{"run 1: called send_email, want no tool call"}},
		{ID: "weather", Model: b, RunOutcomes: []string{"pass", "pass", "pass", "pass", "pass"}, Kind: "hard", Runs: 5, Passed: 5, PassRate: 1, Floor: 1, Status: report.StatusPass,
			Selection: fracPtr(1), Arguments: fracPtr(1), WilsonLow: w55lo, WilsonHigh: w55hi},
		{ID: "weather", Model: a, RunOutcomes: []string{"pass", "pass", "pass", "pass", "fail"}, Kind: "hard", Runs: 5, Passed: 4, PassRate: 0.8, Floor: 1, Status: report.StatusFail,
			Selection: fracPtr(0.8), Arguments: fracPtr(1), WilsonLow: w45lo, WilsonHigh: w45hi, Flaky: true,
			Failures: []string{"run 5: wrong tool: called search_invoices instead of get_weather"}},
	}
	approx := cmpopts.EquateApprox(0, 1e-6)
	// Where each case is defined has its own assertion below.
	if diff := cmp.Diff(want, sum.Cases, approx, cmpopts.IgnoreFields(report.Case{}, "File", "Line")); diff != "" {
		t.Errorf("cases (-want +got):\n%s", diff)
	}
	for _, c := range sum.Cases {
		if c.File != "score.yaml" || c.Line < 1 {
			t.Errorf("case %s@%s is defined at %s:%d; want its line in score.yaml", c.ID, c.Model, c.File, c.Line)
		}
	}

	wantA := map[string]float64{
		KeyPassRate:            18.0 / 24, // weather 4 + invoices 3 + neg 4 + chain 3 + judged 4, over 24 non-errored runs
		KeySelectionAccuracy:   22.0 / 24, // 4 + 5 + 4 + 4 + 5
		KeyFalseActivationRate: 1.0 / 5,
		KeyArgumentAccuracy:    16.0 / 18, // weather 4/4, invoices 3/5, chain 4/4, judged 5/5
		KeySequenceAccuracy:    3.0 / 4,
		KeyTaskCompletion:      4.0 / 5,
	}
	wantB := map[string]float64{
		KeyPassRate:            9.0 / 20, // weather 5 + invoices 4, over 20 non-errored runs
		KeySelectionAccuracy:   9.0 / 20,
		KeyFalseActivationRate: 1,
		KeyArgumentAccuracy:    1, // weather 5/5, invoices 4/4; the chain never selected right
		KeySequenceAccuracy:    0,
		// No taskCompletion: every judged run errored.
	}
	wantAll := map[string]float64{
		KeyPassRate:            27.0 / 44,
		KeySelectionAccuracy:   31.0 / 44,
		KeyFalseActivationRate: 6.0 / 10,
		KeyArgumentAccuracy:    25.0 / 27,
		KeySequenceAccuracy:    3.0 / 9,
		KeyTaskCompletion:      4.0 / 5,
	}
	if diff := cmp.Diff(wantAll, sum.Scores, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("scores (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]map[string]float64{a: wantA, b: wantB}, sum.ScoresByModel, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("scoresByModel (-want +got):\n%s", diff)
	}

	// The same scores come back from the cases alone, as merge needs them.
	scores, byModel := ScoresFromCases(sum.Cases)
	if diff := cmp.Diff(wantAll, scores, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("ScoresFromCases scores (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]map[string]float64{a: wantA, b: wantB}, byModel, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("ScoresFromCases by model (-want +got):\n%s", diff)
	}

	wantConfusion := []report.ConfusionCell{
		{Model: b, Expected: "get_weather", Selected: "get_weather", Count: 5},
		{Model: b, Expected: NoTool, Selected: "get_weather", Count: 5},
		{Model: b, Expected: "search_invoices", Selected: NoTool, Count: 1},
		{Model: b, Expected: "search_invoices", Selected: "search_invoices", Count: 4},
		{Model: a, Expected: "get_weather", Selected: "get_weather", Count: 9},
		{Model: a, Expected: "get_weather", Selected: "search_invoices", Count: 1},
		{Model: a, Expected: NoTool, Selected: NoTool, Count: 4},
		{Model: a, Expected: NoTool, Selected: "send_email", Count: 1},
		{Model: a, Expected: "search_invoices", Selected: "search_invoices", Count: 5},
	}
	if diff := cmp.Diff(wantConfusion, sum.Confusion); diff != "" {
		t.Errorf("confusion (-want +got):\n%s", diff)
	}
	// Two shards of the same matrix add up.
	doubled := slices.Clone(wantConfusion)
	for i := range doubled {
		doubled[i].Count *= 2
	}
	if diff := cmp.Diff(doubled, MergeConfusion(slices.Concat(sum.Confusion[4:], sum.Confusion, sum.Confusion[:4]))); diff != "" {
		t.Errorf("MergeConfusion (-want +got):\n%s", diff)
	}

	// The report that carries them validates against docs/report.schema.json.
	r := &report.Report{SchemaVersion: report.SchemaVersion, Server: report.Server{Transport: "stdio", Era: "modern"},
		Scores: map[string]float64{"conformance.passRate": 1}}
	sum.Apply(r, &report.JudgeInfo{Model: "openai:model-a", PromptSHA256: judge.PromptSHA256()})
	if r.Scores["conformance.passRate"] != 1 || r.Scores[KeyPassRate] != 27.0/44 || len(r.Cases) != 10 {
		t.Errorf("Apply: scores %v, %d cases", r.Scores, len(r.Cases))
	}
	if r.Judge == nil || r.Judge.Model != "openai:model-a" || r.Judge.PromptSHA256 != judge.PromptSHA256() || r.Judge.SemanticFallback {
		t.Errorf("Apply: judge %+v", r.Judge)
	}
	validateReport(t, r)
}

func validateReport(t *testing.T, r *report.Report) {
	t.Helper()
	var buf bytes.Buffer
	if err := report.WriteJSON(&buf, r); err != nil {
		t.Fatal(err)
	}
	sch := spectest.CompileDoc(t, "../docs/report.schema.json", "")
	v, err := jsonschema.UnmarshalJSON(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(v); err != nil {
		t.Errorf("report does not validate: %v", err)
	}
}

// TestScoreRun covers the per-run rules one at a time.
func TestScoreRun(t *testing.T) {
	t.Parallel()
	const src = `version: 1
cases:
  - id: one
    prompt: p
    expect_tool: get_weather
    expect_args: {city: Paris, units: celsius}
  - id: chain
    prompt: p
    expect_sequence:
      - tool: get_weather
        expect_args: {city: Paris}
      - tool: get_weather
        expect_args: {city: London}
      - send_email
  - id: sem
    prompt: p
    expect_tool: send_email
    expect_args: {subject: quarterly report delayed}
    arg_match: {subject: semantic}
  - id: rubric
    prompt: p
    negative: true
    rubric: Says hello.
`
	s, err := tasks.Parse([]byte(src), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(taskstest.WeatherTools(t)); err != nil {
		t.Fatal(err)
	}
	one, chain, sem, rub := s.Cases[0], s.Cases[1], s.Cases[2], s.Cases[3]
	yes, no := true, false
	tests := []struct {
		name string
		c    *tasks.Case
		t    *agent.Transcript
		opts ScoreOptions
		want RunScore
	}{
		{"right", one, finished("", mkCall("get_weather", `{"city":"PARIS","units":"celsius"}`)), ScoreOptions{},
			RunScore{Selection: true, FirstTool: "get_weather", Arguments: &yes, Passed: true}},
		{"missing argument", one, finished("", mkCall("get_weather", `{"city":"Paris"}`)), ScoreOptions{},
			RunScore{Selection: true, FirstTool: "get_weather", Arguments: &no, Reasons: []string{"units: missing"}}},
		{"arguments not JSON", one, finished("", agent.Call{Name: "get_weather", InvalidArguments: "{city: Paris"}), ScoreOptions{},
			RunScore{Selection: true, FirstTool: "get_weather", Arguments: &no, Reasons: []string{"arguments are not JSON: {city: Paris"}}},
		{"arguments not an object", one, finished("", mkCall("get_weather", `["Paris"]`)), ScoreOptions{},
			RunScore{Selection: true, FirstTool: "get_weather", Arguments: &no, Reasons: []string{`arguments are not a JSON object: ["Paris"]`}}},
		{"only the first call counts", one, finished("", mkCall("get_weather", `{"city":"Rome","units":"celsius"}`), mkCall("get_weather", `{"city":"Paris","units":"celsius"}`)), ScoreOptions{},
			RunScore{Selection: true, FirstTool: "get_weather", Arguments: &no, Reasons: []string{`city: got "Rome", want "Paris" (normalized)`}}},
		{"hallucinated tool", one, finished("", agent.Call{Name: "weather", Arguments: json.RawMessage(`{}`), UnknownTool: true}), ScoreOptions{},
			RunScore{FirstTool: "weather", Reasons: []string{"wrong tool: called weather instead of get_weather"}}},
		{"max turns is still scored", one, &agent.Transcript{Stop: agent.StopMaxTurns, Calls: []agent.Call{mkCall("get_weather", `{"city":"Paris","units":"celsius"}`)}}, ScoreOptions{},
			RunScore{Selection: true, FirstTool: "get_weather", Arguments: &yes, Passed: true}},
		{"chain with repeated tool, k-th call checked", chain,
			finished("", mkCall("get_weather", `{"city":"Paris"}`), mkCall("get_weather", `{"city":"London"}`), mkCall("send_email", `{}`)), ScoreOptions{},
			RunScore{Selection: true, FirstTool: "get_weather", Arguments: &yes, Sequence: &yes, Passed: true}},
		{"chain with calls in between", chain,
			finished("", mkCall("get_weather", `{"city":"Paris"}`), mkCall("search_invoices", `{}`), mkCall("get_weather", `{"city":"London"}`), mkCall("send_email", `{}`)), ScoreOptions{},
			RunScore{Selection: true, FirstTool: "get_weather", Arguments: &yes, Sequence: &yes, Passed: true}},
		{"chain one call short", chain,
			finished("", mkCall("get_weather", `{"city":"Paris"}`), mkCall("send_email", `{}`)), ScoreOptions{},
			RunScore{Selection: true, FirstTool: "get_weather", Arguments: &no, Sequence: &no, Reasons: []string{
				"chain: want the order get_weather → get_weather → send_email, calls were get_weather → send_email",
				"get_weather call 2: no such call",
			}}},
		{"chain args scored apart from order", chain,
			finished("", mkCall("send_email", `{}`), mkCall("get_weather", `{"city":"Paris"}`), mkCall("get_weather", `{"city":"London"}`)), ScoreOptions{},
			RunScore{Selection: true, FirstTool: "send_email", Arguments: &yes, Sequence: &no, Reasons: []string{
				"chain: want the order get_weather → get_weather → send_email, calls were send_email → get_weather → get_weather",
			}}},
		{"semantic with judge", sem, finished("", mkCall("send_email", `{"subject":"Q3 report late"}`)),
			ScoreOptions{Similar: &taskstest.Similar{Same: map[[2]string]bool{{"quarterly report delayed", "Q3 report late"}: true}}},
			RunScore{Selection: true, FirstTool: "send_email", Arguments: &yes, Passed: true}},
		{"semantic fallback", sem, finished("", mkCall("send_email", `{"subject":"Delayed: quarterly report"}`)), ScoreOptions{},
			RunScore{Selection: true, FirstTool: "send_email", Arguments: &yes, SemanticFallback: true, Passed: true}},
		{"semantic judge error", sem, finished("", mkCall("send_email", `{"subject":"x"}`)), ScoreOptions{Similar: &taskstest.Similar{Err: errors.New("boom")}},
			RunScore{Errored: true, Error: "semantic match of subject: boom", FirstTool: "send_email"}},
		{"rubric without judge", rub, finished("hello"), ScoreOptions{},
			RunScore{Errored: true, Error: errNoJudge.Error()}},
		{"rubric judge error", rub, finished("hello"), ScoreOptions{Judge: errJudge{}},
			RunScore{Errored: true, Error: "judge: judge unavailable"}},
		{"rubric judged on a wrong selection too", rub, finished("hello", mkCall("send_email", `{}`)), ScoreOptions{Judge: finalJudgeAny{}},
			RunScore{FirstTool: "send_email", Judge: &yes, JudgeReason: "ok", Reasons: []string{"called send_email, want no tool call"}}},
		{"refusal explains a run with no call", one, &agent.Transcript{Stop: agent.StopFinal, Calls: []agent.Call{},
			Final: `[refused: stop_reason "refusal", no text]`, Refusal: `[refused: stop_reason "refusal", no text]`}, ScoreOptions{},
			RunScore{Reasons: []string{`the model refused: [refused: stop_reason "refusal", no text]`, "called no tool, want get_weather"}}},
		{"a refusal that passes needs no reason", rub, &agent.Transcript{Stop: agent.StopFinal, Calls: []agent.Call{}, Final: "No.", Refusal: "No."},
			ScoreOptions{Judge: finalJudgeAny{}}, RunScore{Selection: true, Judge: &yes, JudgeReason: "ok", Passed: true}},
		{"errored", one, erroredRun("boom"), ScoreOptions{}, RunScore{Errored: true, Error: "boom"}},
		{"errored without message", one, &agent.Transcript{Stop: agent.StopError}, ScoreOptions{}, RunScore{Errored: true, Error: "the run failed"}},
		{"nil transcript", one, nil, ScoreOptions{}, RunScore{Errored: true, Error: "no transcript"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := ScoreRun(t.Context(), tt.c, tt.t, tt.opts)
			// FirstTurn and SelectedTool have their own test
			// (TestScoreFirstTurn).
			if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(RunScore{}, "FirstTurn", "SelectedTool")); diff != "" {
				t.Errorf("ScoreRun (-want +got):\n%s", diff)
			}
		})
	}
}

type errJudge struct{}

func (errJudge) Grade(context.Context, string, *agent.Transcript) (bool, string, error) {
	return false, "", errors.New("judge unavailable")
}

type finalJudgeAny struct{}

func (finalJudgeAny) Grade(context.Context, string, *agent.Transcript) (bool, string, error) {
	return true, "ok", nil
}

// TestCaseStatus checks status, floor and the semantic fallback flag.
func TestCaseStatus(t *testing.T) {
	t.Parallel()
	s, err := tasks.Parse([]byte(`version: 1
cases:
  - {id: custom, prompt: p, expect_tool: send_email, expect_args: {subject: hi there}, arg_match: {subject: semantic}, floor: 0.6}
  - {id: none, prompt: p, negative: true}
`), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ok := finished("", mkCall("send_email", `{"subject":"Hi there!"}`))
	fuzzy := finished("", mkCall("send_email", `{"subject":"there, hi"}`))
	bad := finished("", mkCall("get_weather", `{}`))
	cs := ScoreCase(t.Context(), s.Cases[0], "m", []*agent.Transcript{ok, fuzzy, ok, bad, bad}, ScoreOptions{})
	if got := cs.Report; got.Status != report.StatusPass || got.PassRate != 0.6 || got.Floor != 0.6 || !got.SemanticFallback || !got.Flaky {
		t.Errorf("custom floor: %+v", got)
	}
	empty := ScoreCase(t.Context(), s.Cases[1], "m", nil, ScoreOptions{})
	if got := empty.Report; got.Status != report.StatusError || got.Runs != 0 || got.WilsonLow != 0 || got.WilsonHigh != 1 {
		t.Errorf("no runs: %+v", got)
	}
	sum := Summarize([]*CaseScore{cs, empty})
	if !sum.SemanticFallback || sum.Rubrics {
		t.Errorf("summary flags: fallback %v rubrics %v", sum.SemanticFallback, sum.Rubrics)
	}
	r := &report.Report{}
	sum.Apply(r, nil)
	if r.Judge == nil || !r.Judge.SemanticFallback || r.Judge.Model != "" {
		t.Errorf("Apply without a judge model: %+v", r.Judge)
	}
}

// TestScoreFirstTurn checks selection over the first turn that calls
// tools against a hand computation, with a parallel call whose expected
// tool comes second, selection: first, a list of acceptable tools,
// forbid_tools, and a chain whose order spans turns.
func TestScoreFirstTurn(t *testing.T) {
	t.Parallel()
	s, err := tasks.Parse([]byte(`- id: weather
  prompt: Weather in Paris?
  expect_tool: get_weather
  expect_args: {city: Paris}
- id: strict
  prompt: Weather in Paris?
  expect_tool: get_weather
  selection: first
- id: either
  prompt: Something about Acme or the weather.
  expect_tool: [get_weather, search_invoices]
  forbid_tools: [send_email]
- id: chain
  prompt: Find Acme's invoices and mail them.
  expect_sequence: [search_invoices, send_email]
`), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(taskstest.WeatherTools(t)); err != nil {
		t.Fatal(err)
	}
	paris, london := mkCall("get_weather", `{"city":"Paris"}`), mkCall("get_weather", `{"city":"London"}`)
	search, mail := mkCall("search_invoices", `{"customer":"acme"}`), mkCall("send_email", `{"to":"a@example.com"}`)
	runs := map[string][]*agent.Transcript{
		"weather": {
			finished("ok", paris),                       // pass
			finished("ok", inTurn(1, search, paris)...), // parallel, expected second: pass
			finished("ok", search, paris),               // expected only in turn 2: wrong selection
			finished("no tool"),                         // no call: wrong selection
			finished("ok", london),                      // right tool, wrong city
		},
		"strict": {
			finished("ok", inTurn(1, search, paris)...), // parallel, expected second: wrong under selection: first
			finished("ok", paris),                       // pass
		},
		"either": {
			finished("ok", search),                    // an accepted tool: pass
			finished("ok", inTurn(1, paris, mail)...), // accepted, but a forbidden call: fail
		},
		"chain": {
			finished("ok", append(inTurn(1, mail, search), inTurn(2, mail)...)...), // order across turns: ok
		},
	}
	var scored []*CaseScore
	for _, c := range s.Cases {
		scored = append(scored, ScoreCase(t.Context(), c, "openai:m", runs[c.ID], ScoreOptions{}))
	}
	type want struct {
		passed              int
		selection, argument *float64
		failures            []string
	}
	f := func(x float64) *float64 { return &x }
	wants := map[string]want{
		"weather": {2, f(3.0 / 5), f(2.0 / 3), []string{
			"run 3: wrong tool: called search_invoices instead of get_weather",
			"run 4: called no tool, want get_weather",
			`run 5: city: got "London", want "Paris" (normalized)`,
		}},
		"strict": {1, f(1.0 / 2), nil, []string{
			"run 1: wrong tool first: called search_invoices first (then get_weather in the same turn), want get_weather first (selection: first)",
		}},
		"either": {1, f(1), nil, []string{"run 2: called send_email, which the case forbids"}},
		"chain":  {1, f(1), nil, nil},
	}
	for _, cs := range scored {
		w, rc := wants[cs.Case.ID], cs.Report
		if rc.Passed != w.passed || !cmp.Equal(rc.Selection, w.selection) || !cmp.Equal(rc.Arguments, w.argument) {
			t.Errorf("%s: passed %d selection %v arguments %v; want %d %v %v", rc.ID, rc.Passed, ptr(rc.Selection), ptr(rc.Arguments), w.passed, ptr(w.selection), ptr(w.argument))
		}
		if d := cmp.Diff(w.failures, rc.Failures); d != "" {
			t.Errorf("%s failures (-want +got):\n%s", rc.ID, d)
		}
	}
	sum := Summarize(scored)
	// Pooled: 5 of 10 runs pass; 7 of 10 select right.
	if sum.Scores[KeyPassRate] != 0.5 || sum.Scores[KeySelectionAccuracy] != 0.7 {
		t.Errorf("pooled passRate %v selection %v; want 0.5 and 0.7", sum.Scores[KeyPassRate], sum.Scores[KeySelectionAccuracy])
	}
	// The confusion matrix counts every call of the first turn: run 2 of
	// weather is one get_weather and one search_invoices, not a mix-up.
	cells := map[[2]string]int{}
	for _, c := range sum.Confusion {
		cells[[2]string{c.Expected, c.Selected}] += c.Count
	}
	wantCells := map[[2]string]int{
		{"get_weather", "get_weather"}:     3 + 2, // weather runs 1, 2, 5; strict runs 1, 2
		{"get_weather", "search_invoices"}: 2 + 1, // weather runs 2, 3; strict run 1
		{"get_weather", "none"}:            1,     // weather run 4
		{"get_weather", "send_email"}:      1,     // either run 2 (expected: the list's first)
	}
	wantCells[[2]string{"get_weather", "search_invoices"}]++ // either run 1
	wantCells[[2]string{"get_weather", "get_weather"}]++     // either run 2
	if d := cmp.Diff(wantCells, cells); d != "" {
		t.Errorf("confusion (-want +got):\n%s", d)
	}
}

func ptr(f *float64) any {
	if f == nil {
		return nil
	}
	return *f
}
