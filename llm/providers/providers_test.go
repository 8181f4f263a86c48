package providers

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-eval/mcp-eval/llm"
	"github.com/mcp-eval/mcp-eval/llm/llmtest"
	"github.com/mcp-eval/mcp-eval/llm/providertest"
)

// weather is the tool the conformance runs offer.
var weather = llm.Tool{Name: "get_weather", Description: "Current weather for a city.",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)}

// script calls get_weather for Paris first, then answers the tool result.
func script(r llmtest.Request) llmtest.Reply {
	if r.ToolResults() == 0 && len(r.Tools) > 0 {
		return llmtest.Reply{Calls: []llmtest.ReplyCall{{Name: "get_weather", Args: `{"city":"Paris"}`}}, InputTokens: 40, OutputTokens: 8}
	}
	return llmtest.Reply{Text: "Sunny in Paris.", InputTokens: 60, OutputTokens: 4}
}

// TestEveryProviderAgainstItsEmulation is the registry's conformance run:
// every provider, built from the environment, completes a tool round
// (call, result, answer) against its own strict emulation, probes it, and
// names a model the server does not serve with a did-you-mean.
func TestEveryProviderAgainstItsEmulation(t *testing.T) {
	for _, def := range All() {
		t.Run(def.Name, func(t *testing.T) {
			t.Parallel()
			if providertest.Emulation(def.Name) == nil || def.New == nil || def.BaseURLEnv == "" || len(def.Keys) == 0 {
				t.Fatalf("%s: a provider declares New, BaseURLEnv and its key variables, and has an emulation in llm/providertest", def.Name)
			}
			const key = "test-key-0123456789abcdef"
			_, env, _ := providertest.Serve(t, def, llmtest.Options{Models: []string{"model-a", "other-model"}, Key: key, Reply: script})
			p, err := New(def.Name, func(k string) string { return env[k] }, llm.WithMaxRetries(0))
			if err != nil {
				t.Fatal(err)
			}
			zero := 0.0
			req := llm.Request{Model: "model-a", Temperature: &zero, Tools: []llm.Tool{weather},
				Messages: []llm.Message{{Role: llm.RoleSystem, Content: "Be brief."}, {Role: llm.RoleUser, Content: "Weather in Paris?"}}}
			resp, err := p.Complete(t.Context(), req)
			if err != nil {
				t.Fatal(err)
			}
			calls := resp.Message.ToolCalls
			if len(calls) != 1 || calls[0].Name != "get_weather" || string(calls[0].Arguments) != `{"city":"Paris"}` || calls[0].ID == "" {
				t.Fatalf("calls %+v", calls)
			}
			if resp.StopReason != llm.StopToolUse {
				t.Errorf("stop %q, want tool_use", resp.StopReason)
			}
			req.Messages = append(req.Messages, resp.Message, llm.Message{Role: llm.RoleTool, ToolCallID: calls[0].ID, Content: `{"sky":"sunny"}`})
			resp, err = p.Complete(t.Context(), req)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Message.Content != "Sunny in Paris." || len(resp.Message.ToolCalls) != 0 {
				t.Errorf("answer %+v", resp.Message)
			}
			if pr, ok := p.(llm.Prober); !ok {
				t.Error("the provider cannot be probed")
			} else {
				if err := pr.Probe(t.Context(), "model-a"); err != nil {
					t.Errorf("probe: %v", err)
				}
				err := pr.Probe(t.Context(), "model-b")
				var me *llm.ModelNotServedError
				if def.OneModel {
					if err != nil {
						t.Errorf("a server of one model answers any name, so the probe takes it: %v", err)
					}
				} else if !errors.As(err, &me) || !strings.Contains(err.Error(), `did you mean "model-a`) || !strings.Contains(err.Error(), def.Name+":model-b at ") {
					t.Errorf("probe of an unknown model: %v", err)
				}
			}
		})
	}
}

// TestEveryProviderRefusesAWrongKey: the emulations take only their key.
func TestEveryProviderRefusesAWrongKey(t *testing.T) {
	for _, def := range All() {
		t.Run(def.Name, func(t *testing.T) {
			t.Parallel()
			_, env, _ := providertest.Serve(t, def, llmtest.Options{Models: []string{"m"}, Key: "the-right-key-0123456789"})
			env[def.Keys[0]] = "a-wrong-key-0123456789"
			p, err := New(def.Name, func(k string) string { return env[k] }, llm.WithMaxRetries(0))
			if err != nil {
				t.Fatal(err)
			}
			_, err = p.Complete(t.Context(), llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}})
			var ae *llm.APIError
			if !errors.As(err, &ae) || ae.StatusCode != http.StatusUnauthorized {
				t.Errorf("got %v, want 401", err)
			}
			if strings.Contains(err.Error(), "a-wrong-key") {
				t.Errorf("the key is in the error: %v", err)
			}
		})
	}
}

