package llm

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// MessagesOptions say where a Messages API server lists its models.
type MessagesOptions struct {
	// Base is the base URL as configured, for messages.
	Base string
	// ModelsURL is the models list ({"data": [{"id"}]}); "" for none.
	ModelsURL string
	// ListRequired: a 404 of the list is a wrong base URL (Anthropic's
	// own API has it; a gateway may not).
	ListRequired bool
}

// Messages speaks the Messages API (POST {base}/v1/messages,
// anthropic-version 2023-06-01): Anthropic's, and the gateways that
// forward it.
type Messages struct {
	c *Client
	o MessagesOptions
}

// NewMessages makes a Messages API provider on c.
func NewMessages(c *Client, o MessagesOptions) *Messages { return &Messages{c: c, o: o} }

// Name is the provider's name.
func (p *Messages) Name() string { return p.c.name }

// Endpoint is the URL requests go to, without userinfo.
func (p *Messages) Endpoint() string { return p.c.idURL }

// Probe reads the models list and checks that it has model (an alias such
// as claude-sonnet-4-5 names its dated snapshots). A gateway without the
// list (404) only shows that it answers.
func (p *Messages) Probe(ctx context.Context, model string) error {
	if p.o.ModelsURL == "" {
		return nil
	}
	body, err := p.c.Get(ctx, p.o.ModelsURL)
	var ae *APIError
	switch {
	case errors.As(err, &ae) && ae.StatusCode == http.StatusNotFound && !p.o.ListRequired:
		return nil
	case err != nil:
		return &ProbeError{Provider: p.c.name, Model: model, Base: p.o.Base, Err: err}
	}
	if err := checkListed(model, listedIDs(body), SnapshotOf, nil); err != nil {
		return &ProbeError{Provider: p.c.name, Model: model, Base: p.o.Base, Err: err}
	}
	return nil
}

// SnapshotOf reports whether have is want or one of its dated snapshots
// (claude-sonnet-4-5-20250929 for claude-sonnet-4-5, also written
// claude-sonnet-4-5-latest): model lists name snapshots, specs aliases.
func SnapshotOf(want, have string) bool {
	want = strings.TrimSuffix(want, "-latest")
	rest, ok := strings.CutPrefix(have, want)
	if !ok {
		return false
	}
	if rest == "" {
		return true
	}
	d := strings.TrimPrefix(rest, "-")
	if len(d) == 10 && d[4] == '-' && d[7] == '-' {
		d = d[:4] + d[5:7] + d[8:]
	}
	if len(d) != 8 || len(rest) == len(d) {
		return false
	}
	for _, c := range d {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func (p *Messages) Complete(ctx context.Context, req Request) (*Response, error) {
	if err := checkRequest(req); err != nil {
		return nil, fmt.Errorf("%s: %w", p.c.name, err)
	}
	body, err := encodeAnthropic(req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.c.name, err)
	}
	resp, err := p.c.Do(ctx, req.Model, body, func(b []byte) (*Response, error) { return decodeAnthropic(b, req.Model) })
	if err == nil {
		formatAnswer(resp, req)
	}
	return resp, err
}

// formatAnswer makes the forced call's input the structured answer of a
// request with a Format.
func formatAnswer(resp *Response, req Request) {
	if req.Format == nil {
		return
	}
	var rest []ToolCall
	for _, tc := range resp.Message.ToolCalls {
		if tc.Name == req.Format.Name && resp.Message.Content == "" {
			resp.Message.Content = string(tc.Arguments)
			continue
		}
		rest = append(rest, tc)
	}
	resp.Message.ToolCalls = rest
}

type anRequest struct {
	Model     string `json:"model"`
	MaxTokens int    `json:"max_tokens"`
	// System is top-level in this API; there is no system role.
	System      string      `json:"system,omitempty"`
	Messages    []anMessage `json:"messages"`
	Tools       []anTool    `json:"tools,omitempty"`
	ToolChoice  *anChoice   `json:"tool_choice,omitempty"`
	Temperature *float64    `json:"temperature,omitempty"`
}

// anChoice forces a call of the named tool: how structured output is asked
// for here (Request.Format).
type anChoice struct {
	Type string `json:"type"`
	Name string `json:"name,omitempty"`
}

type anMessage struct {
	Role string `json:"role"`
	// Content is a string for plain text turns and []anBlock otherwise.
	Content any `json:"content"`
}

type anBlock struct {
	Type string `json:"type"`
	// text
	Text string `json:"text,omitempty"`
	// tool_use
	ID    string          `json:"id,omitempty"`
	Name  string          `json:"name,omitempty"`
	Input json.RawMessage `json:"input,omitempty"`
	// tool_result; content is optional in the API, and omitted when empty
	// because an empty text block is rejected.
	ToolUseID string `json:"tool_use_id,omitempty"`
	Content   string `json:"content,omitempty"`
	IsError   bool   `json:"is_error,omitempty"`
}

type anTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema"`
}

