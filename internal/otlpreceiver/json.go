package otlpreceiver

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
)

// The JSON encoding of OTLP (https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding)
// is protobuf's JSON mapping with two departures: trace and span ids are
// hex strings, not base64, and enums are integers. Keys are lowerCamelCase.

type jsonRequest struct {
	ResourceSpans []struct {
		Resource struct {
			Attributes []jsonKeyValue `json:"attributes"`
		} `json:"resource"`
		ScopeSpans []struct {
			Spans []struct {
				TraceID      string         `json:"traceId"`
				SpanID       string         `json:"spanId"`
				ParentSpanID string         `json:"parentSpanId"`
				Name         string         `json:"name"`
				Kind         json.Number    `json:"kind"`
				Attributes   []jsonKeyValue `json:"attributes"`
			} `json:"spans"`
		} `json:"scopeSpans"`
	} `json:"resourceSpans"`
}

type jsonKeyValue struct {
	Key   string          `json:"key"`
	Value json.RawMessage `json:"value"`
}

type jsonAnyValue struct {
	StringValue *string      `json:"stringValue"`
	BoolValue   *bool        `json:"boolValue"`
	IntValue    json.Number  `json:"intValue"` // a string or a number
	DoubleValue *json.Number `json:"doubleValue"`
	ArrayValue  *struct {
		Values []json.RawMessage `json:"values"`
	} `json:"arrayValue"`
	KvlistValue *struct {
		Values []jsonKeyValue `json:"values"`
	} `json:"kvlistValue"`
	BytesValue *string `json:"bytesValue"`
}

func decodeJSON(b []byte) ([]Span, error) {
	var req jsonRequest
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&req); err != nil {
		return nil, err
	}
	var out []Span
	for _, rs := range req.ResourceSpans {
		service := ""
		for _, kv := range rs.Resource.Attributes {
			if kv.Key == "service.name" {
				v, err := jsonValue(kv.Value, 0)
				if err != nil {
					return nil, err
				}
				service = text(v)
			}
		}
		for _, ss := range rs.ScopeSpans {
			for _, js := range ss.Spans {
				s := Span{TraceID: strings.ToLower(js.TraceID), SpanID: strings.ToLower(js.SpanID),
					ParentSpanID: strings.ToLower(js.ParentSpanID), Name: js.Name, Service: service, Attrs: map[string]string{}}
				if js.Kind != "" {
					k, err := js.Kind.Int64()
					if err != nil {
						return nil, fmt.Errorf("span %q: kind %s is not an integer", js.Name, js.Kind)
					}
					s.Kind = int(k)
				}
				if !isHex(s.TraceID, 32) || !isHex(s.SpanID, 16) || (s.ParentSpanID != "" && !isHex(s.ParentSpanID, 16)) {
					return nil, fmt.Errorf("span %q: traceId %q, spanId %q, parentSpanId %q: want 32, 16 and 16 hex digits", js.Name, js.TraceID, js.SpanID, js.ParentSpanID)
				}
				for _, kv := range js.Attributes {
					v, err := jsonValue(kv.Value, 0)
					if err != nil {
						return nil, fmt.Errorf("span %q: attribute %q: %v", js.Name, kv.Key, err)
					}
					if len(s.Attrs) < maxAttrs {
						s.Attrs[kv.Key] = text(v)
					}
				}
				out = append(out, s)
			}
		}
	}
	return out, nil
}

// jsonValue decodes an AnyValue into what anyValue returns.
func jsonValue(raw json.RawMessage, depth int) (any, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("values nested over %d deep", maxDepth)
	}
	if len(raw) == 0 {
		return nil, nil
	}
	var v jsonAnyValue
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	switch {
	case v.StringValue != nil:
		return *v.StringValue, nil
	case v.BoolValue != nil:
		return *v.BoolValue, nil
	case v.IntValue != "":
		n, err := v.IntValue.Int64()
		if err != nil {
			return nil, fmt.Errorf("intValue %s: %v", v.IntValue, err)
		}
		return n, nil
	case v.DoubleValue != nil:
		return v.DoubleValue.Float64()
	case v.ArrayValue != nil:
		arr := []any{}
		for _, x := range v.ArrayValue.Values {
			y, err := jsonValue(x, depth+1)
			if err != nil {
				return nil, err
			}
			arr = append(arr, y)
		}
		return arr, nil
	case v.KvlistValue != nil:
		m := map[string]any{}
		for _, kv := range v.KvlistValue.Values {
			y, err := jsonValue(kv.Value, depth+1)
			if err != nil {
				return nil, err
			}
			m[kv.Key] = y
		}
		return m, nil
	case v.BytesValue != nil:
		return base64.StdEncoding.DecodeString(*v.BytesValue)
	}
	return nil, nil
}

func isHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}
