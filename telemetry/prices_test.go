package telemetry

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-eval/mcp-eval/llm"
	"github.com/mcp-eval/mcp-eval/llm/providers"
	"github.com/mcp-eval/mcp-eval/report"
)

func TestCost(t *testing.T) {
	t.Parallel()
	p := BuiltinPrices()
	tests := []struct {
		model   string
		in, out int64
		want    float64
		ok      bool
	}{
		// gpt-4.1-mini: $0.40 in, $1.60 out per 1M.
		{"openai:gpt-4.1-mini", 1_000_000, 0, 0.40, true},
		{"openai:gpt-4.1-mini", 0, 1_000_000, 1.60, true},
		{"openai:gpt-4.1-mini", 1000, 200, 0.00072, true}, // 1000·0.4/1e6 + 200·1.6/1e6
		{"openai:gpt-4.1-mini", 0, 0, 0, true},
		// claude-sonnet-4-5: $3 in, $15 out.
		{"anthropic:claude-sonnet-4-5", 12_000, 800, 0.048, true}, // 0.036 + 0.012
		// A dated snapshot and a -latest alias resolve to the model.
		{"anthropic:claude-sonnet-4-5-20250929", 12_000, 800, 0.048, true},
		{"openai:gpt-4.1-mini-2025-04-14", 1_000_000, 1_000_000, 2.00, true},
		{"anthropic:claude-3-5-haiku-latest", 1_000_000, 0, 0.80, true},
		// Case does not matter.
		{"OpenAI:GPT-4o", 1_000_000, 0, 2.50, true},
		// Prefixes are not guessed: gpt-4o-mini is not gpt-4o.
		{"openai:gpt-4o-mini", 1_000_000, 0, 0.15, true},
		// Unknown models have no cost, not a zero one.
		{"openai:llama3.2", 1000, 1000, 0, false},
		{"anthropic:claude-sonnet-9", 1000, 1000, 0, false},
	}
	for _, tt := range tests {
		got, ok := p.Cost(tt.model, llm.Usage{InputTokens: tt.in, OutputTokens: tt.out})
		if ok != tt.ok || got != tt.want {
			t.Errorf("Cost(%s, %d in, %d out) = %v, %v; want %v, %v", tt.model, tt.in, tt.out, got, ok, tt.want, tt.ok)
		}
	}
	var nilPrices *Prices
	if got, ok := nilPrices.Cost("openai:gpt-4o", llm.Usage{OutputTokens: 100_000}); !ok || got != 1 {
		t.Errorf("nil *Prices is the built-in table: got %v, %v", got, ok)
	}
}

func TestBuiltinPricesAreSane(t *testing.T) {
	t.Parallel()
	for k, v := range builtin() {
		if _, _, err := providers.Parse(k); err != nil {
			t.Errorf("%s: %v", k, err)
		}
		if v[0] <= 0 || v[2] < v[0] || v[1] <= 0 || v[1] > v[0] {
			t.Errorf("%s: input %v cached %v output %v: want 0 < cached ≤ input ≤ output", k, v[0], v[1], v[2])
		}
	}
}

