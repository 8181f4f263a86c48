package llm

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// mcp-eval never asks for a stream (an eval needs the whole answer, and a
// non-streamed answer carries its usage on every server: LM Studio sends
// none in a stream, the others only with stream_options.include_usage).
// A server or proxy may stream anyway; such an answer is put back
// together here, so that it reads as the one JSON answer it stands for.

// isEventStream reports whether a body is Server-Sent Events rather than
// JSON: its first non-blank line is a field or a comment.
func isEventStream(data []byte) bool {
	t := bytes.TrimLeft(data, " \t\r\n")
	return bytes.HasPrefix(t, []byte("data:")) || bytes.HasPrefix(t, []byte(":")) || bytes.HasPrefix(t, []byte("event:"))
}

// chunk is one chat.completion.chunk of a stream.
type chunk struct {
	ID      string          `json:"id"`
	Model   string          `json:"model"`
	Usage   json.RawMessage `json:"usage"`
	Error   json.RawMessage `json:"error"`
	Choices []struct {
		Delta struct {
			Content   *string `json:"content"`
			Refusal   *string `json:"refusal"`
			ToolCalls []struct {
				Index    int    `json:"index"`
				ID       string `json:"id"`
				Type     string `json:"type"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason       *string         `json:"finish_reason"`
		NativeFinishReason *string         `json:"native_finish_reason"`
		Error              json.RawMessage `json:"error"`
	} `json:"choices"`
}

// assembleStream joins the chunks of a Chat Completions event stream into
// one chat.completion body: comments (OpenRouter's ": OPENROUTER
// PROCESSING" keep-alives) and [DONE] are skipped, content and each tool
// call's arguments concatenated by index, and usage taken from the chunk
// that carries it (none: the cost is unknown). An error event is the
// answer's error.
func assembleStream(data []byte) ([]byte, error) {
	type call struct {
		ID, Type, Name string
		Args           strings.Builder
	}
	var (
		id, model        string
		content, refusal strings.Builder
		hasRefusal       bool
		calls            = map[int]*call{}
		finish, native   *string
		usage, errBody   json.RawMessage
		chunks           int
	)
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), maxResponseBody)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		payload, ok := strings.CutPrefix(line, "data:")
		if !ok {
			continue // a comment, an event name, a blank line between events
		}
		payload = strings.TrimSpace(payload)
		if payload == "[DONE]" || payload == "" {
			continue
		}
		var c chunk
		if err := json.Unmarshal([]byte(payload), &c); err != nil {
			return nil, fmt.Errorf("event stream: %w", err)
		}
		chunks++
		id, model = firstNonEmpty(id, c.ID), firstNonEmpty(model, c.Model)
		if len(c.Usage) > 0 && string(c.Usage) != "null" {
			usage = c.Usage
		}
		if len(c.Error) > 0 && string(c.Error) != "null" {
			errBody = c.Error
		}
		for _, ch := range c.Choices {
			if len(ch.Error) > 0 && string(ch.Error) != "null" {
				errBody = ch.Error
			}
			if d := ch.Delta.Content; d != nil {
				content.WriteString(*d)
			}
			if d := ch.Delta.Refusal; d != nil {
				refusal.WriteString(*d)
				hasRefusal = true
			}
			for _, tc := range ch.Delta.ToolCalls {
				x := calls[tc.Index]
				if x == nil {
					x = &call{}
					calls[tc.Index] = x
				}
				x.ID, x.Type, x.Name = firstNonEmpty(x.ID, tc.ID), firstNonEmpty(x.Type, tc.Type), x.Name+tc.Function.Name
				x.Args.WriteString(tc.Function.Arguments)
			}
			if ch.FinishReason != nil {
				finish = ch.FinishReason
			}
			if ch.NativeFinishReason != nil {
				native = ch.NativeFinishReason
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("event stream: %w", err)
	}
	if errBody != nil {
		return json.Marshal(map[string]json.RawMessage{"error": errBody})
	}
	if chunks == 0 {
		return nil, errors.New("event stream without a data event")
	}
	msg := map[string]any{"role": "assistant", "content": content.String()}
	if hasRefusal {
		msg["refusal"] = refusal.String()
	}
	if len(calls) > 0 {
		idx := make([]int, 0, len(calls))
		for i := range calls {
			idx = append(idx, i)
		}
		sort.Ints(idx)
		var tcs []any
		for _, i := range idx {
			c := calls[i]
			tcs = append(tcs, map[string]any{"id": c.ID, "type": c.Type, "function": map[string]any{"name": c.Name, "arguments": c.Args.String()}})
		}
		msg["tool_calls"] = tcs
	}
	choice := map[string]any{"index": 0, "message": msg, "finish_reason": finish}
	if native != nil {
		choice["native_finish_reason"] = native
	}
	out := map[string]any{"id": id, "model": model, "choices": []any{choice}}
	if usage != nil {
		out["usage"] = usage
	}
	return json.Marshal(out)
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
