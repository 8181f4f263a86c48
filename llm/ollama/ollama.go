// Package ollama is the Ollama provider, over Ollama's native chat API
// (POST /api/chat), not its OpenAI-compatible endpoint (/v1).
//
// Why the native API: it is Ollama's own and first-class (the /v1 layer
// translates into it and documents tool_choice as unsupported), it sends a
// tool call's arguments as the JSON object the model produced (every
// OpenAI-style endpoint sends a string, which the client must parse), its
// structured output takes the JSON Schema as is (format), and it reports
// token counts on every answer. What it does differently, and what this
// package handles (checked against ollama/ollama's api/types.go,
// server/routes.go, envconfig/config.go and docs/api.md):
//
//   - "stream" defaults to true (NDJSON); every request says false.
//   - Temperature and the token limit are options (options.temperature,
//     options.num_predict).
//   - A tool call's arguments are an object, in answers and in the
//     history sent back; a tool result names its tool (tool_name).
//   - There is no finish reason for tool calls: done_reason is "stop"
//     either way, so a turn is judged by its message's tool_calls.
//   - Tool-call ids ("call_" and 8 letters) exist in recent versions
//     only: one that is missing is made up by the agent loop and only ever
//     echoed back, never parsed.
//   - tool_choice does not exist: a request can offer tools, never force
//     one.
//   - The address is OLLAMA_HOST, as the ollama command reads it (a host,
//     host:port or URL; default 127.0.0.1:11434; 0.0.0.0 connects to
//     loopback).
//   - No key: OLLAMA_API_KEY, when set, is sent as a Bearer token (a proxy
//     in front of Ollama).
package ollama

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/mcp-eval/mcp-eval/llm"
)

// Def is the provider's declaration, listed by llm/providers.
var Def = &llm.Def{
	Name:       "ollama",
	Title:      "Ollama",
	Wire:       "Ollama /api/chat",
	Example:    "ollama:qwen2.5:7b",
	BaseURL:    "http://127.0.0.1:11434",
	BaseURLEnv: "OLLAMA_HOST",
	Keys:       []string{"OLLAMA_API_KEY"},
	Local:      true,
	// Chat Completions and Ollama's options both take a seed (best effort: the
	// same seed makes a repeat likely, not certain).
	Accepts: []llm.Param{llm.ParamTemperature, llm.ParamMaxTokens, llm.ParamFormat, llm.ParamSeed},
	Notes: "Native /api/chat: arguments are objects, no finish reason for tool calls, tool_choice " +
		"ignored, ids only in recent versions (echoed, never parsed); OLLAMA_HOST as the ollama command reads it.",
	New: open,
}

// open reads OLLAMA_HOST and OLLAMA_API_KEY.
func open(d *llm.Def, env llm.Env, s llm.Settings) (llm.Provider, error) {
	base, err := host(env(d.BaseURLEnv))
	if err != nil {
		return nil, &llm.EnvError{Var: d.BaseURLEnv, Reason: "is not a host, host:port or http(s) URL"}
	}
	_, key := d.Key(env)
	c := llm.NewClient(d.Name, llm.Endpoint(base, "/api/chat"), llm.BearerHeader(key), []string{key}, s)
	c.SetExplain(explain)
	return &provider{c: c, base: llm.SafeURL(base.String()), tags: llm.Endpoint(base, "/api/tags")}, nil
}

// host reads OLLAMA_HOST the way Ollama does (envconfig.Host): no scheme
// means http; a missing port is 11434 (80 and 443 for an explicit http or
// https URL); an empty value is 127.0.0.1:11434; and, as its client does
// (ConnectableHost), an unspecified address (0.0.0.0, ::), which a server
// binds to, connects to loopback.
func host(s string) (*url.URL, error) {
	s = strings.TrimSpace(s)
	port := "11434"
	scheme, hostport, ok := strings.Cut(s, "://")
	switch {
	case !ok:
		scheme, hostport = "http", s
	case scheme == "http":
		port = "80"
	case scheme == "https":
		port = "443"
	default:
		return nil, fmt.Errorf("scheme %q", scheme)
	}
	hostport, path, _ := strings.Cut(hostport, "/")
	h, p, err := net.SplitHostPort(hostport)
	if err != nil {
		h, p = "127.0.0.1", port
		if ip := net.ParseIP(strings.Trim(hostport, "[]")); ip != nil {
			h = ip.String()
		} else if hostport != "" {
			h = hostport
		}
	}
	if n, err := strconv.Atoi(p); err != nil || n < 0 || n > 65535 {
		return nil, fmt.Errorf("port %q", p)
	}
	if ip := net.ParseIP(h); ip != nil && ip.IsUnspecified() {
		h = "127.0.0.1"
		if ip.To4() == nil {
			h = "::1"
		}
	}
	u := &url.URL{Scheme: scheme, Host: net.JoinHostPort(h, p), Path: path}
	if path != "" {
		u.Path = "/" + path
	}
	return u, nil
}

