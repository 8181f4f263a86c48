package llm

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// ChatOptions say what a server speaking Chat Completions does its own way.
// The zero value is OpenAI's API.
type ChatOptions struct {
	// Base is the base URL as configured, without userinfo or query, for
	// messages.
	Base string
	// ModelsURL is the models list the probe reads ({"data": [{"id"}]});
	// "" when the provider has none.
	ModelsURL string
	// MaxTokens names the field a token limit goes in. "" is
	// max_completion_tokens, the current name (OpenAI's o-series and
	// gpt-5 reject max_tokens); the local servers read max_tokens.
	MaxTokens string
	// ParallelToolCalls sends parallel_tool_calls: true. llama-server
	// turns parallel calls off unless asked; OpenAI's default is on, and a
	// model compared across servers should be asked the same way.
	ParallelToolCalls bool
	// ListRequired: the server has the models list (the vendor's own API,
	// every local server), so a 404 there is a wrong base URL, not a
	// gateway or an Azure deployment URL without one.
	ListRequired bool
	// AnyModel: the server serves its one model whatever a request names
	// (llama-server), so the probe does not look the name up.
	AnyModel bool
	// ProbeTools: the probe also sends a one-token request offering one
	// tool, so that a server that refuses tools (vLLM without
	// --enable-auto-tool-choice, llama-server without --jinja, an Ollama
	// model without tool support) stops the run before the cases, not in
	// every one. Only for local servers, where it costs nothing.
	ProbeTools bool
	// MissingModel says how to get a model the server does not list
	// ("ollama pull qwen2.5:7b"), or "".
	MissingModel func(model string) string
}

// Chat speaks the Chat Completions API (POST {base}/chat/completions),
// which OpenAI, Azure OpenAI and the OpenAI-compatible servers share.
type Chat struct {
	c *Client
	o ChatOptions
	// noTemperature holds the models that rejected the temperature
	// parameter, so later calls omit it instead of failing first;
	// noFormat those that rejected response_format (older compatible
	// servers), whose structured-output requests then go without it.
	noTemperature sync.Map
	noFormat      sync.Map
}

// NewChat makes a Chat Completions provider on c.
func NewChat(c *Client, o ChatOptions) *Chat { return &Chat{c: c, o: o} }

// Name is the provider's name ("openai", "vllm"…).
func (p *Chat) Name() string { return p.c.name }

// Endpoint is the URL requests go to, without userinfo; caches key on it
// so that one model name on two backends never shares answers.
func (p *Chat) Endpoint() string { return p.c.idURL }

func (p *Chat) Complete(ctx context.Context, req Request) (*Response, error) {
	if err := checkRequest(req); err != nil {
		return nil, fmt.Errorf("%s: %w", p.c.name, err)
	}
	if _, ok := p.noTemperature.Load(req.Model); ok {
		req.Temperature = nil
	}
	if _, ok := p.noFormat.Load(req.Model); ok {
		req.Format = nil
	}
	resp, err := p.complete(ctx, req)
	// A compatible server that does not know json_schema response formats
	// answers 400 about response_format; the caller's prompt still asks
	// for JSON, so the request is worth sending without it.
	var fe *APIError
	if req.Format != nil && errors.As(err, &fe) && fe.StatusCode == http.StatusBadRequest &&
		(fe.Param == "response_format" || strings.Contains(fe.Message, "response_format")) {
		p.noFormat.Store(req.Model, struct{}{})
		req.Format = nil
		resp, err = p.complete(ctx, req)
	}
	// o-series and gpt-5 models answer any temperature but their default
	// with 400 {"param":"temperature","code":"unsupported_value"} (or
	// "unsupported_parameter"). The run is still meaningful at the default,
	// so retry once without it rather than fail every case of the model.
	var ae *APIError
	if req.Temperature != nil && errors.As(err, &ae) && ae.StatusCode == http.StatusBadRequest && ae.Param == "temperature" {
		p.noTemperature.Store(req.Model, struct{}{})
		req.Temperature = nil
		return p.complete(ctx, req)
	}
	return resp, err
}

