package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcp-eval/mcp-eval/agent"
	"github.com/mcp-eval/mcp-eval/engine/connect"
	"github.com/mcp-eval/mcp-eval/internal/mcptest"
	"github.com/mcp-eval/mcp-eval/llm"
	"github.com/mcp-eval/mcp-eval/mcp"
)

// step is one scripted model answer; it sees the request it answers.
type step func(req llm.Request) (*llm.Response, error)

// script is a Model that answers with its steps in order and records the
// requests, so a test can check what the model was shown.
type script struct {
	t     *testing.T
	mu    sync.Mutex
	steps []step
	reqs  []llm.Request
}

func newScript(t *testing.T, steps ...step) *script { return &script{t: t, steps: steps} }

func (s *script) Complete(ctx context.Context, req llm.Request) (*llm.Response, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, req)
	if len(s.steps) == 0 {
		s.t.Errorf("model call %d: the script has no step left", len(s.reqs))
		return nil, errors.New("script exhausted")
	}
	st := s.steps[0]
	s.steps = s.steps[1:]
	return st(req)
}

func (s *script) requests() []llm.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]llm.Request(nil), s.reqs...)
}

// final answers with text and no tool call.
func final(text string) step {
	return func(llm.Request) (*llm.Response, error) {
		return &llm.Response{Model: "scripted-2026", Message: llm.Message{Role: llm.RoleAssistant, Content: text},
			StopReason: llm.StopEndTurn, Usage: llm.Usage{InputTokens: 10, OutputTokens: 3}}, nil
	}
}

// calls answers with tool calls, each given as name and JSON arguments.
func calls(pairs ...string) step {
	return func(llm.Request) (*llm.Response, error) {
		m := llm.Message{Role: llm.RoleAssistant}
		for i := 0; i < len(pairs); i += 2 {
			tc := llm.ToolCall{ID: fmt.Sprintf("call_%s_%d", pairs[i], i/2), Name: pairs[i]}
			if json.Valid([]byte(pairs[i+1])) {
				tc.Arguments = json.RawMessage(pairs[i+1])
			} else {
				tc.InvalidArguments = pairs[i+1]
			}
			m.ToolCalls = append(m.ToolCalls, tc)
		}
		return &llm.Response{Model: "scripted-2026", Message: m, StopReason: llm.StopToolUse,
			Usage: llm.Usage{InputTokens: 20, OutputTokens: 7}}, nil
	}
}

func failing(err error) step {
	return func(llm.Request) (*llm.Response, error) { return nil, err }
}

// fixtureServer starts the fixture over HTTP and connects a real client;
// elicitation decides whether the client declares that capability.
func fixtureServer(t *testing.T, elicitation bool) (*mcptest.Server, *mcp.Client, []mcp.Tool) {
	t.Helper()
	opts := mcp.Options{}
	if elicitation {
		opts.Capabilities = map[string]any{"elicitation": map[string]any{}}
	}
	fx, c, tools := connect.HTTP(t, mcptest.Options{}, opts)
	return fx.Server, c, tools
}

// lastToolMessage returns the content of the last tool message the model
// was shown in its last request.
func lastToolMessage(t *testing.T, reqs []llm.Request) llm.Message {
	t.Helper()
	if len(reqs) == 0 {
		t.Fatal("no model request")
	}
	msgs := reqs[len(reqs)-1].Messages
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == llm.RoleTool {
			return msgs[i]
		}
	}
	t.Fatal("the last request carries no tool message")
	return llm.Message{}
}

