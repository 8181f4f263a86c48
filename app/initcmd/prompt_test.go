package initcmd

import (
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/mcp-eval/mcp-eval/app/config"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/tasks"
	"github.com/mcp-eval/mcp-eval/tasks/taskstest"
)

// TestDraftPromptsReadAsRequests: without a model, a draft's prompt is a
// request a user would type, built from the description and the
// arguments (the value where the description names it), never the
// description with "(name: value)" pasted after it.
func TestDraftPromptsReadAsRequests(t *testing.T) {
	t.Parallel()
	weather := taskstest.WeatherTools(t)
	tool := func(name, desc, schema string) mcp.Tool {
		return mcp.Tool{Name: name, Description: desc, InputSchema: json.RawMessage(schema)}
	}
	want := map[string]string{
		"get-weather":     "Could you get the current weather observation for Paris?",
		"search-invoices": "Could you search the accounts-receivable invoices of acme?",
		"send-email":      `Could you send a plain-text email to ana@example.com, with the body "mcp-eval" and the subject "mcp-eval"?`,
		"list-issues":     "Could you list the open issues of mcp-eval/mcp-eval?",
		"lookup-order":    "Could you get the order with ORD-7?",
		"weird-name-v2":   "I need weird name v2, with the n 3.",
		"titled":          "I need stock quote, with the symbol \"ACME\".",
		"no-tool-needed":  negativePrompt,
	}
	tools := append(weather,
		tool("list_issues", "Lists the open issues of a repository, newest first.",
			`{"type":"object","properties":{"repo":{"type":"string","description":"Repository, e.g. mcp-eval/mcp-eval"}},"required":["repo"]}`),
		tool("lookup_order", "This tool returns the order with a given id (and its lines).",
			`{"type":"object","properties":{"id":{"type":"string","examples":["ORD-7"]}},"required":["id"]}`),
		tool("weird.name/v2", "", `{"type":"object","properties":{"n":{"type":"integer","minimum":3}},"required":["n"]}`),
		mcp.Tool{Name: "titled", Title: "Stock quote", InputSchema: json.RawMessage(`{"type":"object","properties":{"symbol":{"type":"string","examples":["ACME"]}},"required":["symbol"]}`)},
	)
	pasted := regexp.MustCompile(`\(\w+: `)
	for _, c := range draftCases(tools) {
		if pasted.MatchString(c.Prompt) {
			t.Errorf("%s: %q pastes the arguments after a description", c.ID, c.Prompt)
		}
		if w, ok := want[c.ID]; ok && c.Prompt != w {
			t.Errorf("%s: prompt %q, want %q", c.ID, c.Prompt, w)
		}
	}
}

// TestDraftsStubToolsNotReadOnly: a tool the server does not mark
// readOnlyHint: true (false, or no annotations at all) is stubbed in the
// file's defaults, so no draft case executes it; read-only tools are not
// stubbed. The file parses and checks against the tools.
func TestDraftsStubToolsNotReadOnly(t *testing.T) {
	t.Parallel()
	tools := append(taskstest.WeatherTools(t), mcp.Tool{Name: "delete_repo", Description: "Delete a repository.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)})
	stubs := stubTools(tools)
	if strings.Join(stubs, ",") != "send_email,delete_repo" {
		t.Fatalf("stubTools = %v, want send_email and delete_repo", stubs)
	}
	b, err := goldenFile("srv", len(tools), draftCases(tools), "", stubs)
	if err != nil {
		t.Fatal(err)
	}
	s, err := tasks.Parse(b, "tasks.yaml")
	if err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	if err := s.Validate(tools); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	for _, c := range s.Cases {
		for _, name := range stubs {
			var res struct {
				Content []struct{ Type, Text string } `json:"content"`
			}
			if err := json.Unmarshal(c.Stubs[name], &res); err != nil || len(res.Content) != 1 || res.Content[0].Type != "text" {
				t.Errorf("case %s: %s is not stubbed with a CallToolResult: %s\n%s", c.ID, name, c.Stubs[name], b)
			}
		}
		for _, name := range []string{"get_weather", "search_invoices"} {
			if _, ok := c.Stubs[name]; ok {
				t.Errorf("case %s stubs the read-only %s", c.ID, name)
			}
		}
	}
	if !strings.Contains(string(b), "# send_email is not marked readOnlyHint: true") {
		t.Errorf("the file does not say why send_email is stubbed:\n%s", b)
	}
	// Every tool read-only: the short form, as before.
	b, _ = goldenFile("srv", 2, draftCases(tools[:2]), "", stubTools(tools[:2]))
	if s, err := tasks.Parse(b, "tasks.yaml"); err != nil || !s.List {
		t.Errorf("read-only tools only: want the short form: %v\n%s", err, b)
	}
}

// TestOutsideProgram: a server program outside the repository is named;
// one inside it, a runtime, or a system program is not.
func TestOutsideProgram(t *testing.T) {
	t.Parallel()
	look := func(name string) (string, error) {
		switch name {
		case "foo-mcp":
			return "/usr/local/bin/foo-mcp", nil
		case "cat":
			return "/usr/bin/cat", nil
		case "local-mcp":
			return "/repo/bin/local-mcp", nil
		}
		return "", errors.New("not found")
	}
	for prog, want := range map[string]string{
		"/usr/local/bin/foo": "/usr/local/bin/foo",
		"~/bin/foo":          "~/bin/foo",
		"/repo/bin/server":   "",
		"/repository/server": "/repository/server",
		"./bin/server":       "",
		"bin/server":         "",
		"foo-mcp":            "/usr/local/bin/foo-mcp",
		"cat":                "",
		"local-mcp":          "",
		"node":               "",
		"nowhere":            "",
	} {
		if got := outsideProgram(prog, "/repo", look); got != want {
			t.Errorf("outsideProgram(%q) = %q, want %q", prog, got, want)
		}
	}
}

// TestWorkflowForAProgramOutside: a server binary outside the repository
// gets host mode and a step that checks for it and names the step to
// edit (it passes actionlint in TestWorkflows).
func TestWorkflowForAProgramOutside(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		cfg   config.Config
		check string
	}{
		{config.Config{ServerCmd: "/usr/local/bin/foo --stdio"}, "command -v /usr/local/bin/foo"},
		{config.Config{ServerStart: "/home/me/bin/foo --port 8080", ServerURL: "http://127.0.0.1:8080/mcp"}, "command -v /home/me/bin/foo"},
	} {
		k := kindOf(&tt.cfg)
		if !k.Host || k.Outside == "" {
			t.Errorf("%+v: kind %+v, want host mode with the program outside", tt.cfg, k)
		}
		wf := workflowFile(&tt.cfg, "srv", k)
		if !strings.Contains(wf, "- name: Install the server (edit this step)") || !strings.Contains(wf, tt.check) ||
			!strings.Contains(wf, "is not on this runner: edit the \"Install the server\" step") {
			t.Errorf("%+v: no install step that finds the program:\n%s", tt.cfg, wf)
		}
		if strings.Index(wf, "Install the server") > strings.Index(wf, "id: eval") {
			t.Errorf("the install step comes after mcp-eval:\n%s", wf)
		}
	}
}
