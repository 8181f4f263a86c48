package vllm

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcp-eval/mcp-eval/llm"
	"github.com/mcp-eval/mcp-eval/llm/llmtest"
	"github.com/mcp-eval/mcp-eval/llm/providertest"
)

var weather = llm.Tool{Name: "get_weather", InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`)}

// TestWithoutAutoToolChoice: vLLM started without
// --enable-auto-tool-choice refuses tools with a 400 that names the
// flags; the provider says which flags to restart with, once, in the
// probe before any case runs.
func TestWithoutAutoToolChoice(t *testing.T) {
	t.Parallel()
	p, log := providertest.Rig(t, Def, llmtest.Options{Models: []string{"Qwen/Qwen2.5-7B-Instruct"}, Quirks: map[string]bool{"no-auto-tool-choice": true}})
	err := p.(llm.Prober).Probe(t.Context(), "Qwen/Qwen2.5-7B-Instruct")
	for _, want := range []string{"model vllm:Qwen/Qwen2.5-7B-Instruct at http://127.0.0.1:", `"auto" tool choice requires --enable-auto-tool-choice`, "restart vLLM with --enable-auto-tool-choice --tool-call-parser"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("probe: %v; want %q", err, want)
		}
	}
	// Without tools the same server answers.
	if _, err := providertest.Ask(t, p, "Qwen/Qwen2.5-7B-Instruct", "hi"); err != nil {
		t.Error(err)
	}
	if n := len(log.Posts()); n != 2 {
		t.Errorf("%d requests", n)
	}
}

// TestFinishReasonNotTrusted: an answer without a call whose
// finish_reason says tool_calls (a vLLM bug) is a final answer; ids
// chatcmpl-tool-… are kept as they came.
func TestFinishReasonNotTrusted(t *testing.T) {
	t.Parallel()
	p, _ := providertest.Rig(t, Def, llmtest.Options{Quirks: map[string]bool{"tool-calls-without-calls": true}, Reply: func(r llmtest.Request) llmtest.Reply {
		if strings.Contains(r.LastUser(), "Paris") {
			return llmtest.Reply{Calls: []llmtest.ReplyCall{{Name: "get_weather", Args: `{"city":"Paris"}`}}}
		}
		return llmtest.Reply{Text: "Hello."}
	}})
	resp, err := providertest.Ask(t, p, "m", "hi", weather)
	if err != nil || resp.StopReason != llm.StopEndTurn || resp.Message.Content != "Hello." {
		t.Errorf("%+v, %v", resp, err)
	}
	resp, err = providertest.Ask(t, p, "m", "Paris?", weather)
	if err != nil || resp.StopReason != llm.StopToolUse || !strings.HasPrefix(resp.Message.ToolCalls[0].ID, "chatcmpl-tool-") {
		t.Errorf("%+v, %v", resp, err)
	}
}

// TestUnknownModel: another name is vLLM's 404, with the hint.
func TestUnknownModel(t *testing.T) {
	t.Parallel()
	p, _ := providertest.Rig(t, Def, llmtest.Options{Models: []string{"Qwen/Qwen2.5-7B-Instruct"}})
	_, err := providertest.Ask(t, p, "qwen2.5", "hi")
	if err == nil || !strings.Contains(err.Error(), "The model `qwen2.5` does not exist.") || !strings.Contains(err.Error(), "--served-model-name") {
		t.Errorf("got %v", err)
	}
}
