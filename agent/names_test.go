package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/mcp-eval/mcp-eval/agent"
	"github.com/mcp-eval/mcp-eval/llm"
	"github.com/mcp-eval/mcp-eval/llm/llmtest"
	"github.com/mcp-eval/mcp-eval/llm/providers"
	"github.com/mcp-eval/mcp-eval/mcp"
)

func TestToolNames(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("very.long.namespace.", 6) + "get" // 123 characters, valid in MCP
	names := []string{"get_weather", "weather.get", "weather_get", "a/b", long, long + "2", "ünïcode", "x-y"}
	n := agent.NewToolNames(names)
	seen := map[string]string{}
	for _, name := range names {
		alias := n.Safe(name)
		if !agent.ProviderNamePattern.MatchString(alias) {
			t.Errorf("%q → %q: not provider-safe", name, alias)
		}
		if other, dup := seen[alias]; dup {
			t.Errorf("%q and %q share the alias %q", name, other, alias)
		}
		seen[alias] = name
		if back := n.Original(alias); back != name {
			t.Errorf("%q → %q → %q: not reversible", name, alias, back)
		}
	}
	// Safe names keep themselves, even when a dotted name sanitises to
	// one of them.
	for _, name := range []string{"get_weather", "weather_get", "x-y"} {
		if n.Safe(name) != name {
			t.Errorf("%q renamed to %q", name, n.Safe(name))
		}
	}
	if a := n.Safe("a/b"); a != "a_b" {
		t.Errorf("a/b → %q, want a_b", a)
	}
	if a := n.Safe("weather.get"); !regexp.MustCompile(`^weather_get_[0-9a-f]{8}$`).MatchString(a) {
		t.Errorf("weather.get (colliding with weather_get) → %q, want weather_get_<hash>", a)
	}
	// Deterministic: the same set in another order maps the same way.
	rev := make([]string, len(names))
	for i, s := range names {
		rev[len(names)-1-i] = s
	}
	m := agent.NewToolNames(rev)
	for _, name := range names {
		if m.Safe(name) != n.Safe(name) {
			t.Errorf("%q: %q in one order, %q in another", name, n.Safe(name), m.Safe(name))
		}
	}
	if n.Original("made_up") != "made_up" || !n.Renamed() || agent.NewToolNames([]string{"a", "b"}).Renamed() {
		t.Error("Original of an unknown alias, or Renamed, is wrong")
	}
}

// dottedServer is an MCP server whose tools have names that MCP allows
// and the model APIs do not; it records the names it is called with.
type dottedServer struct {
	mu    sync.Mutex
	calls []string
}

func (s *dottedServer) CallTool(_ context.Context, name string, args map[string]any, _ map[string]any) (*mcp.CallToolResult, error) {
	s.mu.Lock()
	s.calls = append(s.calls, name)
	s.mu.Unlock()
	return &mcp.CallToolResult{Content: []json.RawMessage{json.RawMessage(`{"type":"text","text":"18 °C, sunny"}`)}}, nil
}

