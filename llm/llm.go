// Package llm is the core of mcp-eval's model clients: neutral types (so
// the agent loop and the judge never see a vendor's wire format), the
// declaration of a provider (Def), the HTTP client every provider shares
// (Client), and the two wire formats several servers speak: Chat
// Completions (Chat: OpenAI, Azure OpenAI, llama-server, vLLM, LM Studio,
// OpenRouter, LiteLLM…) and Anthropic's Messages (Messages). Each provider
// is a package below this one (llm/openai, llm/ollama…) and one line of the
// registry, llm/providers.
//
// It owns what every caller would otherwise get wrong: reading credentials
// from the environment the way the official SDKs do, retrying 429/5xx with
// backoff that honours Retry-After, a per-provider concurrency limit,
// per-request timeouts, bounded response bodies, token usage, and keeping
// API keys out of every error string.
//
// It imports only the standard library: telemetry measures it through the
// Observer hook, so this package never imports telemetry, report or any
// vendor SDK (DESIGN.md, "Packages").
package llm

import (
	"context"
	"encoding/json"
	"time"
)

// Role is the author of a Message.
type Role string

// The roles of a conversation. RoleTool carries the result of one tool call
// back to the model; Anthropic has no such role, so its provider turns tool
// messages into tool_result blocks of a user turn.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Message is one turn of a conversation in a provider-neutral form. The JSON
// tags let transcripts and the result cache store it as is.
type Message struct {
	Role    Role   `json:"role"`
	Content string `json:"content,omitempty"`
	// ToolCalls are the calls an assistant turn asks for, in the model's order.
	ToolCalls []ToolCall `json:"toolCalls,omitempty"`
	// ToolCallID links a RoleTool message to the ToolCall it answers.
	ToolCallID string `json:"toolCallId,omitempty"`
	// IsError marks a RoleTool message as a failed call. Anthropic passes it
	// to the model as is_error; Chat Completions has no such field, so there
	// the content alone has to say it.
	IsError bool `json:"isError,omitempty"`
}

// ToolCall is one tool invocation requested by the model.
type ToolCall struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Arguments is the call's input as valid JSON (normally an object). It is
	// nil when the model produced text that is not JSON; see InvalidArguments.
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// InvalidArguments holds, verbatim, arguments that are not valid JSON.
	// Chat Completions returns arguments as a string the model wrote, and
	// weak models get it wrong; that is a scoring result (wrong arguments),
	// not a failed request, so the text is kept here instead of failing.
	// Keeping it out of Arguments keeps ToolCall marshalable.
	InvalidArguments string `json:"invalidArguments,omitempty"`
}

// Tool is a tool offered to the model: an MCP tool's name, description and
// input schema, passed through unchanged.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
}

// Request is one completion request.
type Request struct {
	// Model is the provider's model name, without the "openai:" prefix.
	Model    string
	Messages []Message
	Tools    []Tool
	// MaxTokens caps the answer. Zero means the provider's default: omitted
	// for Chat Completions, DefaultMaxTokens for Anthropic, which requires it.
	MaxTokens int
	// Temperature is sent when non-nil; mcp-eval sets 0 for repeatable runs.
	// It is a pointer because "not sent" must differ from 0: OpenAI reasoning
	// models (o-series, gpt-5) reject any value but their default. The OpenAI
	// provider handles that 400 by retrying once without it and remembering
	// that for the model.
	Temperature *float64
	// Format, when set, asks for structured output: one JSON object
	// matching Format.Schema, returned as the message's text. Chat
	// Completions gets response_format json_schema (strict); the Messages
	// API has no such parameter, so there it is one tool the model is made
	// to call (tool_choice), whose input becomes the text. The judge uses
	// it; the agent loop never does.
	Format *Format
	// Seed asks for a reproducible sample where the provider takes one
	// (Chat Completions "seed", Ollama options.seed); nil sends none. A
	// provider that has no such parameter (Anthropic) does not declare
	// ParamSeed, and the caller warns instead of sending it silently
	// nowhere (Def.Unaccepted).
	Seed *int64
}

// Param names an optional request parameter a provider may or may not
// accept: Def.Accepts lists those it sends; Def.Unaccepted names the ones
// a request sets that the provider would drop.
type Param string

// The optional parameters of a Request.
const (
	ParamTemperature Param = "temperature"
	ParamMaxTokens   Param = "max_tokens"
	ParamFormat      Param = "format"
	ParamSeed        Param = "seed"
)

// Params are the optional parameters req sets, in a fixed order.
func (req Request) Params() []Param {
	var out []Param
	if req.Temperature != nil {
		out = append(out, ParamTemperature)
	}
	if req.MaxTokens > 0 {
		out = append(out, ParamMaxTokens)
	}
	if req.Format != nil {
		out = append(out, ParamFormat)
	}
	if req.Seed != nil {
		out = append(out, ParamSeed)
	}
	return out
}