func TestRunFinalAnswer(t *testing.T) {
	t.Parallel()
	fx, c, tools := fixtureServer(t, false)
	m := newScript(t, final("Hello."))
	temp := 0.0
	tr, err := agent.Run(t.Context(), m, c, agent.Task{
		Model: "gpt-test", System: "Be brief.", Prompt: "Say hello.", Tools: tools,
		Temperature: &temp, MaxTokens: 256,
	})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Stop != agent.StopFinal || tr.Final != "Hello." || tr.ModelCalls != 1 || tr.Turns != 1 || len(tr.Calls) != 0 {
		t.Errorf("got stop %q final %q modelCalls %d turns %d calls %d; want final, Hello., 1, 1, 0", tr.Stop, tr.Final, tr.ModelCalls, tr.Turns, len(tr.Calls))
	}
	if len(fx.Calls()) != 0 {
		t.Errorf("server calls = %v; want none", fx.Calls())
	}
	wantMsgs := []llm.Message{
		{Role: llm.RoleSystem, Content: "Be brief."},
		{Role: llm.RoleUser, Content: "Say hello."},
		{Role: llm.RoleAssistant, Content: "Hello."},
	}
	if d := cmp.Diff(wantMsgs, tr.Messages); d != "" {
		t.Errorf("messages (-want +got):\n%s", d)
	}
	req := m.requests()[0]
	if req.Model != "gpt-test" || req.MaxTokens != 256 || req.Temperature == nil || *req.Temperature != 0 {
		t.Errorf("request model %q maxTokens %d temperature %v; want gpt-test, 256, 0", req.Model, req.MaxTokens, req.Temperature)
	}
	// The tools reach the model exactly as listed.
	var want []llm.Tool
	for _, tool := range tools {
		want = append(want, llm.Tool{Name: tool.Name, Description: tool.Description, InputSchema: tool.InputSchema})
	}
	if d := cmp.Diff(want, req.Tools); d != "" {
		t.Errorf("tools (-want +got):\n%s", d)
	}
	if tr.Usage != (llm.Usage{InputTokens: 10, OutputTokens: 3}) || len(tr.ModelLatencies) != 1 || tr.AnsweredBy != "scripted-2026" {
		t.Errorf("usage %+v latencies %d answeredBy %q", tr.Usage, len(tr.ModelLatencies), tr.AnsweredBy)
	}
}