func (p *Chat) complete(ctx context.Context, req Request) (*Response, error) {
	body, err := encodeChat(req, p.o)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.c.name, err)
	}
	return p.c.Do(ctx, req.Model, body, func(b []byte) (*Response, error) { return decodeChat(b, req.Model, p.c.name) })
}

// Probe reads the models list and checks that it has model, then, with
// ProbeTools, makes a one-token request offering one tool. A list the
// server does not have (404, 405: an Azure deployment URL, a proxy) only
// shows that the server answers.
func (p *Chat) Probe(ctx context.Context, model string) error {
	if p.o.ModelsURL != "" {
		body, err := p.c.Get(ctx, p.o.ModelsURL)
		var ae *APIError
		switch {
		case errors.As(err, &ae) && !p.o.ListRequired && (ae.StatusCode == http.StatusNotFound || ae.StatusCode == http.StatusMethodNotAllowed):
			// No list here; one under BASE/v1 means the base URL is the
			// server's root, not its API's (every case would then 404).
			if v1 := withV1(p.o.ModelsURL); v1 != "" {
				if b, err := p.c.Get(ctx, v1); err == nil && json.Valid(b) {
					return p.probeError(model, &NotModelAPIError{URL: p.o.ModelsURL, Answer: fmt.Sprintf("%d", ae.StatusCode),
						Fix: "the base URL lacks /v1: " + strings.TrimSuffix(v1, "/models") + " answers as a model API"})
				}
			}
		case err != nil:
			return p.probeError(model, err)
		case !json.Valid(body):
			// A web page (a dashboard, a login page, a proxy's notice)
			// answered: not a model API at all.
			fix := "check the base URL: it is the API root that has /models and /chat/completions"
			if v1 := withV1(p.o.ModelsURL); v1 != "" {
				fix = "the base URL likely lacks /v1: try " + strings.TrimSuffix(v1, "/models")
			}
			return p.probeError(model, &NotModelAPIError{URL: p.o.ModelsURL, Answer: "a page that is not JSON (" + snippet(body) + ")", Fix: fix})
		case !p.o.AnyModel:
			if err := checkListed(model, listedIDs(body), exactModel, p.o.MissingModel); err != nil {
				return p.probeError(model, err)
			}
		}
	}
	if !p.o.ProbeTools {
		return nil
	}
	req := Request{Model: model, MaxTokens: 1, Messages: []Message{{Role: RoleUser, Content: "Say OK."}}, Tools: []Tool{probeTool}}
	body, err := encodeChat(req, p.o)
	if err != nil {
		return p.probeError(model, err)
	}
	if _, err := p.c.Once(ctx, body, func(b []byte) (*Response, error) { return decodeChat(b, model, p.c.name) }); err != nil {
		return p.probeError(model, err)
	}
	return nil
}

func (p *Chat) probeError(model string, err error) error {
	return &ProbeError{Provider: p.c.name, Model: model, Base: cmp.Or(p.o.Base, p.c.safeURL), Err: err}
}

// Request wire types, in the field order of the API reference so golden
// request bodies read naturally.
type oaRequest struct {
	Model    string      `json:"model"`
	Messages []oaMessage `json:"messages"`
	Tools    []oaTool    `json:"tools,omitempty"`
	// max_tokens is deprecated and rejected by o-series and gpt-5 models;
	// max_completion_tokens is the current name. It is sent only when the
	// caller sets a limit, so servers that know only max_tokens (older
	// Ollama) are unaffected by default.
	MaxCompletionTokens int `json:"max_completion_tokens,omitempty"`
	// max_tokens is the name the local servers read (ChatOptions.MaxTokens).
	MaxTokens int `json:"max_tokens,omitempty"`
	// parallel_tool_calls: see ChatOptions.ParallelToolCalls.
	ParallelToolCalls *bool             `json:"parallel_tool_calls,omitempty"`
	Temperature       *float64          `json:"temperature,omitempty"`
	ResponseFormat    *oaResponseFormat `json:"response_format,omitempty"`
}

// oaResponseFormat is structured output: {"type": "json_schema",
// "json_schema": {"name", "schema", "strict": true}}.
type oaResponseFormat struct {
	Type       string `json:"type"`
	JSONSchema struct {
		Name   string          `json:"name"`
		Schema json.RawMessage `json:"schema"`
		Strict bool            `json:"strict"`
	} `json:"json_schema"`
}

