package golden

import (
	"maps"
	"strings"
	"testing"

	"github.com/mcp-eval/mcp-eval/agent"
	"github.com/mcp-eval/mcp-eval/tasks"
	"github.com/mcp-eval/mcp-eval/tasks/taskstest"
)

// TestVarsTurnsModels parses vars: (a matrix of values templated into the
// case), turns: (a multi-turn conversation) and models:, and scores a
// multi-turn run turn by turn.
func TestVarsTurnsModels(t *testing.T) {
	t.Parallel()
	s, err := tasks.Parse([]byte(`- id: weather
  vars:
    city: [Paris, New York]
    units: [celsius, fahrenheit]
  prompt: Weather in {{city}} in {{units}}?
  expect_tool: get_weather
  expect_args: {city: "{{city}}", units: "{{units}}"}
  models: [openai:a]
- id: top
  vars: {n: [3, 5]}
  prompt: The {{n}} latest invoices of Acme.
  expect_tool: search_invoices
  expect_args: {limit: "{{n}}", customer: "acme {{n}}"}
- id: follow-up
  turns:
    - prompt: Weather in Paris?
      expect_tool: get_weather
      expect_args: {city: Paris}
    - prompt: Thanks! And in one word?
      expect_tool: null
      expect_answer: {contains: sunny}
`), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(taskstest.WeatherTools(t)); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range s.Cases {
		ids = append(ids, c.ID)
	}
	want := "weather-Paris-celsius weather-Paris-fahrenheit weather-New_York-celsius weather-New_York-fahrenheit top-3 top-5 follow-up"
	if got := strings.Join(ids, " "); got != want {
		t.Fatalf("ids %q, want %q", got, want)
	}
	ny := s.Cases[3]
	if ny.Prompt != "Weather in New York in fahrenheit?" || !maps.Equal(ny.Vars, map[string]string{"city": "New York", "units": "fahrenheit"}) || !ny.RunsOn("openai:a") || ny.RunsOn("openai:b") {
		t.Errorf("expanded case: %q %v", ny.Prompt, ny.Vars)
	}
	if string(ny.Args[0].Expected) != `"New York"` || string(ny.Args[1].Expected) != `"fahrenheit"` {
		t.Errorf("expanded args: %s %s", ny.Args[0].Expected, ny.Args[1].Expected)
	}
	if err := s.CheckModels([]string{"openai:b"}); err == nil || !strings.Contains(err.Error(), "t.yaml:8: case \"weather-Paris-celsius\": models: openai:a is not one of --models") {
		t.Errorf("CheckModels: %v", err)
	}

	// A value that is only a placeholder keeps the variable's type.
	top := s.Cases[5]
	args := map[string]string{}
	for _, a := range top.Args {
		args[a.Name] = string(a.Expected)
	}
	if args["limit"] != "5" || args["customer"] != `"acme 5"` {
		t.Errorf("typed substitution: %v; want limit 5 (a number), customer \"acme 5\"", args)
	}
	mt := s.Cases[6]
	if len(mt.Turns) != 2 || mt.Prompt != "Weather in Paris?" || strings.Join(mt.FollowUps(), "|") != "Thanks! And in one word?" {
		t.Fatalf("turns: %d, prompt %q, follow-ups %q", len(mt.Turns), mt.Prompt, mt.FollowUps())
	}
	run := func(final2 string, calls ...agent.Call) RunScore {
		tr := &agent.Transcript{Calls: calls, Stop: agent.StopFinal, Finals: []string{"It is 18 °C.", final2}, Final: final2}
		return ScoreRun(t.Context(), mt, tr, ScoreOptions{})
	}
	paris := agent.Call{Turn: 1, Name: "get_weather", Arguments: []byte(`{"city":"Paris"}`)}
	if r := run("Sunny.", paris); !r.Passed {
		t.Errorf("a right conversation failed: %q", r.Reasons)
	}
	again := agent.Call{Turn: 3, UserTurn: 1, Name: "get_weather", Arguments: []byte(`{"city":"Paris"}`)}
	r := run("Cloudy.", paris, again)
	if r.Passed || strings.Join(r.Reasons, "; ") != `turn 2: called get_weather, want no tool call; turn 2: answer does not contain "sunny"` {
		t.Errorf("second turn wrong: passed %v, reasons %q", r.Passed, r.Reasons)
	}
	short := ScoreRun(t.Context(), mt, &agent.Transcript{Calls: []agent.Call{paris}, Stop: agent.StopMaxTurns, Finals: nil, Final: ""}, ScoreOptions{})
	if short.Passed || !strings.Contains(strings.Join(short.Reasons, "; "), "turn 2: the run ended (max_turns) before this turn was answered") {
		t.Errorf("cut-off conversation: %q", short.Reasons)
	}

	for _, bad := range []struct{ src, want string }{
		{"- {id: a, prompt: 'x {{cty}}', expect_tool: null, vars: {city: [a]}}\n", "{{cty}} names no variable of vars (have city)"},
		{"- {id: a, prompt: p, turns: [{prompt: q, expect_tool: null}]}\n", "a case with turns takes its prompts from the turns"},
		{"- {id: a, expect_tool: null, turns: [{prompt: q, negative: true}]}\n", "expect_tool goes into a turn"},
		{"- {id: a, turns: [{prompt: q}]}\n", `case "a.turn1": say what the model should do`},
		{"- {id: a, turns: [{prompt: q, negative: true, kind: hard}]}\n", `turns[0]: unknown key "kind"`},
	} {
		if _, err := tasks.Parse([]byte(bad.src), "t.yaml"); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: %v; want %q", bad.src, err, bad.want)
		}
	}
}