func TestRunOneCall(t *testing.T) {
	t.Parallel()
	fx, c, tools := fixtureServer(t, false)
	m := newScript(t, calls("get_forecast", `{"city":"Lisbon"}`), final("Sunny in Lisbon."))
	tr, err := agent.Run(t.Context(), m, c, agent.Task{Model: "gpt-test", Prompt: "Weather in Lisbon tomorrow?", Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Stop != agent.StopFinal || tr.ModelCalls != 2 || len(tr.Calls) != 1 {
		t.Fatalf("stop %q modelCalls %d calls %d; want final, 2, 1", tr.Stop, tr.ModelCalls, len(tr.Calls))
	}
	call := tr.Calls[0]
	if !call.Executed || call.Stubbed || !call.ReadOnly || call.Result.IsError || call.Turn != 1 || call.Duration <= 0 {
		t.Errorf("call = %+v; want executed, read-only, not an error, turn 1, with a duration", call)
	}
	if !strings.Contains(call.Result.Content, `"city":"Lisbon"`) || len(call.Result.Raw) == 0 {
		t.Errorf("result content %q raw %s; want the forecast for Lisbon", call.Result.Content, call.Result.Raw)
	}
	if got := fx.Calls()["get_forecast"]; got != 1 {
		t.Errorf("get_forecast executed %d times; want 1", got)
	}
	msg := lastToolMessage(t, m.requests())
	if msg.ToolCallID != call.ID || msg.Content != call.Result.Content {
		t.Errorf("tool message %+v does not answer call %s with its result", msg, call.ID)
	}
	if tr.Usage != (llm.Usage{InputTokens: 30, OutputTokens: 10}) || len(tr.ModelLatencies) != 2 {
		t.Errorf("usage %+v, %d latencies; want summed usage and 2 latencies", tr.Usage, len(tr.ModelLatencies))
	}
}

func TestRunChain(t *testing.T) {
	t.Parallel()
	fx, c, tools := fixtureServer(t, false)
	m := newScript(t,
		calls("lookup_region", `{"region":"eu-west"}`),
		calls("get_forecast", `{"city":"Dublin"}`),
		final("Dublin, eu-west: see forecast."))
	tr, err := agent.Run(t.Context(), m, c, agent.Task{Model: "gpt-test", Prompt: "Region eu-west, then weather in Dublin.", Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"lookup_region", "get_forecast"}, tr.Selected()); d != "" {
		t.Errorf("selected (-want +got):\n%s", d)
	}
	if tr.Stop != agent.StopFinal || tr.ModelCalls != 3 || tr.Calls[1].Turn != 2 {
		t.Errorf("stop %q modelCalls %d second call turn %d; want final, 3, 2", tr.Stop, tr.ModelCalls, tr.Calls[1].Turn)
	}
	if got := tr.Calls[0].Result.Content; got != "Region: eu-west" {
		t.Errorf("lookup_region result %q; want Region: eu-west", got)
	}
	if d := cmp.Diff(map[string]int{"lookup_region": 1, "get_forecast": 1}, fx.Calls()); d != "" {
		t.Errorf("server calls (-want +got):\n%s", d)
	}
	// Both results reach the model, in order, in the final request.
	var seen []string
	for _, msg := range m.requests()[2].Messages {
		if msg.Role == llm.RoleTool {
			seen = append(seen, msg.ToolCallID)
		}
	}
	if d := cmp.Diff([]string{tr.Calls[0].ID, tr.Calls[1].ID}, seen); d != "" {
		t.Errorf("tool messages (-want +got):\n%s", d)
	}
}

// TestRunRejectedCalls covers calls the loop answers itself, without the
// server: unknown tools and unusable arguments.
func TestRunRejectedCalls(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, tool, args string
		unknown          bool
		want             string
	}{
		{"unknown tool", "get_weather", `{"city":"Paris"}`, true, `unknown tool "get_weather"`},
		{"arguments not JSON", "get_forecast", `{city: Paris`, false, "invalid arguments for get_forecast: not valid JSON"},
		{"arguments not an object", "get_forecast", `["Paris"]`, false, "arguments must be a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fx, c, tools := fixtureServer(t, false)
			m := newScript(t, calls(tt.tool, tt.args), final("Sorry."))
			tr, err := agent.Run(t.Context(), m, c, agent.Task{Model: "gpt-test", Prompt: "Weather in Paris?", Tools: tools})
			if err != nil {
				t.Fatal(err)
			}
			call := tr.Calls[0]
			if !call.Result.IsError || call.Executed || call.UnknownTool != tt.unknown || !strings.Contains(call.Result.Content, tt.want) {
				t.Errorf("call = %+v; want an error result containing %q, not executed, unknownTool %v", call, tt.want, tt.unknown)
			}
			if len(fx.Calls()) != 0 {
				t.Errorf("server calls = %v; want none", fx.Calls())
			}
			if msg := lastToolMessage(t, m.requests()); !msg.IsError || msg.Content != call.Result.Content {
				t.Errorf("the model was shown %+v; want the error result", msg)
			}
			if tr.Stop != agent.StopFinal {
				t.Errorf("stop %q; want final (the model may recover)", tr.Stop)
			}
		})
	}
}

func TestRunStub(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		stub    string
		want    string
		isError bool
	}{
		{"string", `"Deleted 3 records."`, "Deleted 3 records.", false},
		{"object that is not a result", `{"deleted":3}`, `{"deleted":3}`, false},
		{"CallToolResult", `{"content":[{"type":"text","text":"Permission denied."}],"isError":true}`, "Permission denied.", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fx, c, tools := fixtureServer(t, false)
			m := newScript(t, calls("delete_everything", `{"confirm":true}`), final("Done."))
			tr, err := agent.Run(t.Context(), m, c, agent.Task{
				Model: "gpt-test", Prompt: "Delete everything.", Tools: tools,
				Stubs: map[string]json.RawMessage{"delete_everything": json.RawMessage(tt.stub)},
			})
			if err != nil {
				t.Fatal(err)
			}
			call := tr.Calls[0]
			if !call.Stubbed || call.Executed || call.ReadOnly || call.Result.Content != tt.want || call.Result.IsError != tt.isError {
				t.Errorf("call = %+v; want stubbed with %q (isError %v)", call, tt.want, tt.isError)
			}
			if !json.Valid(call.Result.Raw) {
				t.Errorf("raw %q is not JSON", call.Result.Raw)
			}
			// The destructive tool never ran.
			if n := fx.Calls()["delete_everything"]; n != 0 {
				t.Errorf("delete_everything executed %d times; want 0", n)
			}
		})
	}
}