func TestParse(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ spec, provider, model, err string }{
		{"openai:gpt-4.1-mini", "openai", "gpt-4.1-mini", ""},
		{"Anthropic:claude-sonnet-4-5", "anthropic", "claude-sonnet-4-5", ""},
		{"gpt-4o", "", "", "want provider:model"},
		{"opnai:gpt-4o", "", "", `unknown provider "opnai" (did you mean "openai"?); the providers are openai, anthropic`},
		{"gemini:gemini-2.5-pro", "", "", `unknown provider "gemini"; the providers are`},
	} {
		d, m, err := Parse(tt.spec)
		switch {
		case tt.err != "":
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("Parse(%q) = %v, want an error with %q", tt.spec, err, tt.err)
			}
		case err != nil || d.Name != tt.provider || m != tt.model:
			t.Errorf("Parse(%q) = %v, %q, %v", tt.spec, d, m, err)
		}
	}
}

// TestCredentialVars: every key variable of every provider is a secret of
// the run, ANTHROPIC_AUTH_TOKEN (which the Anthropic provider reads)
// included.
func TestCredentialVars(t *testing.T) {
	t.Parallel()
	got := strings.Join(CredentialVars(), ",")
	for _, d := range All() {
		for _, k := range d.Keys {
			if !strings.Contains(","+got+",", ","+k+",") {
				t.Errorf("%s is not in %s", k, got)
			}
		}
	}
	if !strings.Contains(got, "ANTHROPIC_AUTH_TOKEN") {
		t.Errorf("CredentialVars() = %s", got)
	}
}

// TestAcceptedParamsAreSent holds every provider's Accepts to its wire:
// a parameter it declares goes out in the request body, and one it does
// not declare is named by Unaccepted and never sent (so a seed on
// Anthropic is a warning, not a silent no-op).
func TestAcceptedParamsAreSent(t *testing.T) {
	temp, seed := 0.375, int64(9137)
	set := map[llm.Param]struct {
		marker string
		apply  func(*llm.Request)
	}{
		llm.ParamTemperature: {"0.375", func(r *llm.Request) { r.Temperature = &temp }},
		llm.ParamMaxTokens:   {"4242", func(r *llm.Request) { r.MaxTokens = 4242 }},
		llm.ParamSeed:        {"9137", func(r *llm.Request) { r.Seed = &seed }},
		llm.ParamFormat: {`"verdict_prop"`, func(r *llm.Request) {
			r.Format = &llm.Format{Name: "verdict_fmt", Schema: json.RawMessage(`{"type":"object","properties":{"verdict_prop":{"type":"boolean"}}}`)}
		}},
	}
	for _, def := range All() {
		t.Run(def.Name, func(t *testing.T) {
			t.Parallel()
			if len(def.Accepts) == 0 {
				t.Fatalf("%s declares no accepted parameters", def.Name)
			}
			for param, s := range set {
				p, log := providertest.Rig(t, def, llmtest.Options{Models: []string{"model-a"}, Key: "k-0123456789"})
				req := llm.Request{Model: "model-a", Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}
				s.apply(&req)
				_, _ = p.Complete(t.Context(), req) // only the body sent matters here
				posts := log.Posts()
				if len(posts) == 0 {
					t.Fatalf("%s: nothing was sent", param)
				}
				sent := strings.Contains(string(posts[0]), s.marker)
				accepted := slices.Contains(def.Accepts, param)
				unaccepted := slices.Contains(def.Unaccepted(req), param)
				switch {
				case accepted && !sent:
					t.Errorf("%s declares %s but did not send it: %s", def.Name, param, posts[0])
				case !accepted && sent:
					t.Errorf("%s does not declare %s but sent it: %s", def.Name, param, posts[0])
				case accepted == unaccepted:
					t.Errorf("%s: Unaccepted(%s) = %v with Accepts %v", def.Name, param, def.Unaccepted(req), def.Accepts)
				}
			}
		})
	}
	if a, _ := Lookup("anthropic"); !slices.Contains(a.Unaccepted(llm.Request{Seed: &seed}), llm.ParamSeed) {
		t.Error("a seed on Anthropic must be named as dropped")
	}
}
