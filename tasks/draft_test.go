package tasks

import (
	"strings"
	"testing"

	"github.com/mcp-eval/mcp-eval/tasks/taskstest"
)

// yamlMessages are the lines of err (one FILE:LINE error each), nil for nil.
func yamlMessages(err error) []string {
	if err == nil {
		return nil
	}
	return strings.Split(err.Error(), "\n")
}

// TestDraftAndSchemaInvalidArgs: draft: true is read and counted; an
// exact expected argument that its tool's inputSchema refuses is an
// error with its line, as is one of the wrong type; a value matched by a
// looser mode is not held to the schema.
func TestDraftAndSchemaInvalidArgs(t *testing.T) {
	t.Parallel()
	src := `- id: a
  draft: true
  prompt: p
  expect_tool: search_invoices
  expect_args: {customer: ACME, status: late}
- id: b
  draft: true
  prompt: p
  expect_tool: send_email
  expect_args:
    subject: ""
- id: c
  prompt: p
  expect_tool: send_email
  expect_args: {subject: 42}
- id: d
  prompt: p
  expect_tool: send_email
  expect_args: {subject: anything}
  arg_match: {subject: contains}
- id: e
  draft: false
  prompt: p
  expect_tool: get_weather
  expect_args: {city: Paris, units: celsius}
`
	s, err := Parse([]byte(src), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if n := Drafts(s.Cases); n != 2 {
		t.Errorf("Drafts() = %d, want 2", n)
	}
	got := strings.Join(yamlMessages(s.Validate(taskstest.WeatherTools(t))), "\n")
	for _, want := range []string{
		`t.yaml:5: case "a": expect_args.status: "late" is not one of the values search_invoices accepts: "open", "paid", "overdue"`,
		`t.yaml:11: case "b": expect_args.subject: "" does not validate against send_email's inputSchema: `,
		`t.yaml:15: case "c": expect_args.subject: 42 does not validate against send_email's inputSchema: `,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("errors lack %q:\n%s", want, got)
		}
	}
	if strings.Count(got, "\n") != 2 {
		t.Errorf("want exactly 3 errors:\n%s", got)
	}
	if _, err := Parse([]byte("- {id: a, prompt: p, negative: true, draft: yes please}\n"), "t.yaml"); err == nil || !strings.Contains(err.Error(), "draft") {
		t.Errorf("a draft that is not a boolean: %v", err)
	}
}