func encodeAnthropic(req Request) ([]byte, error) {
	w := anRequest{
		Model:       req.Model,
		MaxTokens:   cmp.Or(req.MaxTokens, DefaultMaxTokens),
		Messages:    make([]anMessage, 0, len(req.Messages)),
		Temperature: req.Temperature,
	}
	for _, t := range req.Tools {
		w.Tools = append(w.Tools, anTool{Name: t.Name, Description: t.Description, InputSchema: schemaOrEmpty(t.InputSchema)})
	}
	if req.Format != nil {
		w.Tools = append(w.Tools, anTool{Name: req.Format.Name, Description: "Give your answer by calling this tool.", InputSchema: schemaOrEmpty(req.Format.Schema)})
		w.ToolChoice = &anChoice{Type: "tool", Name: req.Format.Name}
	}
	var system []string
	// results is the user turn that collects tool results. The API requires
	// the results of one assistant turn's tool_use blocks at the start of the
	// very next user turn ("Messages following tool_use blocks must begin
	// with a matching number of tool_result blocks"), so consecutive tool
	// messages, and a user message right after them, share one turn.
	var results *[]anBlock
	for i, m := range req.Messages {
		switch m.Role {
		case RoleSystem:
			system = append(system, m.Content)
			continue
		case RoleTool:
			b := anBlock{Type: "tool_result", ToolUseID: m.ToolCallID, Content: m.Content, IsError: m.IsError}
			if results == nil {
				w.Messages = append(w.Messages, anMessage{Role: "user", Content: &[]anBlock{}})
				results = w.Messages[len(w.Messages)-1].Content.(*[]anBlock)
			}
			*results = append(*results, b)
			continue
		case RoleUser:
			if results != nil {
				if m.Content != "" {
					*results = append(*results, anBlock{Type: "text", Text: m.Content})
				}
				results = nil
				continue
			}
			w.Messages = append(w.Messages, anMessage{Role: "user", Content: m.Content})
		case RoleAssistant:
			if len(m.ToolCalls) == 0 {
				w.Messages = append(w.Messages, anMessage{Role: "assistant", Content: m.Content})
				break
			}
			var blocks []anBlock
			if m.Content != "" {
				blocks = append(blocks, anBlock{Type: "text", Text: m.Content})
			}
			for _, tc := range m.ToolCalls {
				blocks = append(blocks, anBlock{Type: "tool_use", ID: tc.ID, Name: tc.Name, Input: objectOrEmpty(tc.Arguments)})
			}
			w.Messages = append(w.Messages, anMessage{Role: "assistant", Content: blocks})
		default:
			return nil, fmt.Errorf("message %d: unknown role %q", i, m.Role)
		}
		results = nil
	}
	w.System = strings.Join(system, "\n\n")
	return marshal(w)
}

// objectOrEmpty returns arguments fit for a tool_use input, which must be
// an object; anything else (only possible for a conversation that did not
// come from this API) becomes {}.
func objectOrEmpty(a json.RawMessage) json.RawMessage {
	t := bytes.TrimSpace(a)
	if len(t) == 0 || t[0] != '{' || !json.Valid(t) {
		return json.RawMessage("{}")
	}
	return a
}

