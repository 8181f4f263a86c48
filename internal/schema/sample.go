package schema

import (
	"encoding/json"
	"strings"
)

// sampleSchema is the part of a JSON Schema that SampleArgs reads.
type sampleSchema struct {
	Type       json.RawMessage            `json:"type"`
	Enum       []json.RawMessage          `json:"enum"`
	Const      json.RawMessage            `json:"const"`
	Default    json.RawMessage            `json:"default"`
	Format     string                     `json:"format"`
	Minimum    *float64                   `json:"minimum"`
	MinLength  *int                       `json:"minLength"`
	Properties map[string]json.RawMessage `json:"properties"`
	Required   []string                   `json:"required"`
}

// TypeName returns the type a schema's type keyword names: the string, or
// the first type of a list other than "null"; "" when there is none.
func TypeName(typ json.RawMessage) string {
	var s string
	if json.Unmarshal(typ, &s) == nil {
		return s
	}
	var ss []string
	if json.Unmarshal(typ, &ss) == nil {
		for _, t := range ss {
			if t != "null" {
				return t
			}
		}
	}
	return ""
}

// SampleArgs builds the smallest arguments that satisfy a tool
// inputSchema's required properties: a const, a default or the first enum
// value where the schema gives one, else a plain value of the declared type
// (within minimum and minLength, of a common format, an object with its own
// required properties). The schema is not compiled: a caller that must be
// sure validates the result.
func SampleArgs(raw json.RawMessage) map[string]any {
	var s sampleSchema
	args := map[string]any{}
	if json.Unmarshal(raw, &s) != nil {
		return args
	}
	for _, name := range s.Required {
		sub, ok := s.Properties[name]
		if !ok {
			args[name] = "mcp-eval"
			continue
		}
		args[name] = sampleValue(sub, 0)
	}
	return args
}

func sampleValue(raw json.RawMessage, depth int) any {
	var p sampleSchema
	if json.Unmarshal(raw, &p) != nil || depth > 8 {
		return "mcp-eval"
	}
	for _, v := range [][]byte{p.Const, p.Default} {
		if len(v) > 0 {
			var x any
			if json.Unmarshal(v, &x) == nil {
				return x
			}
		}
	}
	if len(p.Enum) > 0 {
		var x any
		if json.Unmarshal(p.Enum[0], &x) == nil {
			return x
		}
	}
	switch TypeName(p.Type) {
	case "integer":
		if p.Minimum != nil {
			return int64(*p.Minimum)
		}
		return 1
	case "number":
		if p.Minimum != nil {
			return *p.Minimum
		}
		return 1
	case "boolean":
		return false
	case "null":
		return nil
	case "array":
		return []any{}
	case "object":
		obj := map[string]any{}
		for _, name := range p.Required {
			if sub, ok := p.Properties[name]; ok {
				obj[name] = sampleValue(sub, depth+1)
			}
		}
		return obj
	}
	switch p.Format {
	case "date":
		return "2026-01-01"
	case "date-time":
		return "2026-01-01T00:00:00Z"
	case "email":
		return "probe@example.com"
	case "uri", "url":
		return "https://example.com/"
	case "uuid":
		return "00000000-0000-4000-8000-000000000000"
	}
	v := "mcp-eval"
	if p.MinLength != nil && *p.MinLength > len(v) {
		v += strings.Repeat("x", *p.MinLength-len(v))
	}
	return v
}
