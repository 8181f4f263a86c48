package golden_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcp-eval/mcp-eval/agent"
	"github.com/mcp-eval/mcp-eval/golden"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/tasks"
)

// A golden file is parsed, checked against the server's tools, and the
// transcripts of its runs are scored.
func ExampleScoreCase() {
	suite, err := tasks.Parse([]byte(`version: 1
cases:
  - id: weather-paris
    prompt: What's the weather in Paris?
    expect_tool: get_weather
    expect_args: {city: Paris}
`), "tasks.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	tools := []mcp.Tool{{Name: "get_weather", InputSchema: json.RawMessage(
		`{"type":"object","properties":{"city":{"type":"string"}}}`)}}
	if err := suite.Validate(tools); err != nil {
		fmt.Println(err)
		return
	}
	right := &agent.Transcript{Stop: agent.StopFinal, Calls: []agent.Call{
		{Name: "get_weather", Arguments: json.RawMessage(`{"city":"paris"}`)}}}
	wrong := &agent.Transcript{Stop: agent.StopFinal, Calls: []agent.Call{
		{Name: "get_weather", Arguments: json.RawMessage(`{"city":"Lyon"}`)}}}

	cs := golden.ScoreCase(context.Background(), suite.Cases[0], "openai:gpt-4.1-mini",
		[]*agent.Transcript{right, right, right, right, wrong}, golden.ScoreOptions{})
	r := cs.Report
	fmt.Printf("%s: %d/%d, pass rate %.1f, floor %.1f, %s, flaky %v\n", r.ID, r.Passed, r.Runs, r.PassRate, r.Floor, r.Status, r.Flaky)
	fmt.Printf("95%% interval [%.3f, %.3f]\n", r.WilsonLow, r.WilsonHigh)
	fmt.Println(r.Failures[0])
	fmt.Println(golden.Summarize([]*golden.CaseScore{cs}).Scores)
	// Output:
	// weather-paris: 4/5, pass rate 0.8, floor 0.8, pass, flaky true
	// 95% interval [0.376, 0.964]
	// run 5: city: got "Lyon", want "Paris" (normalized)
	// map[behavior.argumentAccuracy:0.8 behavior.passRate:0.8 behavior.selectionAccuracy:1]
}

// Mistakes in the file come back with file:line.
func ExampleParse() {
	_, err := tasks.Parse([]byte(`version: 1
cases:
  - id: weather-paris
    prompt: What's the weather in Paris?
    expect_tol: get_weather
`), "golden/tasks.yaml")
	fmt.Println(err)
	// Output:
	// golden/tasks.yaml:5: case "weather-paris": unknown key "expect_tol" (did you mean "expect_tool"?)
}
