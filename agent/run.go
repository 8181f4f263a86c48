package agent

import (
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/mcp-eval/mcp-eval/internal/clip"
	"github.com/mcp-eval/mcp-eval/llm"
	"github.com/mcp-eval/mcp-eval/mcp"
)

// Limits of one run.
const (
	// MaxResultBytes caps the text of one tool result given to the model. A
	// server under test is untrusted and may answer megabytes; fed back on
	// every later turn that would blow the model's context and the run's
	// cost, and say nothing more about tool selection than the first 32 KiB.
	MaxResultBytes = 32 << 10
	// MaxInputRounds bounds the input_required round-trips of one call, so a
	// server that keeps asking cannot hold a run forever.
	MaxInputRounds = 3
	// maxRawBytes caps the raw result kept in a transcript. Transcripts are
	// cached on disk per run; a 16 MiB answer kept five times per model is
	// not worth the space, and scoring reads names and arguments, not Raw.
	maxRawBytes = 1 << 20
)

// Stop reasons of a Transcript.
const (
	StopFinal    = "final"
	StopMaxTurns = "max_turns"
	StopError    = "error"
)

// Run executes one task: it offers t.Tools to m, executes the calls m makes
// against s (or answers them from t.Stubs), and feeds the results back until
// m answers without calling a tool or t.MaxTurns model calls have been made.
//
// A failing model call is part of the record, not a Go error: the transcript
// comes back with Stop "error" and Err set, so that a provider outage
// counts as an errored run rather than aborting the suite. Run returns a Go
// error only when it is called wrongly (a nil model or server).
//
// Calls of one turn are executed one after another in the model's order:
// the order is what sequence scoring checks, and tools with side effects
// must not race each other.
func Run(ctx context.Context, m Model, s Server, t Task) (*Transcript, error) {
	if m == nil {
		return nil, errors.New("agent: nil model")
	}
	if s == nil {
		return nil, errors.New("agent: nil server")
	}
	return newLoop(m, s, t).run(ctx), nil
}

// loop is one Run in progress: the tools as the model is offered them, and
// the transcript so far.
type loop struct {
	m      Model
	s      Server
	t      Task
	start  time.Time
	names  *ToolNames
	tools  []llm.Tool          // offered to the model, under provider-safe names
	byName map[string]mcp.Tool // the server's tools by their own names
	tr     *Transcript
	// userTurn counts the follow-up messages sent (multi-turn cases).
	userTurn int
}

func newLoop(m Model, s Server, t Task) *loop {
	l := &loop{m: m, s: s, t: t, start: time.Now(), tr: &Transcript{Calls: []Call{}}}
	serverNames := make([]string, len(t.Tools))
	for i, tool := range t.Tools {
		serverNames[i] = tool.Name
	}
	l.names = NewToolNames(serverNames)
	l.tools = make([]llm.Tool, 0, len(t.Tools))
	l.byName = make(map[string]mcp.Tool, len(t.Tools))
	for _, tool := range t.Tools {
		l.tools = append(l.tools, llm.Tool{Name: l.names.Safe(tool.Name), Description: tool.Description, InputSchema: tool.InputSchema})
		if _, dup := l.byName[tool.Name]; !dup {
			l.byName[tool.Name] = tool
		}
	}
	if t.System != "" {
		l.tr.Messages = append(l.tr.Messages, llm.Message{Role: llm.RoleSystem, Content: t.System})
	}
	l.tr.Messages = append(l.tr.Messages, llm.Message{Role: llm.RoleUser, Content: t.Prompt})
	return l
}

// run calls the model until it answers without tool calls (after the last
// follow-up) or the turn limit is reached; the limit starts again for each
// follow-up.
func (l *loop) run(ctx context.Context) *Transcript {
	maxTurns := l.t.MaxTurns
	if maxTurns <= 0 {
		maxTurns = DefaultMaxTurns
	}
	segment := 0
	for turn := 1; segment < maxTurns; turn++ {
		segment++
		if ctx.Err() != nil {
			return l.fail(context.Cause(ctx))
		}
		resp, err := l.complete(ctx)
		if err != nil {
			return l.fail(err)
		}
		msg := l.answer(resp, turn)
		if len(msg.ToolCalls) == 0 {
			if l.followUp(msg) {
				segment = 0
				continue
			}
			return l.stop(StopFinal)
		}
		l.callTools(ctx, turn, msg)
	}
	return l.stop(StopMaxTurns)
}

func (l *loop) stop(reason string) *Transcript {
	l.tr.Stop = reason
	l.tr.Duration = time.Since(l.start)
	return l.tr
}

func (l *loop) fail(err error) *Transcript {
	l.tr.Err = err.Error()
	return l.stop(StopError)
}