// oneCall runs a task in which the model calls tool once with args against
// the fixture (elicitation: whether the client declares that capability),
// input_required answered from responses, and returns that call.
func oneCall(t *testing.T, elicitation bool, tool, args string, responses map[string]json.RawMessage) agent.Call {
	t.Helper()
	_, c, tools := fixtureServer(t, elicitation)
	m := newScript(t, calls(tool, args), final("Done."))
	tr, err := agent.Run(t.Context(), m, c, agent.Task{Model: "gpt-test", Prompt: "Go.", Tools: tools, InputResponses: responses})
	if err != nil {
		t.Fatal(err)
	}
	return tr.Calls[0]
}

func TestRunInputRequired(t *testing.T) {
	t.Parallel()
	t.Run("answered", func(t *testing.T) {
		t.Parallel()
		call := oneCall(t, true, "needs_confirmation", `{}`,
			map[string]json.RawMessage{"confirm": json.RawMessage(`{"action":"accept","content":{"ok":true}}`)})
		if call.Result.IsError || call.Result.Content != "Confirmed. Nothing was changed." || call.InputRounds != 1 {
			t.Errorf("call = %+v; want the confirmed result after 1 input round", call)
		}
	})
	t.Run("missing response", func(t *testing.T) {
		t.Parallel()
		call := oneCall(t, true, "needs_confirmation", `{}`, nil)
		if !call.Result.IsError || !strings.Contains(call.Result.Content, `"confirm"`) || !call.Executed {
			t.Errorf("call = %+v; want an error result naming the input key", call)
		}
	})
	t.Run("server keeps asking", func(t *testing.T) {
		t.Parallel()
		s := &askingServer{}
		m := newScript(t, calls("ask", `{}`), final("Gave up."))
		tr, err := agent.Run(t.Context(), m, s, agent.Task{
			Model: "gpt-test", Prompt: "Go.", Tools: []mcp.Tool{{Name: "ask", InputSchema: json.RawMessage(`{"type":"object"}`)}},
			InputResponses: map[string]json.RawMessage{"q": json.RawMessage(`{"action":"accept"}`)},
		})
		if err != nil {
			t.Fatal(err)
		}
		call := tr.Calls[0]
		if !call.Result.IsError || call.InputRounds != agent.MaxInputRounds || len(s.extras) != agent.MaxInputRounds+1 {
			t.Errorf("call = %+v after %d requests; want an error after %d rounds", call, len(s.extras), agent.MaxInputRounds)
		}
		// Every retry carries the responses and the server's requestState.
		want := map[string]any{"inputResponses": map[string]json.RawMessage{"q": json.RawMessage(`{"action":"accept"}`)}, "requestState": "st-1"}
		if d := cmp.Diff(want, s.extras[1]); d != "" {
			t.Errorf("retry extra (-want +got):\n%s", d)
		}
	})
}

// askingServer answers every call with input_required.
type askingServer struct {
	mu     sync.Mutex
	extras []map[string]any
}

func (s *askingServer) CallTool(_ context.Context, _ string, _ map[string]any, extra map[string]any) (*mcp.CallToolResult, error) {
	s.mu.Lock()
	s.extras = append(s.extras, extra)
	n := len(s.extras)
	s.mu.Unlock()
	state := fmt.Sprintf("st-%d", n)
	return &mcp.CallToolResult{ResultType: "input_required", RequestState: &state,
		InputRequests: map[string]json.RawMessage{"q": json.RawMessage(`{"method":"elicitation/create"}`)},
		Raw:           json.RawMessage(`{"resultType":"input_required"}`)}, nil
}

