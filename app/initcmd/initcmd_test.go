package initcmd

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcp-eval/mcp-eval/app/config"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/tasks"
	"github.com/mcp-eval/mcp-eval/tasks/taskstest"
	"gopkg.in/yaml.v3"
)

// TestDraftCases: a case per tool with arguments that validate, a negative
// case, and a tell-apart case per near-duplicate pair, which forbids the
// other tool; the file parses and checks against the tools, every case a
// draft.
func TestDraftCases(t *testing.T) {
	t.Parallel()
	weather := taskstest.WeatherTools(t)
	tools := append(weather,
		mcp.Tool{Name: "get_conditions", Description: weather[0].Description,
			InputSchema: json.RawMessage(`{"type":"object","properties":{"place":{"type":"string","examples":["Oslo"]}},"required":["place"]}`)},
		mcp.Tool{Name: "weird.name/v2", Description: "", InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","minimum":3}},"required":["n"]}`)})
	cases := draftCases(tools)
	b, err := goldenFile("srv", len(tools), cases, "", stubTools(tools))
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
	if tasks.Drafts(s.Cases) != len(s.Cases) || len(s.Cases) != len(tools)+1+1 {
		t.Errorf("%d cases, %d drafts:\n%s", len(s.Cases), tasks.Drafts(s.Cases), b)
	}
	byID := map[string]*tasks.Case{}
	for _, c := range s.Cases {
		byID[c.ID] = c
	}
	if c := byID["get-weather-not-get-conditions"]; c == nil || c.ExpectTool != "get_weather" || len(c.ForbidTools) != 1 || c.ForbidTools[0] != "get_conditions" {
		t.Errorf("no tell-apart case for the near-duplicate pair:\n%s", b)
	}
	if c := byID["get-conditions"]; c == nil || len(c.Args) != 1 || string(c.Args[0].Expected) != `"Oslo"` {
		t.Errorf("the schema's example is not the expected argument:\n%s", b)
	}
	if c := byID["weird-name-v2"]; c == nil || len(c.Args) != 1 || string(c.Args[0].Expected) != "3" {
		t.Errorf("the sample must satisfy minimum 3:\n%s", b)
	}
	if c := byID["no-tool-needed"]; c == nil || !c.Negative {
		t.Errorf("no negative case:\n%s", b)
	}
	if !strings.Contains(string(b), "draft: true # edit this case, then delete this line") ||
		!strings.Contains(string(b), "# get_weather and get_conditions have near-duplicate descriptions") {
		t.Errorf("the drafts do not say what to edit:\n%s", b)
	}
}

func TestDescribedExample(t *testing.T) {
	t.Parallel()
	for desc, want := range map[string]string{
		"City to report on, e.g. Paris or New York (case-insensitive).":                      "Paris",
		"Customer name or part of it, case-insensitive (e.g. acme matches Acme Corp).":       "acme",
		"Recipient email address, a bare address such as ana@example.com (no display name).": "ana@example.com",
		"An invoice id, for example INV-1012.":                                               "INV-1012",
		"Free text.":                                                                         "",
	} {
		if got := describedExample(desc); got != want {
			t.Errorf("describedExample(%q) = %q, want %q", desc, got, want)
		}
	}
}

// TestKindOf: the server's kind picks the action (README, "Two actions").
func TestKindOf(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		cfg  config.Config
		host bool
		why  string
	}{
		{config.Config{ServerURL: "https://mcp.example.com/mcp"}, false, "a URL the Docker action's container reaches"},
		{config.Config{ServerURL: "http://127.0.0.1:8080/mcp"}, true, "localhost"},
		{config.Config{ServerStart: "node server.js", ServerURL: "http://localhost:3000/mcp"}, true, "server-start"},
		{config.Config{ServerCmd: "node build/index.js"}, true, "Node"},
		{config.Config{ServerCmd: "uvx my-server"}, true, "Python"},
		{config.Config{ServerCmd: "go run ./examples/weather-server"}, true, "with go"},
		{config.Config{ServerCmd: "./bin/server --stdio"}, false, "a binary in the workspace"},
		{config.Config{ServerCmd: "/usr/local/bin/foo --stdio"}, true, "/usr/local/bin/foo is outside this repository"},
	} {
		k := kindOf(&tt.cfg)
		if k.Host != tt.host || !strings.Contains(k.Why, tt.why) {
			t.Errorf("%+v: host %v, %q; want host %v, %q", tt.cfg, k.Host, k.Why, tt.host, tt.why)
		}
	}
}

// TestWorkflows: every kind of workflow pins the third-party actions as
// examples/workflows does (the same SHAs), has no top-level permissions,
// and passes actionlint when it is installed (.ci/install-deps.sh; the
// test says so when it is not).
func TestWorkflows(t *testing.T) {
	t.Parallel()
	examples, err := os.ReadFile("../../examples/workflows/mcp-eval.yml")
	if err != nil {
		t.Fatal(err)
	}
	stdio, _ := os.ReadFile("../../examples/workflows/mcp-eval-stdio.yml")
	for _, pin := range []string{checkoutAction, cacheAction, uploadAction, sarifAction, setupNodeAction} {
		ref, _, _ := strings.Cut(pin, " #")
		if !strings.Contains(string(examples)+string(stdio), ref) {
			t.Errorf("%s is not pinned as examples/workflows pins it", ref)
		}
	}
	lint, _ := exec.LookPath("actionlint")
	if lint == "" {
		t.Log("actionlint is not installed: the workflows are checked for their pins only (go install github.com/rhysd/actionlint/cmd/actionlint@v1.7.12)")
	}
	pinned := regexp.MustCompile(`uses: ([\w.-]+/[\w./-]+)@(\S+)`)
	dir := t.TempDir()
	with := func(c config.Config, models string) config.Config { c.Models = models; return c }
	for i, cfg := range []config.Config{
		with(config.Config{ServerURL: "https://mcp.example.com/mcp"}, "openai:gpt-4.1-mini"),
		with(config.Config{ServerCmd: "node build/index.js"}, "ollama:qwen2.5:7b"),
		{ServerStart: "python -m my_server --port 8080", ServerURL: "http://127.0.0.1:8080/mcp", Headers: config.ListFlag{Vals: []string{"Authorization: Bearer $MCP_TOKEN"}}},
		with(config.Config{ServerCmd: "./server"}, "anthropic:claude-sonnet-4-5"),
		{ServerCmd: "go run ./cmd/server --name 'it''s'"},
		{ServerStart: "/home/me/bin/foo --port 8080", ServerURL: "http://127.0.0.1:8080/mcp"},
		{ServerCmd: "/opt/foo server/bin"},
	} {
		wf := workflowFile(&cfg, "srv", kindOf(&cfg))
		for _, m := range pinned.FindAllStringSubmatch(wf, -1) {
			if !strings.HasPrefix(m[1], "mcp-eval/") && !regexp.MustCompile(`^[0-9a-f]{40}$`).MatchString(m[2]) {
				t.Errorf("workflow %d: %s@%s is not pinned by a full SHA", i, m[1], m[2])
			}
		}
		if !strings.Contains(wf, "\npermissions: {}\n") || !strings.Contains(wf, "github.event.label.name == 'run-evals'") {
			t.Errorf("workflow %d lacks the least permissions or the label rule:\n%s", i, wf)
		}
		// The label rule of the example workflows (TestExampleWorkflows):
		// a workflow-level group is claimed before the job's if: is read,
		// so any other label would cancel a running evaluation.
		var parsed struct {
			Concurrency any `yaml:"concurrency"`
			Jobs        map[string]struct {
				Concurrency struct {
					Group  string `yaml:"group"`
					Cancel string `yaml:"cancel-in-progress"`
				} `yaml:"concurrency"`
			} `yaml:"jobs"`
		}
		if err := yaml.Unmarshal([]byte(wf), &parsed); err != nil {
			t.Fatalf("workflow %d: %v", i, err)
		}
		if parsed.Concurrency != nil {
			t.Errorf("workflow %d: a workflow-level concurrency group in a label-triggered workflow: any other label cancels a running evaluation", i)
		}
		if c := parsed.Jobs["eval"].Concurrency; !strings.Contains(c.Group, "github.run_id") || c.Cancel != "${{ github.event_name == 'pull_request' }}" {
			t.Errorf("workflow %d: the eval job's concurrency %+v, want its own group per PR and a run of its own for schedules", i, c)
		}
		if strings.Contains(cfg.Models, "anthropic") && !strings.Contains(wf, "ANTHROPIC_API_KEY: ${{ secrets.ANTHROPIC_API_KEY }}") {
			t.Errorf("workflow %d does not pass the model's key:\n%s", i, wf)
		}
		if lint == "" {
			continue
		}
		path := filepath.Join(dir, "w.yml")
		os.WriteFile(path, []byte(wf), 0o644)
		if out, err := exec.Command(lint, path).CombinedOutput(); err != nil {
			t.Errorf("workflow %d: actionlint: %v\n%s\n%s", i, err, out, wf)
		}
	}
}