func TestParsePrices(t *testing.T) {
	t.Parallel()
	p, err := ParsePrices("prices.yaml", []byte(`# checked by hand
date: 2026-03-01
models:
  openai:gpt-4.1-mini: {input: 0.20, output: 0.80}
  anthropic:claude-sonnet-5:
    input: 2
    output: 10
  openai:my-finetune-2026-01-01: {input: 0, output: 0}
`))
	if err != nil {
		t.Fatal(err)
	}
	// An override.
	if got, _ := p.Cost("openai:gpt-4.1-mini", llm.Usage{InputTokens: 1e6, OutputTokens: 1e6}); got != 1.00 {
		t.Errorf("overridden gpt-4.1-mini: %v, want 1.00", got)
	}
	// An addition, with its source.
	pr, ok := p.Lookup("anthropic:claude-sonnet-5")
	if !ok || pr.Input != 2 || pr.Output != 10 || pr.Source != "prices.yaml:5" {
		t.Errorf("claude-sonnet-5: %+v, %v", pr, ok)
	}
	// A snapshot priced apart from its alias is found as written: free.
	if got, ok := p.Cost("openai:my-finetune-2026-01-01", llm.Usage{InputTokens: 1e6}); !ok || got != 0 {
		t.Errorf("free finetune: %v, %v", got, ok)
	}
	// The rest of the built-in table is kept.
	if pr, ok := p.Lookup("openai:gpt-4o"); !ok || pr.Source != "built-in "+BuiltinDate {
		t.Errorf("gpt-4o: %+v, %v", pr, ok)
	}
	tab := p.Table()
	if tab.Date != BuiltinDate || len(tab.Files) != 1 || tab.Files[0] != "prices.yaml (2026-03-01)" {
		t.Errorf("table: %+v", tab)
	}
}

