package main

import (
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/kballard/go-shellquote"

	"github.com/mcp-eval/mcp-eval/app/apptest"
	"github.com/mcp-eval/mcp-eval/llm/llmtest"
	"github.com/mcp-eval/mcp-eval/llm/providers"
	"github.com/mcp-eval/mcp-eval/llm/providertest"
	"github.com/mcp-eval/mcp-eval/report"
)

// readmeBlock returns the first sh block after heading in README.md.
func readmeBlock(t *testing.T, heading string) string {
	t.Helper()
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), heading+"\n")
	if !ok {
		t.Fatalf("README.md has no %q", heading)
	}
	_, rest, _ = strings.Cut(rest, "```sh\n")
	block, _, _ := strings.Cut(rest, "```")
	return block
}

// TestTryLayer1OnYourLaptop follows README's "Try Layer 1 on your laptop"
// word for word where a test can: `ollama serve` and `ollama pull` are
// stood in for by the Ollama emulation at Ollama's own address variable,
// serving the model the README pulls; the mcp-eval command is run as
// written, and every case of the seed passes with a model that does what
// each asks.
func TestTryLayer1OnYourLaptop(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the example server")
	}
	block := readmeBlock(t, "### Try Layer 1 on your laptop")
	lines := strings.Split(strings.TrimSpace(block), "\n")
	if len(lines) != 3 || lines[0] != "ollama serve &" || lines[1] != "ollama pull qwen2.5:7b" || !strings.HasPrefix(lines[2], "go run . run ") {
		t.Fatalf("the section's commands changed; update this test:\n%s", block)
	}
	words, err := shellquote.Split(strings.TrimPrefix(lines[2], "go run . "))
	if err != nil {
		t.Fatal(err)
	}
	model := strings.TrimPrefix(lines[1], "ollama pull ")
	def, _ := providers.Lookup("ollama")
	srv := httptest.NewServer(providertest.Emulate(t, def, llmtest.Options{Models: []string{model}, Reply: func(r llmtest.Request) llmtest.Reply {
		p, done := r.Messages[0].Content, r.ToolResults()
		for _, m := range r.Messages {
			if m.Role == "user" {
				p = m.Content
				break
			}
		}
		switch {
		case r.Format != nil: // the judge
			return llmtest.Reply{Text: `{"reason": "the same city", "verdict": "pass"}`}
		case strings.Contains(p, "Paris") && done == 0:
			return llmtest.Reply{Calls: []llmtest.ReplyCall{{Name: "get_weather", Args: `{"city":"Paris"}`}}}
		case strings.Contains(p, "New York") && done == 0:
			return llmtest.Reply{Calls: []llmtest.ReplyCall{{Name: "get_weather", Args: `{"city":"New York","units":"fahrenheit"}`}}}
		case strings.Contains(p, "Globex") && done == 0:
			return llmtest.Reply{Calls: []llmtest.ReplyCall{{Name: "search_invoices", Args: `{"customer":"globex","status":"overdue"}`}}}
		case strings.Contains(p, "Globex") && done == 1:
			return llmtest.Reply{Calls: []llmtest.ReplyCall{{Name: "send_email", Args: `{"to":"billing@example.com","subject":"Globex overdue","body":"INV-1"}`}}}
		}
		return llmtest.Reply{Text: "Done."}
	}}))
	defer srv.Close()
	dir := t.TempDir()
	// The README's command, plus where this test keeps its outputs.
	args := append(words, "--out", dir+"/out", "--cache-dir", dir+"/cache")
	code, stdout, stderr := runCLI(t, apptest.Env(map[string]string{"OLLAMA_HOST": srv.URL}), args...)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	r := apptest.LoadReport(t, dir+"/out/report.json")
	for _, c := range r.Cases {
		if c.Status != report.StatusPass || c.Model != "ollama:"+model {
			t.Errorf("case %s on %s: %s %v", c.ID, c.Model, c.Status, c.Failures)
		}
	}
	if len(r.Cases) != 4 || r.Telemetry == nil || r.Telemetry.Models["ollama:"+model].CostUSD != 0 || r.Telemetry.Models["ollama:"+model].CostUnknown {
		t.Errorf("%d cases; telemetry %+v: want 4 cases at $0", len(r.Cases), r.Telemetry)
	}
}