type anResponse struct {
	ID      string `json:"id"`
	Type    string `json:"type"`
	Model   string `json:"model"`
	Content *[]struct {
		Type  string          `json:"type"`
		Text  string          `json:"text"`
		ID    string          `json:"id"`
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
	} `json:"content"`
	StopReason  *string        `json:"stop_reason"`
	StopDetails *anStopDetails `json:"stop_details"`
	Usage       *struct {
		InputTokens              int64 `json:"input_tokens"`
		OutputTokens             int64 `json:"output_tokens"`
		CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
		CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
	} `json:"usage"`
}

// decodeAnthropic reads a Messages response body. It never panics on any
// input (FuzzDecodeAnthropic).
func decodeAnthropic(data []byte, requested string) (*Response, error) {
	var w anResponse
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, err
	}
	if w.Type != "" && w.Type != "message" {
		return nil, fmt.Errorf("response type %q, want \"message\"", w.Type)
	}
	if w.Content == nil {
		return nil, errors.New("response has no content")
	}
	r := &Response{ID: w.ID, Model: cmp.Or(w.Model, requested), Message: Message{Role: RoleAssistant}}
	var text []string
	for i, b := range *w.Content {
		switch b.Type {
		case "text":
			text = append(text, b.Text)
		case "tool_use":
			call := ToolCall{ID: b.ID, Name: b.Name, Arguments: objectOrEmpty(b.Input)}
			if call.ID == "" {
				call.ID = fmt.Sprintf("toolu_%d", i)
			}
			r.Message.ToolCalls = append(r.Message.ToolCalls, call)
		}
		// thinking and server-tool blocks are not requested, so not read.
	}
	// Text before and after tool calls arrives as separate blocks.
	r.Message.Content = strings.Join(text, "\n")
	if w.StopReason != nil {
		r.StopReason = stopReason(anthropicStops, *w.StopReason)
	}
	if r.StopReason == StopRefusal && strings.TrimSpace(r.Message.Content) == "" && len(r.Message.ToolCalls) == 0 {
		// A refusal often comes with no text at all. Like Chat Completions'
		// refusal text, what the API says about it becomes the answer, so
		// the run shows why it is empty, and a conversation that goes on
		// never sends an empty assistant turn, which this API rejects.
		r.Message.Content = anthropicRefusal(w.StopDetails)
	}
	if u := w.Usage; u == nil {
		r.Usage.Unknown = true
	} else {
		// input_tokens counts only the tokens after the last cache
		// breakpoint; reads and writes come apart and are billed apart.
		read, write := max(u.CacheReadInputTokens, 0), max(u.CacheCreationInputTokens, 0)
		r.Usage = Usage{InputTokens: u.InputTokens + write + read, OutputTokens: u.OutputTokens,
			CachedInputTokens: read, CacheWriteTokens: write}
	}
	return r, nil
}

// anStopDetails explains a refusal: the policy category and a
// human-readable explanation, either of which may be null.
type anStopDetails struct {
	Type        string  `json:"type"`
	Category    *string `json:"category"`
	Explanation *string `json:"explanation"`
}

// anthropicRefusal describes a refusal that came without text, from its
// stop_details when the API gave them.
func anthropicRefusal(d *anStopDetails) string {
	s := `[refused: stop_reason "refusal", no text`
	if d != nil && d.Category != nil && *d.Category != "" {
		s += ", category " + *d.Category
	}
	if d != nil && d.Explanation != nil && strings.TrimSpace(*d.Explanation) != "" {
		s += ": " + strings.TrimSpace(*d.Explanation)
	}
	return s + "]"
}

// anthropicStops maps the Messages API's stop_reason.
var anthropicStops = map[string]StopReason{
	"end_turn":      StopEndTurn,
	"stop_sequence": StopEndTurn,
	"tool_use":      StopToolUse,
	"max_tokens":    StopMaxTokens,
	"refusal":       StopRefusal,
}