// FirstRequest is the model request a Run of t sends first: the system
// prompt and the prompt, the tools under their provider-safe names, t's
// limits. A batch API can answer it ahead of the run (the cache then
// hands the answer to the run's first call, whose request is this one).
func FirstRequest(t Task) llm.Request { return newLoop(nil, nil, t).request() }

// request is the model request of the conversation so far.
func (l *loop) request() llm.Request {
	return llm.Request{
		Model: l.t.Model,
		// The provider may keep the slice while retrying; a copy keeps
		// later appends out of a request still in flight. Tool calls go
		// out under their provider-safe names.
		Messages:    l.names.outbound(l.tr.Messages),
		Tools:       l.tools,
		MaxTokens:   l.t.MaxTokens,
		Temperature: l.t.Temperature,
		Seed:        l.t.Seed,
	}
}

// complete makes one model call and records its latency.
func (l *loop) complete(ctx context.Context) (*llm.Response, error) {
	req := l.request()
	callStart := time.Now()
	resp, err := l.m.Complete(ctx, req)
	latency := time.Since(callStart)
	if err == nil && resp != nil && resp.Replayed {
		// A replayed answer reports the recorded call's time, so that
		// telemetry of a cached run describes the provider, not the disk.
		latency = resp.Latency
		l.tr.ReplayedCalls++
	}
	l.tr.ModelLatencies = append(l.tr.ModelLatencies, latency)
	l.tr.ModelCalls++
	if err == nil && resp == nil {
		err = errors.New("model returned no response")
	}
	if err != nil {
		if ctx.Err() != nil {
			// Say why the context ended (a run budget, an interrupt),
			// not just that it did.
			err = fmt.Errorf("%w (%v)", err, context.Cause(ctx))
		}
		return nil, err
	}
	return resp, nil
}

// answer records the model's answer of turn and returns it as the
// assistant message, its tool calls under the server's names.
func (l *loop) answer(resp *llm.Response, turn int) llm.Message {
	l.tr.Turns++
	l.tr.Usage.Add(resp.Usage)
	if l.tr.AnsweredBy == "" {
		l.tr.AnsweredBy = resp.Model
	}
	msg := resp.Message
	msg.Role = llm.RoleAssistant
	// Every tool message must point at its call; a model that sends no
	// id (some compatible servers do) still gets a stable, unique one.
	msg.ToolCalls = append([]llm.ToolCall(nil), msg.ToolCalls...)
	for i := range msg.ToolCalls {
		if msg.ToolCalls[i].ID == "" {
			msg.ToolCalls[i].ID = fmt.Sprintf("call_%d_%d", turn, i+1)
		}
		// Back to the server's name before anything executes, scores or
		// records the call.
		msg.ToolCalls[i].Name = l.names.Original(msg.ToolCalls[i].Name)
	}
	l.tr.Messages = append(l.tr.Messages, msg)
	if msg.Content != "" {
		l.tr.Final = msg.Content
	}
	if resp.StopReason == llm.StopRefusal {
		l.tr.Refusal = cmp.Or(strings.TrimSpace(msg.Content), "no text")
	}
	return msg
}

// followUp records msg, an answer without tool calls, as a final answer
// and sends the next user message of a multi-turn conversation, if any is
// left; it reports whether it sent one.
func (l *loop) followUp(msg llm.Message) bool {
	l.tr.Final = msg.Content
	if len(l.t.FollowUps) > 0 {
		l.tr.Finals = append(l.tr.Finals, msg.Content)
	}
	if l.userTurn == len(l.t.FollowUps) {
		return false
	}
	l.tr.Messages = append(l.tr.Messages, llm.Message{Role: llm.RoleUser, Content: l.t.FollowUps[l.userTurn]})
	l.userTurn++
	return true
}

// callTools answers every tool call of msg, in the model's order. The calls
// of the last allowed turn are still executed: they are the model's
// choices, which selection and sequence scoring judge.
func (l *loop) callTools(ctx context.Context, turn int, msg llm.Message) {
	maxCalls := l.t.MaxCallsPerTurn
	if maxCalls <= 0 {
		maxCalls = DefaultMaxCallsPerTurn
	}
	for i, tc := range msg.ToolCalls {
		if i >= maxCalls {
			// Every tool call still needs its result message (the APIs
			// reject a turn with unanswered calls); the excess is
			// answered, not run.
			c := Call{Turn: turn, UserTurn: l.userTurn, ID: tc.ID, Name: tc.Name, Arguments: tc.Arguments, InvalidArguments: tc.InvalidArguments, Capped: true,
				Result: errorResult(fmt.Sprintf("not run: this turn asked for %d tool calls and mcp-eval runs at most %d per turn", len(msg.ToolCalls), maxCalls))}
			l.tr.Calls = append(l.tr.Calls, c)
			l.tr.CappedCalls++
			l.tr.Messages = append(l.tr.Messages, llm.Message{Role: llm.RoleTool, ToolCallID: tc.ID, Content: c.Result.Content, IsError: true})
			continue
		}
		c := runCall(ctx, l.s, l.t, l.byName, l.names, turn, tc)
		c.UserTurn = l.userTurn
		l.tr.Calls = append(l.tr.Calls, c)
		l.tr.Messages = append(l.tr.Messages, llm.Message{
			Role: llm.RoleTool, ToolCallID: tc.ID, Content: c.Result.Content, IsError: c.Result.IsError,
		})
	}
}