// TestPriceErrors: every problem names the file and line.
func TestPriceErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, yaml string
		want       []string // substrings, each "file:line: …"
	}{
		{"negative input", "models:\n  openai:gpt-4o: {input: -1, output: 10}\n",
			[]string{"p.yaml:2: openai:gpt-4o: input price -1 is negative"}},
		{"negative output on its own line", "models:\n  openai:gpt-4o:\n    input: 1\n    output: -0.5\n",
			[]string{"p.yaml:4: openai:gpt-4o: output price -0.5 is negative"}},
		{"not a number", "models:\n  openai:gpt-4o: {input: cheap, output: 10}\n",
			[]string{`p.yaml:2: openai:gpt-4o: input price "cheap" is not a number`}},
		{"missing output", "models:\n  openai:gpt-4o:\n    input: 1\n",
			[]string{"p.yaml:3: openai:gpt-4o: no output price"}},
		{"unknown price key", "models:\n  openai:gpt-4o: {input: 1, output: 2, cached: 0.5}\n",
			[]string{`p.yaml:2: openai:gpt-4o: unknown key "cached"`}},
		{"no provider", "models:\n  gpt-4o: {input: 1, output: 2}\n",
			[]string{"p.yaml:2: model \"gpt-4o\": want provider:model"}},
		{"unknown provider", "models:\n  google:gemini: {input: 1, output: 2}\n",
			[]string{`p.yaml:2: model "google:gemini": unknown provider`}},
		{"unknown top-level key", "modles:\n  openai:gpt-4o: {input: 1, output: 2}\n",
			[]string{`p.yaml:1: unknown key "modles" (did you mean "models"?)`, "p.yaml:1: no models:"}},
		{"misspelt price key", "models:\n  openai:gpt-4o: {input: 1, outptu: 2}\n",
			[]string{`p.yaml:2: openai:gpt-4o: unknown key "outptu" (did you mean "output"?)`}},
		{"duplicate", "models:\n  openai:gpt-4o: {input: 1, output: 2}\n  openai:gpt-4o: {input: 1, output: 3}\n",
			[]string{`p.yaml:3: duplicate key "openai:gpt-4o" (first at line 2)`}},
		{"duplicate but for case", "models:\n  openai:gpt-4o: {input: 1, output: 2}\n  OpenAI:gpt-4o: {input: 1, output: 3}\n",
			[]string{"p.yaml:3: openai:gpt-4o is priced twice (first at line 2)"}},
		{"syntax", "models:\n  openai:gpt-4o: {input: 1, output: 2\n  x: y\n",
			[]string{"p.yaml:2: invalid YAML: did not find expected ',' or '}'"}},
		{"empty", "", []string{"p.yaml: the price file is empty"}},
		{"a list", "- 1\n- 2\n", []string{"p.yaml:1: want a mapping"}},
		{"two errors at once", "models:\n  openai:gpt-4o: {input: -1, output: 2}\n  openai:o3: {input: 1, output: -2}\n",
			[]string{"p.yaml:2: openai:gpt-4o: input price -1", "p.yaml:3: openai:o3: output price -2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParsePrices("p.yaml", []byte(tt.yaml))
			if err == nil {
				t.Fatal("no error")
			}
			var pe *PriceError
			if !errors.As(err, &pe) || pe.File != "p.yaml" || pe.Line < 1 && tt.name != "empty" {
				t.Fatalf("not a *PriceError with file and line: %#v", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestLoadPrices(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "prices.yaml")
	if err := os.WriteFile(path, []byte("models:\n  openai:gpt-4o:\n    input: 2\n    output: -3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := LoadPrices(path)
	if err == nil || !strings.HasPrefix(err.Error(), path+":4: ") {
		t.Fatalf("LoadPrices: %v, want %s:4: …", err, path)
	}
	if _, err := LoadPrices(filepath.Join(dir, "missing.yaml")); err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// TestCostWithPromptCaching prices cached-token usage to the cent, as the
// providers bill it, against hand computations from the published prices.
func TestCostWithPromptCaching(t *testing.T) {
	t.Parallel()
	p := BuiltinPrices()
	tests := []struct {
		name  string
		model string
		u     llm.Usage
		want  float64
	}{
		// OpenAI gpt-4.1-mini: 1M prompt tokens of which 600k cached:
		// 400k × $0.40 + 600k × $0.10 + 100k out × $1.60 = 0.16 + 0.06 + 0.16.
		{"openai 60% cache hits", "openai:gpt-4.1-mini",
			llm.Usage{InputTokens: 1_000_000, CachedInputTokens: 600_000, OutputTokens: 100_000}, 0.38},
		// Billing cached tokens at the full price would say 0.56: 47 % too high.
		{"openai no cache", "openai:gpt-4.1-mini", llm.Usage{InputTokens: 1_000_000, OutputTokens: 100_000}, 0.56},
		// Reasoning tokens are output tokens (already inside OutputTokens).
		{"openai reasoning", "openai:o4-mini",
			llm.Usage{InputTokens: 10_000, OutputTokens: 50_000, ReasoningTokens: 45_000}, 0.011 + 0.22},
		// Anthropic claude-sonnet-4-5: 1M input = 200k plain + 600k cache
		// reads + 200k cache writes: 0.2 × $3 + 0.6 × $0.30 + 0.2 × $3.75
		// = 0.60 + 0.18 + 0.75; 10k out × $15 = 0.15.
		{"anthropic reads and writes", "anthropic:claude-sonnet-4-5",
			llm.Usage{InputTokens: 1_000_000, CachedInputTokens: 600_000, CacheWriteTokens: 200_000, OutputTokens: 10_000}, 1.68},
	}
	for _, tt := range tests {
		got, ok := p.Cost(tt.model, tt.u)
		if !ok || math.Abs(got-tt.want) >= 0.005 {
			t.Errorf("%s: $%.4f (%v), want $%.2f", tt.name, got, ok, tt.want)
		}
	}
	// An answer without usage has an unknown cost, never $0.
	if got, ok := p.Cost("openai:gpt-4.1-mini", llm.Usage{InputTokens: 10, Unknown: true}); ok || got != 0 {
		t.Errorf("unknown usage: %v, %v; want unknown", got, ok)
	}
	// A price file may set the cache rates; left out, the provider's rule.
	f, err := ParsePrices("p.yaml", []byte("models:\n  openai:m: {input: 1, cached_input: 0.25, output: 2}\n  anthropic:c: {input: 4, output: 8}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if pr, _ := f.Lookup("openai:m"); pr.CachedInput != 0.25 || pr.CacheWrite != 1 {
		t.Errorf("openai:m: %+v", pr)
	}
	if pr, _ := f.Lookup("anthropic:c"); pr.CachedInput != 0.4 || pr.CacheWrite != 5 {
		t.Errorf("anthropic:c: %+v", pr)
	}
}

// TestRecorderPricesCachedTokens: the usage the providers report (cached
// input apart, reasoning in the output) reaches the per-model cost as
// billed, and an answer without usage makes the cost unknown.
func TestRecorderPricesCachedTokens(t *testing.T) {
	t.Parallel()
	r := New(nil)
	// Two calls of gpt-4.1-mini: 500k prompt tokens each, 300k of them
	// cached, 50k out: 2 × (200k × 0.40 + 300k × 0.10 + 50k × 1.60) / 1M
	// = 2 × (0.08 + 0.03 + 0.08) = $0.38.
	for range 2 {
		r.RequestEnd("openai", "gpt-4.1-mini", time.Millisecond, llm.Usage{InputTokens: 500_000, CachedInputTokens: 300_000, OutputTokens: 50_000}, nil)
	}
	r.RequestEnd("openai", "gpt-4o", time.Millisecond, llm.Usage{InputTokens: 10, Unknown: true}, nil)
	tel := r.Telemetry()
	if mu := tel.Models["openai:gpt-4.1-mini"]; mu.CostUnknown || math.Abs(mu.CostUSD-0.38) >= 0.005 || mu.Price.CachedInputPerMTok != 0.10 {
		t.Errorf("gpt-4.1-mini: $%v unknown %v price %+v; want $0.38", mu.CostUSD, mu.CostUnknown, mu.Price)
	}
	if mu := tel.Models["openai:gpt-4o"]; !mu.CostUnknown || mu.CostUSD != 0 {
		t.Errorf("gpt-4o without usage: $%v unknown %v; want unknown", mu.CostUSD, mu.CostUnknown)
	}
	if !strings.Contains(strings.Join(tel.Notes, "\n"), "openai:gpt-4o answered at least once without token usage") {
		t.Errorf("notes %q", tel.Notes)
	}
}

// TestTokensUnknownNeverZero: a model whose answers carried no usage shows
// its tokens as unknown, in the telemetry, the terminal report and
// summary.md, never as 0 tokens measured; one that reported some is a
// lower bound.
func TestTokensUnknownNeverZero(t *testing.T) {
	t.Parallel()
	r := New(nil)
	r.RequestEnd("lmstudio", "qwen3", time.Millisecond, llm.Usage{Unknown: true}, nil)
	r.RequestEnd("openai", "gpt-4o", time.Millisecond, llm.Usage{InputTokens: 10, OutputTokens: 3}, nil)
	r.RequestEnd("openai", "gpt-4o", time.Millisecond, llm.Usage{Unknown: true}, nil)
	tel := r.Telemetry()
	none, some := tel.Models["lmstudio:qwen3"], tel.Models["openai:gpt-4o"]
	if !none.TokensUnknown || !some.TokensUnknown {
		t.Fatalf("TokensUnknown: %v, %v; want both", none.TokensUnknown, some.TokensUnknown)
	}
	if got := report.TokensText(none); got != "tokens unknown" {
		t.Errorf("no usage at all: %q", got)
	}
	if got := report.TokensText(some); got != "tokens at least 10 in, 3 out (some answers reported none)" {
		t.Errorf("partial usage: %q", got)
	}
	rep := &report.Report{SchemaVersion: report.SchemaVersion, Telemetry: tel}
	var text, md bytes.Buffer
	if err := report.WriteText(&text, rep, report.TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := report.WriteMarkdown(&md, rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "tokens unknown") || strings.Contains(text.String(), "tokens 0 in") {
		t.Errorf("terminal report:\n%s", text.String())
	}
	if !strings.Contains(md.String(), "| unknown | unknown |") || !strings.Contains(md.String(), "| ≥ 10 | ≥ 3 |") {
		t.Errorf("summary.md:\n%s", md.String())
	}
}
