// Package llmtest holds, for the tests' fake model servers, the request
// rules the real model APIs enforce with HTTP 400, and the building blocks
// of the providers' strict emulations (ChatServer; each provider's
// Emulate in its test-only llm/<name>/<name>test). A fake that takes what the real API refuses lets a
// broken request pass every test and fail on the first real run (a dotted
// MCP tool name, a tool result answering no call, an Anthropic request
// without max_tokens), so every fake of this module refuses a request with
// these functions, and with the APIs' own messages.
//
// It imports only the standard library, never llm or a provider
// package, and only tests import it: the shipped binary holds none of it.
package llmtest

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// The tool-name patterns of the two APIs: Chat Completions
// ^[a-zA-Z0-9_-]{1,64}$, Messages ^[a-zA-Z0-9_-]{1,128}$.
var (
	chatToolName     = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	messagesToolName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,128}$`)
)

// Reject returns the message the real API answers, with HTTP 400, to a
// request with body sent to path; "" when it takes the request. A path
// ending in /chat/completions is the Chat Completions API, one ending in
// /messages the Messages API; any other path is taken.
func Reject(path string, body []byte) string {
	switch {
	case strings.HasSuffix(path, "/chat/completions"):
		return RejectChat(body)
	case strings.HasSuffix(path, "/messages"):
		return RejectMessages(body)
	}
	return ""
}

// RejectChat returns the Chat Completions API's 400 message for body, ""
// when it takes it: a body that is not JSON, no messages, a function name
// outside the pattern (in tools or in an assistant's tool_calls), or a
// tool message that answers no tool call of the assistant message before
// it.
func RejectChat(body []byte) string {
	var req struct {
		Messages []struct {
			Role       string `json:"role"`
			ToolCallID string `json:"tool_call_id"`
			ToolCalls  []struct {
				ID       string `json:"id"`
				Function struct {
					Name string `json:"name"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"messages"`
		Tools []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	if json.Unmarshal(body, &req) != nil {
		return "We could not parse the JSON body of your request."
	}
	if len(req.Messages) == 0 {
		return "[] is too short - 'messages'"
	}
	for i, tool := range req.Tools {
		if !chatToolName.MatchString(tool.Function.Name) {
			return fmt.Sprintf("Invalid 'tools[%d].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.", i)
		}
	}
	open := map[string]bool{} // the calls of the assistant message just before
	for i, m := range req.Messages {
		switch m.Role {
		case "assistant":
			open = map[string]bool{}
			for j, tc := range m.ToolCalls {
				if !chatToolName.MatchString(tc.Function.Name) {
					return fmt.Sprintf("Invalid 'messages[%d].tool_calls[%d].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.", i, j)
				}
				open[tc.ID] = true
			}
		case "tool":
			if !open[m.ToolCallID] {
				return fmt.Sprintf("Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'. (messages.[%d].role)", i)
			}
		default:
			open = map[string]bool{}
		}
	}
	return ""
}

// RejectMessages returns the Messages API's 400 message for body, "" when
// it takes it (or cannot read it): a tool name outside the pattern (in
// tools or in an assistant's tool_use blocks), a missing max_tokens, or a
// tool_use whose results do not open the very next user turn, in the
// order of the calls.
func RejectMessages(body []byte) string {
	var req struct {
		MaxTokens *int `json:"max_tokens"`
		Tools     []struct {
			Name string `json:"name"`
		} `json:"tools"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(body, &req) != nil {
		return ""
	}
	for i, tool := range req.Tools {
		if !messagesToolName.MatchString(tool.Name) {
			return fmt.Sprintf("tools.%d.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'", i)
		}
	}
	if req.MaxTokens == nil {
		return "max_tokens: Field required"
	}
	var pending []string // tool_use ids the next user turn must answer first
	for i, m := range req.Messages {
		var blocks []struct {
			Type      string `json:"type"`
			ID        string `json:"id"`
			Name      string `json:"name"`
			ToolUseID string `json:"tool_use_id"`
		}
		_ = json.Unmarshal(m.Content, &blocks) // a string content has no blocks
		if m.Role == "user" && len(pending) > 0 {
			for j, id := range pending {
				if j >= len(blocks) || blocks[j].Type != "tool_result" || blocks[j].ToolUseID != id {
					return fmt.Sprintf("messages.%d: `tool_use` ids were found without `tool_result` blocks immediately after: %s. Each `tool_use` block must have a corresponding `tool_result` block in the next message.", i, id)
				}
			}
		}
		pending = nil
		if m.Role == "assistant" {
			for j, b := range blocks {
				if b.Type != "tool_use" {
					continue
				}
				if !messagesToolName.MatchString(b.Name) {
					return fmt.Sprintf("messages.%d.content.%d.tool_use.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'", i, j)
				}
				pending = append(pending, b.ID)
			}
		}
	}
	return ""
}
