package golden

import (
	"testing"

	"github.com/mcp-eval/mcp-eval/tasks"
)

// TestSoftItems counts the statistical gate's family as the gate will:
// soft cases on each model they run on, hard cases and cases skipped for
// want of a judge left out. A shard's floor level is spent over this
// count for the whole golden set, so that it is never larger than the
// merged report's.
func TestSoftItems(t *testing.T) {
	t.Parallel()
	suite, err := tasks.Parse([]byte(`version: 1
cases:
  - id: a
    prompt: What is the forecast for Paris?
    expect_tool: get_forecast
  - id: b
    prompt: What is the forecast for Oslo?
    expect_tool: get_forecast
    kind: hard
  - id: c
    prompt: Write to Ana about the weather.
    expect_tool: get_forecast
    rubric: The answer names a temperature.
`), "tasks.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p := &Plan{Suite: suite, Cases: suite.Cases, Models: []string{"openai:m1", "anthropic:m2"}}
	if got := p.softItems(suite.Cases, ScoreOptions{}); got != 4 {
		t.Errorf("with a judge: %d soft items, want 4 (a and c on two models)", got)
	}
	if got := p.softItems(suite.Cases, ScoreOptions{NoJudge: "--judge-model none"}); got != 2 {
		t.Errorf("without a judge: %d soft items, want 2 (c is skipped)", got)
	}
	// The second of two shards holds the hard case alone: it counts none,
	// which is why a shard counts the whole set instead.
	if got := p.softItems(suite.Shard(2, 2), ScoreOptions{}); got != 0 {
		t.Errorf("shard 2/2 counts %d soft items, want 0", got)
	}
}