// runCall answers one tool call: unknown tool, invalid arguments, stub, or
// a real tools/call, then t.OnResult and the size cap.
func runCall(ctx context.Context, s Server, t Task, byName map[string]mcp.Tool, names *ToolNames, turn int, tc llm.ToolCall) Call {
	start := time.Now()
	c := Call{Turn: turn, ID: tc.ID, Name: tc.Name, Arguments: tc.Arguments, InvalidArguments: tc.InvalidArguments}
	tool, known := byName[tc.Name]
	c.ReadOnly = known && tool.ReadOnly()
	args, argErr := decodeArguments(tc)
	switch {
	case !known:
		c.UnknownTool = true
		c.Result = errorResult(fmt.Sprintf("unknown tool %q: the server offers no tool by that name (available: %s)", tc.Name, toolNames(byName, names)))
	case argErr != nil:
		c.Result = errorResult(fmt.Sprintf("invalid arguments for %s: %v; the tool was not called. Send the arguments as one JSON object.", tc.Name, argErr))
	case hasStub(t.Stubs, tc.Name):
		c.Stubbed = true
		c.Result = stubResult(t.Stubs[tc.Name])
	default:
		c.Executed = true
		c.Result, c.InputRounds = execute(ctx, s, t, tc.Name, args)
	}
	c.Result.Content = capText(c.Result.Content)
	c.Duration = time.Since(start)
	if t.OnResult != nil {
		c.Result = t.OnResult(c, c.Result)
		c.Result.Content = capText(c.Result.Content)
	}
	return c
}

