package llm

import "encoding/json"

// The helpers a provider package with a wire format of its own (Ollama's
// /api/chat) shares with Chat and Messages, so that every provider treats
// arguments, schemas and bodies alike.

// DecodeArguments turns a tool call's arguments as a server sent them (an
// object, or a JSON document in a string) into valid JSON or, failing
// that, the verbatim text (ToolCall.InvalidArguments).
func DecodeArguments(raw json.RawMessage) (args json.RawMessage, invalid string) {
	return openAIArguments(raw)
}

// ObjectOrEmpty returns arguments fit for a wire that needs an object
// (tool_use input, Ollama's arguments): anything else becomes {}.
func ObjectOrEmpty(a json.RawMessage) json.RawMessage { return objectOrEmpty(a) }

// SchemaOrEmpty stands in an empty object schema for a tool without one.
func SchemaOrEmpty(s json.RawMessage) json.RawMessage { return schemaOrEmpty(s) }

// Marshal encodes without HTML escaping, so tool descriptions reach the
// model byte for byte.
func Marshal(v any) ([]byte, error) { return marshal(v) }

// CheckRequest refuses a request without a model or messages.
func CheckRequest(req Request) error { return checkRequest(req) }