// Format is a structured-output request: a name (letters, digits, _ and -)
// and the JSON Schema of the object wanted.
type Format struct {
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
}

// StopReason says why the model stopped. The common reasons of both APIs are
// mapped onto the constants below; any other value is passed through as the
// provider sent it.
type StopReason string

// Normalised stop reasons.
const (
	StopEndTurn   StopReason = "end_turn"   // OpenAI "stop", Anthropic "end_turn"/"stop_sequence"
	StopToolUse   StopReason = "tool_use"   // OpenAI "tool_calls", Anthropic "tool_use"
	StopMaxTokens StopReason = "max_tokens" // OpenAI "length", Anthropic "max_tokens"
	StopRefusal   StopReason = "refusal"    // OpenAI "content_filter" or a refusal, Anthropic "refusal"
)

// Usage is the token count the provider reported for one response.
type Usage struct {
	// InputTokens counts every prompt token, cached or not, so the figure
	// means the same for both providers (OpenAI's prompt_tokens already
	// includes cached tokens; Anthropic reports cache reads and writes apart
	// and they are added here).
	InputTokens int64 `json:"inputTokens"`
	// OutputTokens counts every generated token, hidden reasoning included.
	OutputTokens int64 `json:"outputTokens"`
	// CachedInputTokens is the part of InputTokens read from the
	// provider's prompt cache (OpenAI prompt_tokens_details.cached_tokens,
	// Anthropic cache_read_input_tokens), billed at a lower rate.
	CachedInputTokens int64 `json:"cachedInputTokens,omitempty"`
	// CacheWriteTokens is the part of InputTokens written to the prompt
	// cache (Anthropic cache_creation_input_tokens), billed at 1.25× the
	// input rate for the 5-minute cache.
	CacheWriteTokens int64 `json:"cacheWriteTokens,omitempty"`
	// ReasoningTokens is the part of OutputTokens the model spent on hidden
	// reasoning (OpenAI completion_tokens_details.reasoning_tokens).
	ReasoningTokens int64 `json:"reasoningTokens,omitempty"`
	// Unknown: some answer carried no usage at all, so its cost is unknown
	// (never zero).
	Unknown bool `json:"unknown,omitempty"`
	// Batch is the part of this usage billed at the batch rate (BatchRate):
	// answers of a batch API. nil when none was.
	Batch *Usage `json:"batch,omitempty"`
}

// Add adds o to u.
func (u *Usage) Add(o Usage) {
	u.InputTokens += o.InputTokens
	u.OutputTokens += o.OutputTokens
	u.CachedInputTokens += o.CachedInputTokens
	u.CacheWriteTokens += o.CacheWriteTokens
	u.ReasoningTokens += o.ReasoningTokens
	u.Unknown = u.Unknown || o.Unknown
	if o.Batch != nil {
		// A fresh value: a copied Usage must not share its batch part.
		var b Usage
		if u.Batch != nil {
			b = *u.Batch
		}
		b.Add(*o.Batch)
		u.Batch = &b
	}
}

// Response is the model's answer to one Request.
type Response struct {
	// ID is the provider's id for the response, for support requests.
	ID string `json:"id,omitempty"`
	// Model is the model that answered as the server names it (often a dated
	// snapshot of the requested alias); it falls back to Request.Model.
	Model string `json:"model"`
	// Message is the assistant turn, to be appended to the conversation.
	Message    Message    `json:"message"`
	StopReason StopReason `json:"stopReason"`
	Usage      Usage      `json:"usage"`
	// Replayed: the answer came from a record of an identical earlier
	// request (golden's cache), and Latency is that call's wall time. Both
	// are zero for a live answer and never serialised.
	Replayed bool          `json:"-"`
	Latency  time.Duration `json:"-"`
}

// Provider completes conversations with one model API. Implementations are
// safe for concurrent use; concurrency beyond the configured limit waits.
type Provider interface {
	// Name is the provider's name as used in model specs ("openai", "ollama"…).
	Name() string
	// Complete sends req and returns the model's answer. Errors from the API
	// are *APIError (or *RateLimitError for 429) once retries are spent.
	Complete(ctx context.Context, req Request) (*Response, error)
}

// Observer is told about every HTTP attempt a provider makes, so telemetry
// can measure latency, tokens and failures without this package importing
// it. A call that succeeds after two 429s produces three Start/End pairs, the
// first two ending in a *RateLimitError. Time spent waiting for a
// concurrency slot or between retries is not part of d. Methods may be called
// from many goroutines at once.
type Observer interface {
	RequestStart(provider, model string)
	RequestEnd(provider, model string, d time.Duration, u Usage, err error)
}