type oaMessage struct {
	Role string `json:"role"`
	// Content is always a string, "" for a tool-call-only assistant turn.
	// OpenAI also accepts null there, but Ollama rejects null with
	// "invalid message content type: <nil>" and LM Studio rejects it too,
	// while "" works everywhere (pydantic/pydantic-ai#5206,
	// lmstudio-ai/lmstudio-bug-tracker#261).
	Content    string       `json:"content"`
	ToolCalls  []oaToolCall `json:"tool_calls,omitempty"`
	ToolCallID string       `json:"tool_call_id,omitempty"`
}

type oaToolCall struct {
	ID       string         `json:"id"`
	Type     string         `json:"type"`
	Function oaFunctionCall `json:"function"`
}

type oaFunctionCall struct {
	Name string `json:"name"`
	// Arguments is a JSON document serialised into a string, as the API
	// sends and expects it.
	Arguments string `json:"arguments"`
}

type oaTool struct {
	Type     string     `json:"type"`
	Function oaFunction `json:"function"`
}

type oaFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

// encodeChat is the request body of req on a server with options o.
func encodeChat(req Request, o ChatOptions) ([]byte, error) {
	w := oaRequest{
		Model:       req.Model,
		Messages:    make([]oaMessage, 0, len(req.Messages)),
		Temperature: req.Temperature,
	}
	if o.MaxTokens == "max_tokens" {
		w.MaxTokens = req.MaxTokens
	} else {
		w.MaxCompletionTokens = req.MaxTokens
	}
	if o.ParallelToolCalls && len(req.Tools) > 0 {
		on := true
		w.ParallelToolCalls = &on
	}
	if req.Format != nil {
		w.ResponseFormat = &oaResponseFormat{Type: "json_schema"}
		w.ResponseFormat.JSONSchema.Name = req.Format.Name
		w.ResponseFormat.JSONSchema.Schema = req.Format.Schema
		w.ResponseFormat.JSONSchema.Strict = true
	}
	for _, t := range req.Tools {
		w.Tools = append(w.Tools, oaTool{Type: "function", Function: oaFunction{
			Name: t.Name, Description: t.Description, Parameters: schemaOrEmpty(t.InputSchema),
		}})
	}
	for i, m := range req.Messages {
		om := oaMessage{Role: string(m.Role), Content: m.Content}
		switch m.Role {
		case RoleSystem, RoleUser:
		case RoleAssistant:
			for _, tc := range m.ToolCalls {
				om.ToolCalls = append(om.ToolCalls, oaToolCall{ID: tc.ID, Type: "function", Function: oaFunctionCall{
					Name: tc.Name, Arguments: argumentsText(tc),
				}})
			}
		case RoleTool:
			om.ToolCallID = m.ToolCallID
		default:
			return nil, fmt.Errorf("message %d: unknown role %q", i, m.Role)
		}
		w.Messages = append(w.Messages, om)
	}
	return marshal(w)
}

// argumentsText gives back the arguments as the model wrote them, so a
// replayed conversation shows the model its own (possibly broken) call.
func argumentsText(tc ToolCall) string {
	switch {
	case tc.InvalidArguments != "":
		return tc.InvalidArguments
	case len(tc.Arguments) == 0:
		return "{}"
	}
	return string(tc.Arguments)
}

// Response wire types: only the fields used. The decoder is lenient about
// what compatible servers add or leave out, strict about what it needs.
type oaResponse struct {
	ID      string          `json:"id"`
	Model   string          `json:"model"`
	Choices []oaChoice      `json:"choices"`
	Usage   *oaUsage        `json:"usage"`
	Error   json.RawMessage `json:"error"`
}

