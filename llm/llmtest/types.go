package llmtest

import "encoding/json"

// Options configure a provider's emulation (each provider's Emulate, llm/<name>/<name>test).
type Options struct {
	// Models are the models the server serves; a request for another is
	// refused as the real server refuses it. Empty: the one model "m".
	Models []string
	// Key, when set, is the only credential the server takes.
	Key string
	// Reply answers a request the server took, in neutral form: the
	// emulation encodes it in the provider's wire format, ids, stop
	// reasons and usage included. Nil answers "ok".
	Reply func(Request) Reply
	// Quirks switch on documented behaviours of some versions or
	// configurations, by name (each provider's Emulate documents its own).
	Quirks map[string]bool
}

// Request is a request as an emulation read it, in neutral form.
type Request struct {
	Model       string
	Messages    []Message
	Tools       []Tool
	MaxTokens   int
	Temperature *float64
	// Format is a structured-output request (response_format json_schema,
	// Ollama's format, or Anthropic's forced tool call).
	Format *Format
}

// Message is one message of a Request. System text is a message of role
// "system"; a tool result is role "tool".
type Message struct {
	Role, Content string
	ToolCalls     []Call
	ToolCallID    string
	// ToolName is Ollama's tool_name on a tool result.
	ToolName string
	IsError  bool
}

// Call is a tool call in a Request's history.
type Call struct {
	ID, Name string
	Args     json.RawMessage
}

// Tool is a tool a Request offers.
type Tool struct {
	Name, Description string
	Schema            json.RawMessage
}

// Format is a structured-output request.
type Format struct {
	Name   string
	Schema json.RawMessage
}

// Reply is a scripted model answer: text, tool calls, or both.
type Reply struct {
	Text  string
	Calls []ReplyCall
	// NoUsage leaves usage out of the answer.
	NoUsage bool
	// InputTokens and OutputTokens are the usage reported (10 and 5 when
	// both are 0 and NoUsage is false).
	InputTokens, OutputTokens int64
}

// ReplyCall is one tool call of a Reply; Args is a JSON object.
type ReplyCall struct {
	Name, Args string
}

// LastUser is the text of the request's last user message.
func (r Request) LastUser() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i].Content
		}
	}
	return ""
}

// ToolResults counts the request's tool results.
func (r Request) ToolResults() int {
	n := 0
	for _, m := range r.Messages {
		if m.Role == "tool" {
			n++
		}
	}
	return n
}
