package openrouter

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcp-eval/mcp-eval/llm"
	"github.com/mcp-eval/mcp-eval/llm/llmtest"
	"github.com/mcp-eval/mcp-eval/llm/providertest"
)

var weather = llm.Tool{Name: "get_weather", InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`)}

const key = "sk-or-v1-0123456789abcdef0123456789abcdef"

func TestPriceKey(t *testing.T) {
	t.Parallel()
	for model, want := range map[string]string{
		"openai/gpt-4.1-mini":                    "openai:gpt-4.1-mini",
		"anthropic/claude-sonnet-4.5":            "anthropic:claude-sonnet-4-5",
		"meta-llama/llama-3.3-70b-instruct":      "meta-llama:llama-3.3-70b-instruct",
		"meta-llama/llama-3.3-70b-instruct:free": "free",
		"nonsense":                               "",
	} {
		k, free := priceKey(model)
		if free {
			k = "free"
		}
		if k != want {
			t.Errorf("priceKey(%q) = %q, want %q", model, k, want)
		}
	}
}

// TestKeepAliveCommentsAndNativeFinishReason: an answer that comes as an
// event stream with ": OPENROUTER PROCESSING" comments is assembled (the
// comments skipped, usage read from the last chunk).
func TestKeepAliveCommentsAndNativeFinishReason(t *testing.T) {
	t.Parallel()
	p, _ := providertest.Rig(t, Def, llmtest.Options{Key: key, Quirks: map[string]bool{"stream": true}, Reply: func(r llmtest.Request) llmtest.Reply {
		if r.ToolResults() == 0 && strings.Contains(r.LastUser(), "Paris") {
			return llmtest.Reply{Calls: []llmtest.ReplyCall{{Name: "get_weather", Args: `{"city":"Paris"}`}}, InputTokens: 30, OutputTokens: 7}
		}
		return llmtest.Reply{Text: "It is sunny in Paris.", InputTokens: 40, OutputTokens: 6}
	}})
	resp, err := providertest.Ask(t, p, "m", "Weather in Paris?", weather)
	if err != nil || resp.StopReason != llm.StopToolUse || len(resp.Message.ToolCalls) != 1 || string(resp.Message.ToolCalls[0].Arguments) != `{"city":"Paris"}` ||
		resp.Usage != (llm.Usage{InputTokens: 30, OutputTokens: 7}) {
		t.Fatalf("%+v, %v", resp, err)
	}
	resp, err = providertest.Ask(t, p, "m", "Thanks")
	if err != nil || resp.Message.Content != "It is sunny in Paris." || resp.StopReason != llm.StopEndTurn {
		t.Fatalf("%+v, %v", resp, err)
	}
}

// TestUpstreamErrorIn200: an upstream failure inside a 200 is retried
// like the status it reports.
func TestUpstreamErrorIn200(t *testing.T) {
	t.Parallel()
	p, log := providertest.Rig(t, Def, llmtest.Options{Key: key, Quirks: map[string]bool{"upstream-502-once": true}},
		llm.WithMaxRetries(2), llm.WithSleep(func(context.Context, time.Duration) error { return nil }))
	if _, err := providertest.Ask(t, p, "m", "hi"); err != nil || len(log.Posts()) != 2 {
		t.Errorf("%v after %d requests", err, len(log.Posts()))
	}
}

// TestNoToolEndpoints: a model none of whose providers takes tools.
func TestNoToolEndpoints(t *testing.T) {
	t.Parallel()
	p, _ := providertest.Rig(t, Def, llmtest.Options{Key: key, Quirks: map[string]bool{"no-tool-endpoints": true}})
	_, err := providertest.Ask(t, p, "m", "hi", weather)
	if err == nil || !strings.Contains(err.Error(), "pick a model with tool support") {
		t.Errorf("got %v", err)
	}
}

// TestKeyRequired: OpenRouter needs its key.
func TestKeyRequired(t *testing.T) {
	t.Parallel()
	_, err := Def.New(Def, llm.NewEnv(func(string) string { return "" }), llm.NewSettings())
	var ee *llm.EnvError
	if !errors.As(err, &ee) || !strings.HasPrefix(err.Error(), "OPENROUTER_API_KEY is not set") {
		t.Errorf("got %v", err)
	}
}
