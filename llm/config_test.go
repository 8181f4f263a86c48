package llm

import "testing"

func TestSplitSpec(t *testing.T) {
	t.Parallel()
	tests := []struct {
		spec, provider, model string
		ok                    bool
	}{
		{spec: "openai:gpt-4.1-mini", provider: "openai", model: "gpt-4.1-mini", ok: true},
		{spec: "anthropic:claude-sonnet-4-5", provider: "anthropic", model: "claude-sonnet-4-5", ok: true},
		{spec: "ollama:qwen2.5:7b", provider: "ollama", model: "qwen2.5:7b", ok: true},
		{spec: " OpenAI:gpt-4o ", provider: "openai", model: "gpt-4o", ok: true},
		{spec: "gpt-4o", provider: "gpt-4o"},
		{spec: "openai:", provider: "openai"},
		{spec: ":gpt-4o", model: "gpt-4o"},
		{spec: ""},
	}
	for _, tt := range tests {
		p, m, ok := SplitSpec(tt.spec)
		if ok != tt.ok || p != tt.provider || m != tt.model {
			t.Errorf("SplitSpec(%q) = %q, %q, %v", tt.spec, p, m, ok)
		}
	}
}

func TestSnapshotOf(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		want, have string
		ok         bool
	}{
		{"claude-sonnet-4-5", "claude-sonnet-4-5", true},
		{"claude-sonnet-4-5", "claude-sonnet-4-5-20250929", true},
		{"claude-sonnet-4-5-latest", "claude-sonnet-4-5-20250929", true},
		{"gpt-4.1-mini", "gpt-4.1-mini-2025-04-14", true},
		{"gpt-4o", "gpt-4o-mini", false},
		{"claude-sonnet-4", "claude-sonnet-4-5-20250929", false},
		{"claude-sonnet-4-5", "claude-sonnet-4-5-2025092", false},
	} {
		if got := SnapshotOf(tt.want, tt.have); got != tt.ok {
			t.Errorf("SnapshotOf(%q, %q) = %v", tt.want, tt.have, got)
		}
	}
}