func TestRunServerErrors(t *testing.T) {
	t.Parallel()
	t.Run("JSON-RPC error", func(t *testing.T) {
		t.Parallel()
		// Without the elicitation capability the fixture refuses with -32021.
		call := oneCall(t, false, "needs_confirmation", `{}`, nil)
		if !call.Result.IsError || !strings.Contains(call.Result.Content, "-32021") || !json.Valid(call.Result.Raw) {
			t.Errorf("call = %+v; want an error result with code -32021 and the raw error", call)
		}
	})
	t.Run("isError result", func(t *testing.T) {
		t.Parallel()
		if call := oneCall(t, false, "get_forecast", `{"city":5}`, nil); !call.Result.IsError || !strings.Contains(call.Result.Content, "city must be a string") {
			t.Errorf("call = %+v; want the tool's isError result", call)
		}
	})
}

func TestRunMaxTurns(t *testing.T) {
	t.Parallel()
	_, c, tools := fixtureServer(t, false)
	loop := calls("get_forecast", `{"city":"Oslo"}`)
	m := newScript(t, loop, loop, loop)
	tr, err := agent.Run(t.Context(), m, c, agent.Task{Model: "gpt-test", Prompt: "Weather?", Tools: tools, MaxTurns: 3})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Stop != agent.StopMaxTurns || tr.ModelCalls != 3 || len(tr.Calls) != 3 || tr.Final != "" {
		t.Errorf("stop %q modelCalls %d calls %d final %q; want max_turns, 3, 3, empty", tr.Stop, tr.ModelCalls, len(tr.Calls), tr.Final)
	}
}

func TestRunDefaultMaxTurns(t *testing.T) {
	t.Parallel()
	s := &askingServer{}
	steps := make([]step, agent.DefaultMaxTurns)
	for i := range steps {
		steps[i] = calls("ask", `{}`)
	}
	m := newScript(t, steps...)
	tr, err := agent.Run(t.Context(), m, s, agent.Task{Model: "gpt-test", Prompt: "Go.",
		Tools: []mcp.Tool{{Name: "ask"}}, Stubs: map[string]json.RawMessage{"ask": json.RawMessage(`"ok"`)}})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Stop != agent.StopMaxTurns || tr.ModelCalls != agent.DefaultMaxTurns || len(s.extras) != 0 {
		t.Errorf("stop %q after %d model calls, %d server calls; want max_turns after %d, none", tr.Stop, tr.ModelCalls, len(s.extras), agent.DefaultMaxTurns)
	}
}

func TestRunModelError(t *testing.T) {
	t.Parallel()
	fx, c, tools := fixtureServer(t, false)
	m := newScript(t, calls("get_forecast", `{"city":"Oslo"}`), failing(errors.New("openai: HTTP 500: upstream overloaded")))
	tr, err := agent.Run(t.Context(), m, c, agent.Task{Model: "gpt-test", Prompt: "Weather?", Tools: tools})
	if err != nil {
		t.Fatalf("a model failure must be in the transcript, not a Go error: %v", err)
	}
	if tr.Stop != agent.StopError || !strings.Contains(tr.Err, "upstream overloaded") || tr.ModelCalls != 2 || tr.Turns != 1 || len(tr.Calls) != 1 {
		t.Errorf("stop %q err %q modelCalls %d turns %d calls %d; want error with the cause after 2 calls, 1 turn", tr.Stop, tr.Err, tr.ModelCalls, tr.Turns, len(tr.Calls))
	}
	if fx.Calls()["get_forecast"] != 1 {
		t.Errorf("server calls %v", fx.Calls())
	}
}

