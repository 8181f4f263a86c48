package llm

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// APIError is a non-2xx answer from a model API.
type APIError struct {
	Provider   string
	StatusCode int
	// Type is the API's error type, e.g. "invalid_request_error",
	// "overloaded_error"; empty when the body was not the API's error JSON.
	Type string
	// Code and Param are OpenAI's error.code and error.param, when given.
	Code  string
	Param string
	// Message is the API's message, or the start of a non-JSON body, with
	// every credential of the request replaced by "[REDACTED]".
	Message string
	// RequestID is the provider's request id (x-request-id, request-id).
	RequestID string
	// Hint is the provider's reading of the error: what to change (start
	// vLLM with --enable-auto-tool-choice, pull the model), or "".
	Hint string
}

// Error reads "provider: HTTP status type: message (request id)".
func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: HTTP %d", e.Provider, e.StatusCode)
	if e.Type != "" {
		b.WriteString(" " + e.Type)
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	if e.RequestID != "" {
		b.WriteString(" (request " + e.RequestID + ")")
	}
	if e.Hint != "" {
		b.WriteString(": " + e.Hint)
	}
	return b.String()
}

// RateLimitError is an HTTP 429 answer. RetryAfter is how long the server
// asked the client to wait (zero when it did not say).
type RateLimitError struct {
	*APIError
	RetryAfter time.Duration
}

// Error is the APIError text plus the requested wait.
func (e *RateLimitError) Error() string {
	if e.RetryAfter > 0 {
		return fmt.Sprintf("%s (retry after %s)", e.APIError.Error(), e.RetryAfter)
	}
	return e.APIError.Error()
}

// Unwrap lets errors.As find the *APIError inside.
func (e *RateLimitError) Unwrap() error { return e.APIError }

// Body size limits. Error bodies are for a one-line message; a real answer
// with long tool arguments stays far below 16 MiB, and a server that sends
// more is broken or hostile and must not exhaust memory.
const (
	maxErrorBody    = 64 << 10
	maxResponseBody = 16 << 20
	// maxPlainMessage is how much of a non-JSON error body (an HTML page from
	// a proxy, say) is kept as the message.
	maxPlainMessage = 300
)

// errorEnvelope covers the error bodies of both APIs and of the compatible
// servers: OpenAI {"error":{"message","type","param","code"}}, Anthropic
// {"type":"error","error":{"type","message","details"},"request_id"}, vLLM's
// flat {"object":"error","message","type","param","code"}, and the
// {"error":"text"} some proxies send.
type errorEnvelope struct {
	Error     json.RawMessage `json:"error"`
	RequestID string          `json:"request_id"`
	errorBody
}

type errorBody struct {
	Message string          `json:"message"`
	Type    string          `json:"type"`
	Param   json.RawMessage `json:"param"`
	Code    json.RawMessage `json:"code"`
	Details struct {
		ErrorCode string `json:"error_code"`
	} `json:"details"`
}

// parseErrorBody fills e from body, whatever shape it has, and returns
// Anthropic's error.details.error_code. It never fails: a body it cannot
// read becomes the message.
func parseErrorBody(e *APIError, body []byte) (detailCode string) {
	var env errorEnvelope
	if json.Unmarshal(body, &env) == nil {
		eb := env.errorBody
		var nested errorBody
		var text string
		switch {
		case json.Unmarshal(env.Error, &nested) == nil && (nested.Message != "" || nested.Type != ""):
			// Anthropic's top-level "type" is the constant "error"; the
			// useful one is the nested one.
			eb = nested
		case json.Unmarshal(env.Error, &text) == nil:
			eb = errorBody{Message: text}
		}
		if eb.Message != "" || eb.Type != "" {
			e.Message = eb.Message
			e.Type = eb.Type
			e.Param = jsonText(eb.Param)
			e.Code = jsonText(eb.Code)
			if e.RequestID == "" {
				e.RequestID = env.RequestID
			}
			return eb.Details.ErrorCode
		}
	}
	msg := strings.TrimSpace(string(body))
	if len(msg) > maxPlainMessage {
		msg = msg[:maxPlainMessage] + "…"
	}
	e.Message = strings.ToValidUTF8(msg, "")
	return ""
}

// jsonText renders a scalar JSON value as text: OpenAI's code is a string,
// but compatible servers send numbers or null.
func jsonText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// redact replaces every secret in s. Keys are long random strings, so plain
// substring replacement cannot hit innocent text; a value shorter than 8
// characters ("k", "ollama" for a local server) is no credential worth
// masking and would mangle the message ("loo[REDACTED]up"), as the run's
// redactor also leaves it (redact.MinLen).
func redact(s string, secrets []string) string {
	for _, k := range secrets {
		if len(k) >= 8 {
			s = strings.ReplaceAll(s, k, "[REDACTED]")
		}
	}
	return s
}