var dottedTools = []mcp.Tool{
	{Name: "weather.get", Description: "Current weather for a city.", InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`)},
	{Name: "billing/" + strings.Repeat("invoices.", 12) + "search", Description: "Search invoices."},
}

// strictModelAPI is an OpenAI or Anthropic endpoint that rejects, as the
// real API does with HTTP 400, what llmtest.Reject refuses (a tool name
// outside the API's pattern, in the tools or in earlier calls; for
// Anthropic, a request without max_tokens). Its model calls the tool whose
// description mentions the weather, then answers.
func strictModelAPI(t *testing.T, provider string) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if msg := llmtest.Reject(r.URL.Path, body); msg != "" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(400)
			fmt.Fprintf(w, `{"type":"error","error":{"type":"invalid_request_error","message":%q}}`, msg)
			return
		}
		var req struct {
			Tools []struct {
				Name        string `json:"name"`
				Description string `json:"description"`
				Function    struct {
					Name        string `json:"name"`
					Description string `json:"description"`
				} `json:"function"`
			} `json:"tools"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		weather := ""
		for _, tool := range req.Tools {
			name, desc := tool.Name, tool.Description
			if provider == "openai" {
				name, desc = tool.Function.Name, tool.Function.Description
			}
			if strings.Contains(desc, "weather") {
				weather = name
			}
		}
		answered := strings.Contains(string(body), "18 °C")
		w.Header().Set("Content-Type", "application/json")
		switch {
		case provider == "openai" && !answered:
			fmt.Fprintf(w, `{"id":"c1","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":%q,"arguments":"{\"city\":\"Paris\"}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":10,"completion_tokens":5}}`, weather)
		case provider == "openai":
			fmt.Fprint(w, `{"id":"c2","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Sunny, 18 °C."},"finish_reason":"stop"}],"usage":{"prompt_tokens":20,"completion_tokens":5}}`)
		case !answered:
			fmt.Fprintf(w, `{"id":"m1","type":"message","role":"assistant","model":"m","content":[{"type":"tool_use","id":"toolu_1","name":%q,"input":{"city":"Paris"}}],"stop_reason":"tool_use","usage":{"input_tokens":10,"output_tokens":5}}`, weather)
		default:
			fmt.Fprint(w, `{"id":"m2","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"Sunny, 18 °C."}],"stop_reason":"end_turn","usage":{"input_tokens":20,"output_tokens":5}}`)
		}
	}))
}

// TestRunDottedToolNames evaluates a server with dotted and long tool
// names on both providers: the model sees provider-safe names, the server
// is called with its own, and the transcript records the server's names.
func TestRunDottedToolNames(t *testing.T) {
	t.Parallel()
	for _, provider := range []string{"openai", "anthropic"} {
		t.Run(provider, func(t *testing.T) {
			t.Parallel()
			api := strictModelAPI(t, provider)
			defer api.Close()
			envs := map[string]string{"OPENAI_BASE_URL": api.URL + "/v1", "ANTHROPIC_BASE_URL": api.URL}
			p, err := providers.New(provider, func(k string) string { return envs[k] })
			if err != nil {
				t.Fatal(err)
			}
			// The fake rejects the server's names as the real API does…
			_, err = p.Complete(context.Background(), llm.Request{Model: "m", MaxTokens: 100,
				Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}},
				Tools:    []llm.Tool{{Name: "weather.get"}}})
			var ae *llm.APIError
			if !errors.As(err, &ae) || ae.StatusCode != 400 {
				t.Fatalf("a dotted name sent as is: %v, want HTTP 400", err)
			}
			// …and the loop never sends them.
			srv := &dottedServer{}
			tr, err := agent.Run(context.Background(), p, srv, agent.Task{Model: "m", Prompt: "Weather in Paris?", Tools: dottedTools})
			if err != nil {
				t.Fatal(err)
			}
			if tr.Stop != agent.StopFinal {
				t.Fatalf("stop %s: %s", tr.Stop, tr.Err)
			}
			if len(tr.Calls) != 1 || tr.Calls[0].Name != "weather.get" || !tr.Calls[0].Executed {
				t.Errorf("calls %+v, want one executed call of weather.get", tr.Calls)
			}
			if len(srv.calls) != 1 || srv.calls[0] != "weather.get" {
				t.Errorf("server was called with %v, want [weather.get]", srv.calls)
			}
			for _, m := range tr.Messages {
				for _, tc := range m.ToolCalls {
					if tc.Name != "weather.get" {
						t.Errorf("transcript message names %q, want the server's name", tc.Name)
					}
				}
			}
		})
	}
}

