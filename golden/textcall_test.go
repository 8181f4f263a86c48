package golden

import (
	"strings"
	"testing"

	"github.com/mcp-eval/mcp-eval/tasks"
	"github.com/mcp-eval/mcp-eval/tasks/taskstest"
)

// TestTextCallIsNoCall: a model that prints a tool call as text (the
// server did not parse it: a missing chat template or tool-call parser)
// did not call a tool; the reason says so and quotes the text, and
// nothing is guessed from it.
func TestTextCallIsNoCall(t *testing.T) {
	t.Parallel()
	s, err := tasks.Parse([]byte("- id: w\n  prompt: Weather in Paris?\n  expect_tool: get_weather\n  expect_args: {city: Paris}\n"), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(taskstest.WeatherTools(t)); err != nil {
		t.Fatal(err)
	}
	c := s.Cases[0]
	for _, tt := range []struct {
		final, want string
	}{
		{`<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>`, `model did not call a tool: it wrote get_weather as text ("<tool_call>{\"name\": \"get_weather\"`},
		{`[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}}]`, "model did not call a tool: it wrote get_weather as text"},
		{`get_weather(city="Paris")`, "model did not call a tool: it wrote get_weather as text"},
		{`I would use get_weather for that, but it is sunny anyway.`, "called no tool, want get_weather"},
		{`It is sunny in Paris.`, "called no tool, want get_weather"},
	} {
		r := ScoreRun(t.Context(), c, finished(tt.final), ScoreOptions{})
		if r.Selection || r.FirstTool != "" || len(r.Reasons) != 1 || !strings.HasPrefix(r.Reasons[0], tt.want) {
			t.Errorf("final %q: selection %v, first tool %q, reasons %q; want one reason starting %q", tt.final, r.Selection, r.FirstTool, r.Reasons, tt.want)
		}
	}
}