type oaChoice struct {
	Message struct {
		Content   json.RawMessage `json:"content"`
		Refusal   *string         `json:"refusal"`
		ToolCalls []struct {
			ID       string `json:"id"`
			Type     string `json:"type"`
			Function struct {
				Name      string          `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"message"`
	FinishReason *string `json:"finish_reason"`
	// NativeFinishReason is OpenRouter's: the upstream model's own reason,
	// beside the normalised finish_reason; read when that one is absent.
	NativeFinishReason *string `json:"native_finish_reason"`
	// Error is OpenRouter's error of one choice (finish_reason "error"):
	// the upstream failed after the answer had started.
	Error json.RawMessage `json:"error"`
}

type oaUsage struct {
	PromptTokens        int64 `json:"prompt_tokens"`
	CompletionTokens    int64 `json:"completion_tokens"`
	PromptTokensDetails *struct {
		CachedTokens int64 `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails *struct {
		ReasoningTokens int64 `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
}

// decodeChat reads a Chat Completions response body from provider. It
// never panics on any input (FuzzDecodeChat). A body that is an event
// stream (a server that streams although no stream was asked for) is
// assembled first (assembleStream).
func decodeChat(data []byte, requested, provider string) (*Response, error) {
	if isEventStream(data) {
		var err error
		if data, err = assembleStream(data); err != nil {
			return nil, err
		}
	}
	var w oaResponse
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, err
	}
	if len(w.Choices) > 0 && len(w.Choices[0].Error) > 0 && string(w.Choices[0].Error) != "null" {
		w.Error, w.Choices = w.Choices[0].Error, nil
		data, _ = json.Marshal(map[string]json.RawMessage{"error": w.Error})
	}
	if len(w.Choices) == 0 {
		// Some gateways (OpenRouter among them) report an upstream failure
		// as 200 with an error object and no choices.
		e := &APIError{Provider: provider}
		if len(w.Error) > 0 && string(w.Error) != "null" {
			parseErrorBody(e, data)
			// OpenRouter puts the upstream's HTTP status in error.code;
			// an overloaded or rate-limited upstream is worth a retry like
			// the same status sent as such (the client retries an APIError
			// whose status it would retry).
			if n, err := strconv.Atoi(e.Code); err == nil && n >= 400 && n <= 599 {
				e.StatusCode = n
			}
			return nil, &errorIn200{e}
		}
		return nil, errors.New("no choices in response")
	}
	ch := w.Choices[0]
	content, err := openAIContent(ch.Message.Content)
	if err != nil {
		return nil, err
	}
	r := &Response{ID: w.ID, Model: cmp.Or(w.Model, requested), Message: Message{Role: RoleAssistant, Content: content}}
	for i, tc := range ch.Message.ToolCalls {
		if tc.Type != "" && tc.Type != "function" {
			continue // custom tool types are never offered, so never answered
		}
		call := ToolCall{ID: tc.ID, Name: tc.Function.Name}
		if call.ID == "" {
			// Some compatible servers omit ids; the tool result still needs
			// one to point at.
			call.ID = fmt.Sprintf("call_%d", i)
		}
		call.Arguments, call.InvalidArguments = openAIArguments(tc.Function.Arguments)
		r.Message.ToolCalls = append(r.Message.ToolCalls, call)
	}
	switch {
	case ch.FinishReason != nil:
		r.StopReason = stopReason(openAIStops, *ch.FinishReason)
	case ch.NativeFinishReason != nil:
		r.StopReason = stopReason(openAIStops, strings.ToLower(*ch.NativeFinishReason))
	}
	// finish_reason alone is not to be trusted: vLLM has answered
	// "tool_calls" with no call in the message, and servers answer "stop"
	// to a turn that calls tools (a forced call on vLLM, older Ollama).
	// What the message holds is what the agent loop acts on.
	if r.StopReason == StopToolUse && len(r.Message.ToolCalls) == 0 {
		r.StopReason = StopEndTurn
	}
	if ch.Message.Refusal != nil && *ch.Message.Refusal != "" && content == "" {
		r.Message.Content = *ch.Message.Refusal
		r.StopReason = StopRefusal
	}
	if len(r.Message.ToolCalls) > 0 {
		r.StopReason = StopToolUse
	}
	switch u := w.Usage; {
	case u == nil:
		// Some compatible servers send no usage; the call's cost is then
		// unknown, not free.
		r.Usage.Unknown = true
	default:
		r.Usage = Usage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens}
		if d := u.PromptTokensDetails; d != nil {
			r.Usage.CachedInputTokens = min(max(d.CachedTokens, 0), u.PromptTokens)
		}
		if d := u.CompletionTokensDetails; d != nil {
			r.Usage.ReasoningTokens = min(max(d.ReasoningTokens, 0), u.CompletionTokens)
		}
	}
	return r, nil
}

// openAIContent accepts content as a string, null, or an array of parts.
func openAIContent(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	if raw[0] == '[' {
		var parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal(raw, &parts); err != nil {
			return "", fmt.Errorf("message content: %w", err)
		}
		var b strings.Builder
		for _, p := range parts {
			if p.Type == "text" || p.Type == "" {
				b.WriteString(p.Text)
			}
		}
		return b.String(), nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("message content: %w", err)
	}
	return s, nil
}

// openAIArguments turns function.arguments into valid JSON or, failing
// that, the verbatim text. The API sends a string; a few compatible servers
// send the object itself, which is accepted as is.
func openAIArguments(raw json.RawMessage) (args json.RawMessage, invalid string) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return json.RawMessage("{}"), ""
	}
	if raw[0] != '"' {
		return append(json.RawMessage(nil), raw...), ""
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return nil, string(raw)
	}
	if strings.TrimSpace(s) == "" {
		// A call without arguments; several servers send "" for it.
		return json.RawMessage("{}"), ""
	}
	if !json.Valid([]byte(s)) {
		return nil, s
	}
	return json.RawMessage(s), ""
}

