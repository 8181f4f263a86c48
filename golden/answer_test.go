package golden

import (
	"strings"
	"testing"

	"github.com/mcp-eval/mcp-eval/agent"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/tasks"
)

// TestExpectAnswer checks every expect_answer assertion on a final
// answer, without a judge, through the loader and the scorer.
func TestExpectAnswer(t *testing.T) {
	t.Parallel()
	s, err := tasks.Parse([]byte(`- id: answer
  prompt: Temperature in Tokyo, as JSON?
  expect_tool: null
  expect_answer:
    contains: ["86.2", "humid"]
    not_contains: celsius
    regex: '\d+(\.\d+)? ?°F'
    json_path:
      $.city: Tokyo
      $.temp: 86.20
      $.tags[1]: humid
- id: exact
  prompt: Say OK.
  expect_tool: null
  expect_answer: {equals: OK}
`), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	answer, exact := s.Cases[0], s.Cases[1]
	good := "```json\n{\"city\": \"Tokyo\", \"temp\": 86.2, \"note\": \"86.2 °F, humid\", \"tags\": [\"hot\", \"humid\"]}\n```"
	tests := []struct {
		name   string
		c      *tasks.Case
		final  string
		reason []string
	}{
		{"all hold", answer, good, nil},
		{"every assertion fails", answer, `{"city": "Osaka", "temp": 30.1, "note": "30.1 celsius", "tags": ["hot"]}`, []string{
			`answer does not contain "86.2"`, `answer does not contain "humid"`, `answer contains "celsius", which it must not`,
			`answer does not match /\d+(\.\d+)? ?°F/`, `answer $.city is "Osaka", want "Tokyo"`, `answer $.temp is 30.1, want 86.2`,
			`answer has nothing at $.tags[1]`,
		}},
		{"not JSON", answer, "86.2 °F and humid", []string{"answer is not JSON, so json_path cannot be checked"}},
		{"equals, spaces ignored", exact, "  OK\n", nil},
		{"equals fails", exact, "OK!", []string{`answer is "OK!", want "OK"`}},
	}
	for _, tt := range tests {
		r := ScoreRun(t.Context(), tt.c, finished(tt.final), ScoreOptions{})
		if (r.Answer != nil && *r.Answer) != (len(tt.reason) == 0) || r.Passed != (len(tt.reason) == 0) {
			t.Errorf("%s: answer %v passed %v; reasons %q", tt.name, r.Answer, r.Passed, r.Reasons)
		}
		for _, want := range tt.reason {
			if !strings.Contains(strings.Join(r.Reasons, "\n"), want) {
				t.Errorf("%s: reasons %q lack %q", tt.name, r.Reasons, want)
			}
		}
	}
	sum := Summarize([]*CaseScore{ScoreCase(t.Context(), answer, "openai:m", []*agent.Transcript{finished(good), finished("no")}, ScoreOptions{})})
	if sum.Scores[KeyAnswerAccuracy] != 0.5 || sum.Cases[0].Answer == nil || *sum.Cases[0].Answer != 0.5 {
		t.Errorf("answerAccuracy %v, case %v; want 0.5", sum.Scores[KeyAnswerAccuracy], sum.Cases[0].Answer)
	}
	for _, bad := range []struct{ src, want string }{
		{"- {id: a, prompt: p, expect_tool: null, expect_answer: {}}\n", "give at least one of contains"},
		{"- {id: a, prompt: p, expect_tool: null, expect_answer: {regex: '('}}\n", "bad regex"},
		{"- {id: a, prompt: p, expect_tool: null, expect_answer: {json_path: {a.b: 1}}}\n", "a path starts with $"},
		{"- {id: a, prompt: p, expect_tool: null, expect_answer: {contain: x}}\n", `unknown key "contain" (did you mean "contains"?)`},
	} {
		if _, err := tasks.Parse([]byte(bad.src), "t.yaml"); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: %v; want %q", bad.src, err, bad.want)
		}
	}
}

// TestIDsMatchExactly: identifiers in plain string arguments (no enum, no
// format) are compared exactly by default, so INV-10-12 is not INV-1012;
// ordinary text is still normalized.
func TestIDsMatchExactly(t *testing.T) {
	t.Parallel()
	s, err := tasks.Parse([]byte(`- id: a
  prompt: p
  expect_tool: t
  expect_args: {invoice: INV-10-12, customer_id: acme corp, note: Lunch on Friday}
`), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	tools := []mcp.Tool{{Name: "t", InputSchema: []byte(`{"type":"object","properties":{"invoice":{"type":"string"},"customer_id":{"type":"string"},"note":{"type":"string"}}}`)}}
	if err := s.Validate(tools); err != nil {
		t.Fatal(err)
	}
	modes := map[string]tasks.MatchMode{}
	for _, a := range s.Cases[0].Args {
		modes[a.Name] = a.EffectiveMode()
	}
	if modes["invoice"] != tasks.MatchExact || modes["customer_id"] != tasks.MatchExact || modes["note"] != tasks.MatchNormalized {
		t.Errorf("modes %v; want invoice and customer_id exact, note normalized", modes)
	}
	r := ScoreRun(t.Context(), s.Cases[0], finished("", agent.Call{Name: "t", Arguments: []byte(`{"invoice":"INV-1012","customer_id":"acme corp","note":"lunch on friday!"}`)}), ScoreOptions{})
	if r.Passed || len(r.Reasons) != 1 || !strings.Contains(r.Reasons[0], "invoice") {
		t.Errorf("INV-1012 for INV-10-12: passed %v, reasons %q", r.Passed, r.Reasons)
	}
}

// FuzzAnswerCheck: a model's answer is untrusted text; checking it never
// panics, whatever it holds.
func FuzzAnswerCheck(f *testing.F) {
	s, err := tasks.Parse([]byte(`- id: a
  prompt: p
  expect_tool: null
  expect_answer:
    contains: x
    not_contains: y
    regex: 'a+'
    equals: z
    json_path:
      $.a[0].b: 1
      '$["k"]': [1, {c: true}]
`), "t.yaml")
	if err != nil {
		f.Fatal(err)
	}
	a := s.Cases[0].Answer
	for _, seed := range []string{"", "x", `{"a":[{"b":1}],"k":[1,{"c":true}]}`, "```json\n{\"a\": 1}\n```", "```", "{", "[1,2", "\xff\xfe", `{"a":{"b":1}}`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, answer string) {
		why := a.Check(answer)
		if len(why) == 0 {
			t.Fatalf("%q passed contradictory checks (contains x, equals z)", answer)
		}
	})
}