// explain reads Ollama's errors: a model that is not pulled, one that
// cannot call tools.
func explain(e *llm.APIError) (hint string, final bool) {
	m := e.Message
	switch {
	case e.StatusCode == http.StatusNotFound && strings.Contains(m, "not found"):
		if name := quoted(m); name != "" {
			return "pull it first: ollama pull " + name, true
		}
		return "pull the model first (ollama pull)", true
	case strings.Contains(m, "does not support tools"):
		return "the model cannot call tools; pick one that can (ollama.com/search?c=tools), e.g. qwen2.5:7b or llama3.1:8b", true
	}
	return "", false
}

// quoted is the first 'x' or "x" in s.
func quoted(s string) string {
	for _, q := range []string{"'", `"`} {
		if _, rest, ok := strings.Cut(s, q); ok {
			if name, _, ok := strings.Cut(rest, q); ok {
				return name
			}
		}
	}
	return ""
}

// provider speaks /api/chat.
type provider struct {
	c    *llm.Client
	base string
	tags string
}

func (p *provider) Name() string     { return p.c.Name() }
func (p *provider) Endpoint() string { return p.c.Endpoint() }

func (p *provider) Complete(ctx context.Context, req llm.Request) (*llm.Response, error) {
	if err := llm.CheckRequest(req); err != nil {
		return nil, fmt.Errorf("%s: %w", p.c.Name(), err)
	}
	body, err := encode(req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.c.Name(), err)
	}
	return p.c.Do(ctx, req.Model, body, func(b []byte) (*llm.Response, error) { return decode(b, req.Model) })
}

// Probe reads /api/tags and checks that the model is pulled, then makes a
// one-token request offering one tool: a model without tool support is
// refused there with "does not support tools", before any case runs.
func (p *provider) Probe(ctx context.Context, model string) error {
	fail := func(err error) error {
		return &llm.ProbeError{Provider: p.c.Name(), Model: model, Base: p.base, Err: err}
	}
	body, err := p.c.Get(ctx, p.tags)
	if err != nil {
		return fail(err)
	}
	var tags struct {
		Models []struct {
			Name  string `json:"name"`
			Model string `json:"model"`
		} `json:"models"`
	}
	if err := json.Unmarshal(body, &tags); err != nil {
		return fail(fmt.Errorf("GET %s: %v", llm.SafeURL(p.tags), err))
	}
	var names []string
	for _, m := range tags.Models {
		names = append(names, cmp.Or(m.Name, m.Model))
	}
	// Compared as Ollama resolves names (a name without a tag is its
	// :latest), so the did-you-mean compares like with like.
	if err := llm.CheckListed(withTag(model), names, sameModel, func(string) string { return "pull it: ollama pull " + model }); err != nil {
		return fail(err)
	}
	req := llm.Request{Model: model, MaxTokens: 1, Messages: []llm.Message{{Role: llm.RoleUser, Content: "Say OK."}}, Tools: []llm.Tool{llm.ProbeTool()}}
	b, err := encode(req)
	if err == nil {
		_, err = p.c.Once(ctx, b, func(b []byte) (*llm.Response, error) { return decode(b, model) })
	}
	if err != nil {
		return fail(err)
	}
	return nil
}

// sameModel compares model names as Ollama resolves them: a name without
// a tag is its ":latest".
func sameModel(want, have string) bool { return withTag(want) == withTag(have) }

func withTag(name string) string {
	if i := strings.LastIndex(name, "/"); strings.Contains(name[i+1:], ":") {
		return name
	}
	return name + ":latest"
}

// Wire types, as api/types.go declares them (the fields used).
type chatRequest struct {
	Model    string          `json:"model"`
	Messages []message       `json:"messages"`
	Tools    []tool          `json:"tools,omitempty"`
	Format   json.RawMessage `json:"format,omitempty"`
	// Stream is always false: the default is true, an NDJSON stream.
	Stream  bool     `json:"stream"`
	Options *options `json:"options,omitempty"`
}