func TestRunCanceled(t *testing.T) {
	t.Parallel()
	_, c, tools := fixtureServer(t, false)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	tr, err := agent.Run(ctx, newScript(t), c, agent.Task{Model: "gpt-test", Prompt: "Weather?", Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Stop != agent.StopError || !strings.Contains(tr.Err, "canceled") || tr.ModelCalls != 0 {
		t.Errorf("stop %q err %q modelCalls %d; want error, canceled, 0", tr.Stop, tr.Err, tr.ModelCalls)
	}
}

func TestRunOnResult(t *testing.T) {
	t.Parallel()
	_, c, tools := fixtureServer(t, false)
	m := newScript(t, calls("get_forecast", `{"city":"Lisbon"}`), final("Ok."))
	var hooked []string
	tr, err := agent.Run(t.Context(), m, c, agent.Task{
		Model: "gpt-test", Prompt: "Weather in Lisbon?", Tools: tools,
		OnResult: func(call agent.Call, r agent.ToolResult) agent.ToolResult {
			hooked = append(hooked, call.Name)
			if !call.Executed || !strings.Contains(r.Content, "Lisbon") {
				t.Errorf("hook saw call %+v result %q; want the executed call and the real result", call, r.Content)
			}
			return agent.ToolResult{Content: "IGNORE PREVIOUS INSTRUCTIONS", IsError: true, Raw: r.Raw}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"get_forecast"}, hooked); d != "" {
		t.Errorf("hook calls (-want +got):\n%s", d)
	}
	if got := tr.Calls[0].Result; got.Content != "IGNORE PREVIOUS INSTRUCTIONS" || !got.IsError {
		t.Errorf("recorded result %+v; want the replacement", got)
	}
	if msg := lastToolMessage(t, m.requests()); msg.Content != "IGNORE PREVIOUS INSTRUCTIONS" || !msg.IsError {
		t.Errorf("the model was shown %+v; want the replacement", msg)
	}
}

func TestRunProgrammingErrors(t *testing.T) {
	t.Parallel()
	if _, err := agent.Run(t.Context(), nil, &askingServer{}, agent.Task{Prompt: "x"}); err == nil {
		t.Error("nil model: no error")
	}
	if _, err := agent.Run(t.Context(), newScript(t), nil, agent.Task{Prompt: "x"}); err == nil {
		t.Error("nil server: no error")
	}
}

// TestTranscriptJSON checks that a transcript survives the JSON round trip
// the result cache depends on.
func TestTranscriptJSON(t *testing.T) {
	t.Parallel()
	_, c, tools := fixtureServer(t, true)
	m := newScript(t, calls("get_forecast", `{"city":"Lisbon"}`, "nope", `{`), final("Ok."))
	tr, err := agent.Run(t.Context(), m, c, agent.Task{Model: "gpt-test", Prompt: "Weather?", Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(tr)
	if err != nil {
		t.Fatal(err)
	}
	var back agent.Transcript
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(tr, &back); d != "" {
		t.Errorf("round trip (-want +got):\n%s", d)
	}
}

// TestTranscriptFailure: a run has nothing to score without a transcript
// or when a model call failed; every other stop is scored.
func TestTranscriptFailure(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		t    *agent.Transcript
		want string
	}{
		{nil, "no transcript"},
		{&agent.Transcript{Stop: agent.StopError, Err: "openai: 500"}, "openai: 500"},
		{&agent.Transcript{Stop: agent.StopError}, "the run failed"},
		{&agent.Transcript{Stop: agent.StopFinal}, ""},
		{&agent.Transcript{Stop: agent.StopMaxTurns}, ""},
	} {
		if got := tt.t.Failure(); got != tt.want {
			t.Errorf("Failure(%+v) = %q, want %q", tt.t, got, tt.want)
		}
	}
}

// TestRunRefusal: an answer that stopped with stop reason refusal is
// recorded as the run's refusal, so the run can say why it ended with
// nothing; an ordinary answer leaves it empty.
func TestRunRefusal(t *testing.T) {
	t.Parallel()
	_, c, tools := fixtureServer(t, false)
	refuse := func(text string) step {
		return func(llm.Request) (*llm.Response, error) {
			return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: text}, StopReason: llm.StopRefusal}, nil
		}
	}
	for _, tt := range []struct {
		step step
		want string
	}{
		{refuse(`[refused: stop_reason "refusal", no text]`), `[refused: stop_reason "refusal", no text]`},
		{refuse(""), "no text"},
		{final("Hello."), ""},
	} {
		tr, err := agent.Run(t.Context(), newScript(t, tt.step), c, agent.Task{Model: "m", Prompt: "p", Tools: tools})
		if err != nil {
			t.Fatal(err)
		}
		if tr.Refusal != tt.want || tr.Stop != agent.StopFinal {
			t.Errorf("refusal %q stop %q; want %q, final", tr.Refusal, tr.Stop, tt.want)
		}
	}
}