// openAIStops maps Chat Completions' finish_reason.
var openAIStops = map[string]StopReason{
	"stop":           StopEndTurn,
	"length":         StopMaxTokens,
	"tool_calls":     StopToolUse,
	"function_call":  StopToolUse,
	"content_filter": StopRefusal,
}

// Shared helpers for both dialects.

// stopReason maps a provider's stop or finish reason through table; one
// the table does not know is kept as the provider wrote it.
func stopReason(table map[string]StopReason, s string) StopReason {
	if r, ok := table[s]; ok {
		return r
	}
	return StopReason(s)
}

func checkRequest(req Request) error {
	switch {
	case req.Model == "":
		return errors.New("request has no model")
	case len(req.Messages) == 0:
		return errors.New("request has no messages")
	}
	return nil
}

// schemaOrEmpty stands in an empty object schema for a tool without one:
// Anthropic requires input_schema and OpenAI's function schema must be an
// object.
func schemaOrEmpty(s json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(s)) == 0 {
		return json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return s
}

// marshal encodes without HTML escaping, so tool descriptions reach the
// model byte for byte ("<", ">" and "&" are common in them).
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// errorIn200 is an error reported inside a 200 answer (OpenRouter's way
// with upstream failures). It unwraps to the *APIError, so callers see the
// status the gateway reported.
type errorIn200 struct{ e *APIError }

func (e *errorIn200) Error() string {
	if e.e.StatusCode != 0 {
		return fmt.Sprintf("no choices in response; error %d %q", e.e.StatusCode, e.e.Message)
	}
	return fmt.Sprintf("no choices in response; error %q", e.e.Message)
}

func (e *errorIn200) Unwrap() error { return e.e }

// OpenChat makes the Chat Completions provider d from the environment:
// the base URL from d.BaseURLEnv (else d.BaseURL), a Bearer key from
// d.Keys when set (required only where d.KeyRequired and the address is
// d's own), posting to {base}/chat/completions and listing {base}/models.
// o's Base and ModelsURL default to those; explain, when set, reads the
// server's errors (Client.SetExplain); extra headers are added.
func OpenChat(d *Def, env Env, s Settings, o ChatOptions, explain func(*APIError) (string, bool), extra http.Header) (Provider, error) {
	base, custom, err := d.Base(env)
	if err != nil {
		return nil, err
	}
	_, key := d.Key(env)
	if err := d.CheckKey(key, custom); err != nil {
		return nil, err
	}
	h := BearerHeader(key)
	for k, v := range extra {
		h[k] = v
	}
	c := NewClient(d.Name, Endpoint(base, "/chat/completions"), h, []string{key}, s)
	if explain != nil {
		c.SetExplain(explain)
	}
	o.ListRequired = o.ListRequired || d.Local || !custom
	o.Base = cmp.Or(o.Base, SafeURL(base.String()))
	o.ModelsURL = cmp.Or(o.ModelsURL, Endpoint(base, "/models"))
	return NewChat(c, o), nil
}
