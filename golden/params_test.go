package golden

import (
	"strings"
	"testing"
)

// TestDroppedParamsWarnOnce: --model-seed with an Anthropic model is one
// warning line naming the flag and the model; providers that send a seed
// and runs without one are silent.
func TestDroppedParamsWarnOnce(t *testing.T) {
	t.Parallel()
	models := []string{"openai:gpt-4.1-mini", "anthropic:claude-sonnet-4-5", "ollama:qwen2.5:7b"}
	got := droppedParams(models, RunFlags{ModelSeed: 7})
	if len(got) != 1 || !strings.Contains(got[0], "--model-seed") || !strings.Contains(got[0], "anthropic:claude-sonnet-4-5") || strings.Contains(got[0], "\n") {
		t.Errorf("warnings %q, want one line for anthropic", got)
	}
	if got := droppedParams(models, RunFlags{ModelSeed: -1}); len(got) != 0 {
		t.Errorf("no seed, warnings %q", got)
	}
}