// decodeArguments turns the model's arguments into the object tools/call
// sends. Numbers stay json.Number so that a large integer reaches the
// server digit for digit rather than through a float64.
func decodeArguments(tc llm.ToolCall) (map[string]any, error) {
	if tc.InvalidArguments != "" {
		return nil, fmt.Errorf("not valid JSON: %s", clip.Bytes(tc.InvalidArguments, 200))
	}
	raw := bytes.TrimSpace(tc.Arguments)
	if len(raw) == 0 || string(raw) == "null" {
		return map[string]any{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("not valid JSON: %s", clip.Bytes(string(raw), 200))
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("arguments must be a JSON object, got %s", clip.Bytes(string(raw), 200))
	}
	return obj, nil
}

// execute sends the call and answers input_required results from
// t.InputResponses, up to MaxInputRounds retries.
func execute(ctx context.Context, s Server, t Task, name string, args map[string]any) (ToolResult, int) {
	var extra map[string]any
	for round := 0; ; round++ {
		res, err := s.CallTool(ctx, name, args, extra)
		if err != nil {
			return callError(err), round
		}
		if res.ResultType != "input_required" {
			return convertResult(res), round
		}
		if round == MaxInputRounds {
			return ToolResult{Content: fmt.Sprintf("the server still asked for input after %d rounds; the call was abandoned", MaxInputRounds), IsError: true, Raw: keepRaw(res.Raw)}, round
		}
		if len(res.InputRequests) == 0 {
			return ToolResult{Content: "the server answered input_required without any inputRequests", IsError: true, Raw: keepRaw(res.Raw)}, round
		}
		responses := make(map[string]json.RawMessage, len(res.InputRequests))
		for _, key := range slices.Sorted(maps.Keys(res.InputRequests)) {
			r, ok := t.InputResponses[key]
			if !ok {
				return ToolResult{
					Content: fmt.Sprintf("the server asked for input %q, and the case configures no input response for it", key),
					IsError: true, Raw: keepRaw(res.Raw),
				}, round
			}
			responses[key] = r
		}
		extra = map[string]any{"inputResponses": responses}
		if res.RequestState != nil {
			extra["requestState"] = *res.RequestState
		}
	}
}

// callError is the result of a tools/call that got no result: a JSON-RPC
// error (kept as Raw for scoring) or a transport failure.
func callError(err error) ToolResult {
	var rpc *mcp.Error
	if errors.As(err, &rpc) {
		raw, _ := json.Marshal(rpc)
		return ToolResult{Content: fmt.Sprintf("error %d: %s", rpc.Code, rpc.Message), IsError: true, Raw: raw}
	}
	return ToolResult{Content: "the tool call failed: " + err.Error(), IsError: true}
}

func convertResult(res *mcp.CallToolResult) ToolResult {
	text := contentText(res.Content)
	if text == "" && len(res.StructuredContent) > 0 && string(res.StructuredContent) != "null" {
		// A result with structured content only still has something to say.
		text = string(res.StructuredContent)
	}
	return ToolResult{Content: text, IsError: res.IsError, Raw: keepRaw(res.Raw)}
}

func hasStub(stubs map[string]json.RawMessage, name string) bool {
	_, ok := stubs[name]
	return ok
}

// stubResult answers from a case's stub: a CallToolResult object (an
// object with a content array) as the server would send it, or any other
// JSON value as the text of one content block.
func stubResult(raw json.RawMessage) ToolResult {
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage(`""`)
	}
	var probe struct {
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(raw, &probe) == nil && len(probe.Content) > 0 && bytes.TrimSpace(probe.Content)[0] == '[' {
		var res mcp.CallToolResult
		if json.Unmarshal(raw, &res) == nil {
			res.Raw = raw
			return convertResult(&res)
		}
	}
	text := string(raw)
	var s string
	if json.Unmarshal(raw, &s) == nil {
		text = s
	}
	block := map[string]any{"type": "text", "text": text}
	res, _ := json.Marshal(map[string]any{"content": []any{block}})
	return ToolResult{Content: text, Raw: res}
}

// contentText renders content blocks as text for the model: text blocks as
// they are, others as a short description, one block per line.
func contentText(blocks []json.RawMessage) string {
	parts := make([]string, 0, len(blocks))
	for _, raw := range blocks {
		var b struct {
			Type     string `json:"type"`
			Text     string `json:"text"`
			Data     string `json:"data"`
			MimeType string `json:"mimeType"`
			URI      string `json:"uri"`
			Name     string `json:"name"`
			Resource *struct {
				URI      string `json:"uri"`
				MimeType string `json:"mimeType"`
				Text     string `json:"text"`
				Blob     string `json:"blob"`
			} `json:"resource"`
		}
		if json.Unmarshal(raw, &b) != nil {
			parts = append(parts, "[unreadable content block]")
			continue
		}
		switch {
		case b.Type == "text":
			parts = append(parts, b.Text)
		case b.Type == "image" || b.Type == "audio":
			parts = append(parts, fmt.Sprintf("[%s, %d bytes]", orType(b.MimeType, b.Type), base64Len(b.Data)))
		case b.Type == "resource_link":
			parts = append(parts, fmt.Sprintf("[resource link %s %s]", b.URI, b.Name))
		case b.Type == "resource" && b.Resource != nil && b.Resource.Blob == "":
			parts = append(parts, fmt.Sprintf("[resource %s]\n%s", b.Resource.URI, b.Resource.Text))
		case b.Type == "resource" && b.Resource != nil:
			parts = append(parts, fmt.Sprintf("[resource %s, %s, %d bytes]", b.Resource.URI, orType(b.Resource.MimeType, "binary"), base64Len(b.Resource.Blob)))
		default:
			parts = append(parts, fmt.Sprintf("[%s content block]", orType(b.Type, "untyped")))
		}
	}
	return strings.Join(parts, "\n")
}

func orType(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// base64Len is the decoded size of standard base64 text, without decoding.
func base64Len(s string) int {
	s = strings.TrimRight(s, "=")
	return base64.RawStdEncoding.DecodedLen(len(s))
}

// capText cuts text longer than MaxResultBytes at a rune boundary and says
// so, so the model knows it saw only part of the result.
func capText(s string) string {
	shown, cut := clip.Prefix(s, MaxResultBytes)
	if !cut {
		return s
	}
	return shown + fmt.Sprintf("\n[result truncated by mcp-eval: %d of %d bytes shown]", len(shown), len(s))
}

// keepRaw keeps a raw result unless it is too large to store per run.
func keepRaw(raw json.RawMessage) json.RawMessage {
	if len(raw) <= maxRawBytes {
		return raw
	}
	b, _ := json.Marshal(map[string]any{"mcpEvalTruncated": true, "bytes": len(raw)})
	return b
}

func errorResult(text string) ToolResult { return ToolResult{Content: text, IsError: true} }

// toolNames lists the tools as the model knows them (their provider-safe
// names), for the answer to a call of an unknown tool.
func toolNames(byName map[string]mcp.Tool, names *ToolNames) string {
	if len(byName) == 0 {
		return "none"
	}
	keys := slices.Sorted(maps.Keys(byName))
	for i, k := range keys {
		keys[i] = names.Safe(k)
	}
	return strings.Join(keys, ", ")
}