type options struct {
	Temperature *float64 `json:"temperature,omitempty"`
	NumPredict  int      `json:"num_predict,omitempty"`
	Seed        *int64   `json:"seed,omitempty"`
}

type message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	ToolCalls  []toolCall `json:"tool_calls,omitempty"`
	ToolName   string     `json:"tool_name,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

type toolCall struct {
	ID       string `json:"id,omitempty"`
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

type tool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

func encode(req llm.Request) ([]byte, error) {
	w := chatRequest{Model: req.Model, Messages: make([]message, 0, len(req.Messages))}
	if req.Temperature != nil || req.MaxTokens > 0 || req.Seed != nil {
		w.Options = &options{Temperature: req.Temperature, NumPredict: req.MaxTokens, Seed: req.Seed}
	}
	if req.Format != nil {
		w.Format = llm.SchemaOrEmpty(req.Format.Schema)
	}
	for _, t := range req.Tools {
		var x tool
		x.Type, x.Function.Name, x.Function.Description, x.Function.Parameters = "function", t.Name, t.Description, llm.SchemaOrEmpty(t.InputSchema)
		w.Tools = append(w.Tools, x)
	}
	names := map[string]string{} // tool call id → tool name, for tool_name
	for i, m := range req.Messages {
		om := message{Role: string(m.Role), Content: m.Content}
		switch m.Role {
		case llm.RoleSystem, llm.RoleUser:
		case llm.RoleAssistant:
			for _, tc := range m.ToolCalls {
				var c toolCall
				c.ID, c.Function.Name = tc.ID, tc.Name
				// The history carries arguments as objects; a call the
				// model wrote as broken JSON cannot be, and goes back as {}.
				c.Function.Arguments = llm.ObjectOrEmpty(tc.Arguments)
				om.ToolCalls = append(om.ToolCalls, c)
				names[tc.ID] = tc.Name
			}
		case llm.RoleTool:
			om.ToolCallID, om.ToolName = m.ToolCallID, names[m.ToolCallID]
		default:
			return nil, fmt.Errorf("message %d: unknown role %q", i, m.Role)
		}
		w.Messages = append(w.Messages, om)
	}
	return llm.Marshal(w)
}

type chatResponse struct {
	Model   string `json:"model"`
	Message *struct {
		Role      string `json:"role"`
		Content   string `json:"content"`
		ToolCalls []struct {
			ID       string `json:"id"`
			Function struct {
				Name      string          `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"message"`
	Done       bool   `json:"done"`
	DoneReason string `json:"done_reason"`
	// The counts are omitted when zero (omitempty in api.Metrics).
	PromptEvalCount int64  `json:"prompt_eval_count"`
	EvalCount       int64  `json:"eval_count"`
	Error           string `json:"error"`
}

// decode reads an /api/chat answer. It never panics on any input
// (FuzzDecode).
func decode(data []byte, requested string) (*llm.Response, error) {
	var w chatResponse
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, err
	}
	switch {
	case w.Error != "":
		return nil, errors.New("error in answer: " + w.Error)
	case w.Message == nil:
		return nil, errors.New("answer has no message")
	}
	r := &llm.Response{Model: cmp.Or(w.Model, requested), Message: llm.Message{Role: llm.RoleAssistant, Content: w.Message.Content},
		Usage: llm.Usage{InputTokens: max(w.PromptEvalCount, 0), OutputTokens: max(w.EvalCount, 0)}}
	for i, tc := range w.Message.ToolCalls {
		call := llm.ToolCall{ID: tc.ID, Name: tc.Function.Name}
		if call.ID == "" {
			call.ID = fmt.Sprintf("call_%d", i)
		}
		call.Arguments, call.InvalidArguments = llm.DecodeArguments(tc.Function.Arguments)
		r.Message.ToolCalls = append(r.Message.ToolCalls, call)
	}
	switch {
	case len(r.Message.ToolCalls) > 0:
		r.StopReason = llm.StopToolUse
	case w.DoneReason == "length":
		r.StopReason = llm.StopMaxTokens
	case w.DoneReason == "stop" || w.DoneReason == "":
		r.StopReason = llm.StopEndTurn
	default:
		r.StopReason = llm.StopReason(w.DoneReason)
	}
	return r, nil
}