// TestRunCapsCallsPerTurn: a turn asking for more tool calls than the cap
// runs the first ones only; the rest are answered with an error and
// counted, and the server never sees them.
func TestRunCapsCallsPerTurn(t *testing.T) {
	t.Parallel()
	m := &manyCalls{n: 40}
	srv := &dottedServer{}
	tr, err := agent.Run(context.Background(), m, srv, agent.Task{Model: "m", Prompt: "go", Tools: dottedTools[:1], MaxCallsPerTurn: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(srv.calls) != 5 || tr.CappedCalls != 35 || len(tr.Calls) != 40 || !tr.Calls[39].Capped || tr.Calls[39].Executed {
		t.Errorf("server saw %d calls, capped %d, recorded %d; want 5, 35, 40", len(srv.calls), tr.CappedCalls, len(tr.Calls))
	}
	// The next request answers every call of the turn.
	if tools := len(m.last.Messages) - 2; tools != 40 {
		t.Errorf("the follow-up request carries %d tool results; want 40", tools)
	}
	// The default cap is 32.
	m2 := &manyCalls{n: 100}
	srv2 := &dottedServer{}
	tr2, _ := agent.Run(context.Background(), m2, srv2, agent.Task{Model: "m", Prompt: "go", Tools: dottedTools[:1]})
	if len(srv2.calls) != agent.DefaultMaxCallsPerTurn || tr2.CappedCalls != 100-agent.DefaultMaxCallsPerTurn {
		t.Errorf("default cap: %d run, %d capped", len(srv2.calls), tr2.CappedCalls)
	}
}

// manyCalls asks for n calls of weather.get in its first turn, then
// answers.
type manyCalls struct {
	n    int
	mu   sync.Mutex
	last llm.Request
}

func (m *manyCalls) Complete(_ context.Context, req llm.Request) (*llm.Response, error) {
	m.mu.Lock()
	m.last = req
	m.mu.Unlock()
	if len(req.Messages) > 1 {
		return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: "done"}}, nil
	}
	msg := llm.Message{Role: llm.RoleAssistant}
	for i := range m.n {
		msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{ID: fmt.Sprintf("c%d", i), Name: req.Tools[0].Name, Arguments: json.RawMessage(`{}`)})
	}
	return &llm.Response{Message: msg}, nil
}

// TestRunFollowUps: a multi-turn task sends each follow-up once the model
// answered, and records which user message each call answers.
func TestRunFollowUps(t *testing.T) {
	t.Parallel()
	m := &conversation{}
	srv := &dottedServer{}
	tr, err := agent.Run(context.Background(), m, srv, agent.Task{Model: "m", Prompt: "first", FollowUps: []string{"second", "third"}, Tools: dottedTools[:1]})
	if err != nil || tr.Stop != agent.StopFinal {
		t.Fatalf("%v %+v", err, tr)
	}
	if len(tr.Finals) != 3 || tr.Finals[2] != "answer to third" || len(tr.Calls) != 1 || tr.Calls[0].UserTurn != 1 {
		t.Errorf("finals %q, calls %+v; want 3 answers and the call in user turn 1", tr.Finals, tr.Calls)
	}
	var users []string
	for _, msg := range tr.Messages {
		if msg.Role == llm.RoleUser {
			users = append(users, msg.Content)
		}
	}
	if strings.Join(users, ",") != "first,second,third" {
		t.Errorf("user messages %q", users)
	}
}

// conversation calls weather.get when asked "second", and otherwise
// answers the last user message.
type conversation struct{}

func (conversation) Complete(_ context.Context, req llm.Request) (*llm.Response, error) {
	last := req.Messages[len(req.Messages)-1]
	if last.Role == llm.RoleUser && last.Content == "second" {
		return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c1", Name: req.Tools[0].Name, Arguments: json.RawMessage(`{}`)}}}}, nil
	}
	var q string
	for _, msg := range req.Messages {
		if msg.Role == llm.RoleUser {
			q = msg.Content
		}
	}
	return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: "answer to " + q}}, nil
}
