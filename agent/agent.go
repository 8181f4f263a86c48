// Package agent runs the model↔server loop that Layers 1 and 2 share: the
// server's tools become the model's tool definitions, the model's calls are
// executed against the server through mcp (or answered by a stub), and the
// results go back to the model until it answers or the turn limit is hit.
// Every run records a Transcript.
//
// It is not a layer: golden (Layer 1) and resilience (Layer 2) import it;
// it imports mcp and llm only (for their types and clients), never a layer.
package agent

import (
	"cmp"
	"context"
	"encoding/json"
	"time"

	"github.com/mcp-eval/mcp-eval/llm"
	"github.com/mcp-eval/mcp-eval/mcp"
)

// Model is the one method the loop needs from a model client;
// llm.Provider satisfies it.
type Model interface {
	Complete(ctx context.Context, req llm.Request) (*llm.Response, error)
}

// Server is what the loop needs from the MCP server under test;
// *mcp.Client satisfies it.
type Server interface {
	CallTool(ctx context.Context, name string, args map[string]any, extra map[string]any) (*mcp.CallToolResult, error)
}

// Task is one run of one case.
type Task struct {
	// Model is the provider's model name (no "openai:" prefix).
	Model string
	// System is an optional system prompt; Prompt is the user's message.
	System string
	Prompt string
	// Tools are the server's tools as listed (names, descriptions and input
	// schemas are passed to the model as given).
	Tools []mcp.Tool
	// FollowUps are further user messages (a multi-turn conversation):
	// each is sent once the model has answered the one before without
	// calling a tool.
	FollowUps []string
	// MaxTurns bounds model calls per user message; 0 means
	// DefaultMaxTurns.
	MaxTurns int
	// Stubs answer calls to the named tools with a fixed result instead of
	// executing them: a CallToolResult object, or any other JSON value which
	// is then sent as one text content block.
	Stubs map[string]json.RawMessage
	// InputResponses answer input_required results (multi round-trip
	// requests): inputRequests key → the response object (for example an
	// ElicitResult {"action":"accept","content":{...}}). A key without a
	// response makes the call fail with a clear error in the transcript.
	InputResponses map[string]json.RawMessage
	// Temperature is passed to the model; nil leaves the provider default.
	Temperature *float64
	// MaxTokens caps each model answer; 0 is the provider default.
	MaxTokens int
	// Seed is passed to the model where the provider takes one; nil
	// sends none.
	Seed *int64
	// MaxCallsPerTurn caps the tool calls executed from one model turn
	// (0: DefaultMaxCallsPerTurn). The calls beyond it are answered with an
	// error result, never sent to the server, and counted in
	// Transcript.CappedCalls.
	MaxCallsPerTurn int
	// OnResult, if set, may replace a tool result before the model sees it
	// (Layer 2 fault and injection hooks). It returns the result to use.
	OnResult func(call Call, result ToolResult) ToolResult
}

// DefaultMaxTurns bounds a run whose case sets no max_turns.
const DefaultMaxTurns = 8

// DefaultMaxCallsPerTurn bounds the tool calls run from one model message:
// a model (or a compromised one) asking for a thousand calls at once must
// not hammer the server under test.
const DefaultMaxCallsPerTurn = 32

// ToolResult is what the model is shown for one call.
type ToolResult struct {
	// Content is the text given to the model.
	Content string `json:"content"`
	// IsError marks a failed call (isError result, JSON-RPC error, transport
	// error, stub of an error).
	IsError bool `json:"isError,omitempty"`
	// Raw is the server's result (or error) as received, for scoring.
	Raw json.RawMessage `json:"raw,omitempty"`
}

// Call is one tool call the model made, and what became of it.
type Call struct {
	// Turn is the 1-based model turn that asked for the call; UserTurn
	// the 0-based user message it answers (0 but in multi-turn runs).
	Turn     int    `json:"turn"`
	UserTurn int    `json:"userTurn,omitempty"`
	ID       string `json:"id"`
	Name     string `json:"name"`
	// Arguments as the model sent them; nil when they were not JSON, in
	// which case InvalidArguments holds the text.
	Arguments        json.RawMessage `json:"arguments,omitempty"`
	InvalidArguments string          `json:"invalidArguments,omitempty"`
	Result           ToolResult      `json:"result"`
	// Stubbed: answered from Task.Stubs. Executed: sent to the server.
	Stubbed  bool `json:"stubbed,omitempty"`
	Executed bool `json:"executed,omitempty"`
	// ReadOnly: the server marks the tool readOnlyHint. A call that is
	// Executed and not ReadOnly had real effects on the server; the run's
	// output says so.
	ReadOnly bool `json:"readOnly,omitempty"`
	// UnknownTool: the model named a tool the server does not offer.
	UnknownTool bool `json:"unknownTool,omitempty"`
	// Capped: the call came after Task.MaxCallsPerTurn others of its turn
	// and was not run.
	Capped bool `json:"capped,omitempty"`
	// InputRounds counts the input_required round-trips answered from
	// Task.InputResponses before the final result.
	InputRounds int           `json:"inputRounds,omitempty"`
	Duration    time.Duration `json:"durationNs"`
}

// Transcript is the full record of one run.
type Transcript struct {
	Messages []llm.Message `json:"messages"`
	Calls    []Call        `json:"calls"`
	// Final is the model's last text answer ("" if it never gave one);
	// Finals holds the answer to each user message of a multi-turn run.
	Final  string   `json:"final"`
	Finals []string `json:"finals,omitempty"`
	// ModelCalls counts Complete calls; Turns the assistant turns.
	// ReplayedCalls is how many of the calls were answered from a record
	// of an identical request instead of the model.
	ModelCalls    int `json:"modelCalls"`
	ReplayedCalls int `json:"replayedCalls,omitempty"`
	// CappedCalls counts the tool calls not run because their turn asked
	// for more than Task.MaxCallsPerTurn.
	CappedCalls int `json:"cappedCalls,omitempty"`
	Turns       int `json:"turns"`
	// Stop is "final" (the model answered without calling a tool),
	// "max_turns", or "error" (a model call failed; see Err).
	Stop string `json:"stop"`
	// Refusal is the answer of the last model turn that stopped with stop
	// reason refusal (Chat Completions' refusal text, or what the Messages
	// API said of it), so a run that ended with nothing says why.
	Refusal string    `json:"refusal,omitempty"`
	Err     string    `json:"error,omitempty"`
	Usage   llm.Usage `json:"usage"`
	// ModelLatencies holds each model call's wall time, for telemetry.
	ModelLatencies []time.Duration `json:"modelLatenciesNs,omitempty"`
	// AnsweredBy is the model name the provider reported in its first
	// answer (often a dated snapshot of the requested alias), so a report
	// can show which snapshot a cached or fresh run actually measured.
	AnsweredBy string `json:"answeredBy,omitempty"`
	// Duration is the run's wall time, model calls and tool calls included.
	Duration time.Duration `json:"durationNs"`
}

// Failure says why a run has nothing to score, or "" when it has: no
// transcript at all (t is nil) or a model call that failed (Stop is
// "error", with Err). The layers that score runs count such a run as
// errored, not as failed.
func (t *Transcript) Failure() string {
	switch {
	case t == nil:
		return "no transcript"
	case t.Stop == StopError:
		return cmp.Or(t.Err, "the run failed")
	}
	return ""
}

// Selected returns the names of the tools the model called, in order.
func (t *Transcript) Selected() []string {
	out := make([]string, len(t.Calls))
	for i, c := range t.Calls {
		out[i] = c.Name
	}
	return out
}
