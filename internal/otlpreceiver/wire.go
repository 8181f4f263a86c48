package otlpreceiver

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
)

// This file decodes an ExportTraceServiceRequest in the protobuf binary
// encoding (opentelemetry-proto: collector/trace/v1, trace/v1, common/v1,
// resource/v1), reading the fields a Span holds and skipping the rest.
// The tests encode requests with the official generated types.

// Wire types of the protobuf encoding.
const (
	wireVarint  = 0
	wireFixed64 = 1
	wireBytes   = 2
	wireFixed32 = 5
)

// maxDepth bounds the nesting of AnyValue arrays and maps.
const maxDepth = 16

var errTruncated = errors.New("truncated protobuf message")

// field is one field of a message: its number, wire type, and value (the
// varint or fixed value in n, the bytes of a length-delimited one in b).
type field struct {
	num  int
	wt   int
	n    uint64
	b    []byte
	next []byte
}

// nextField reads the field at the start of b.
func nextField(b []byte) (field, error) {
	tag, k := binary.Uvarint(b)
	if k <= 0 {
		return field{}, errTruncated
	}
	b = b[k:]
	f := field{num: int(tag >> 3), wt: int(tag & 7)}
	if f.num <= 0 {
		return field{}, fmt.Errorf("field number %d", f.num)
	}
	switch f.wt {
	case wireVarint:
		v, k := binary.Uvarint(b)
		if k <= 0 {
			return field{}, errTruncated
		}
		f.n, f.next = v, b[k:]
	case wireFixed64:
		if len(b) < 8 {
			return field{}, errTruncated
		}
		f.n, f.next = binary.LittleEndian.Uint64(b), b[8:]
	case wireFixed32:
		if len(b) < 4 {
			return field{}, errTruncated
		}
		f.n, f.next = uint64(binary.LittleEndian.Uint32(b)), b[4:]
	case wireBytes:
		l, k := binary.Uvarint(b)
		if k <= 0 || l > uint64(len(b)-k) {
			return field{}, errTruncated
		}
		f.b, f.next = b[k:k+int(l)], b[k+int(l):]
	default:
		// Groups (3, 4) are not used by OTLP.
		return field{}, fmt.Errorf("field %d: wire type %d", f.num, f.wt)
	}
	return f, nil
}

// fields calls fn with each field of message b.
func fields(b []byte, fn func(f field) error) error {
	for len(b) > 0 {
		f, err := nextField(b)
		if err != nil {
			return err
		}
		if err := fn(f); err != nil {
			return err
		}
		b = f.next
	}
	return nil
}

// decodeProto decodes an ExportTraceServiceRequest (field 1: repeated
// ResourceSpans).
func decodeProto(b []byte) ([]Span, error) {
	var out []Span
	err := fields(b, func(f field) error {
		if f.num != 1 || f.wt != wireBytes {
			return nil
		}
		return resourceSpans(f.b, &out)
	})
	return out, err
}

// resourceSpans: 1 resource, 2 repeated ScopeSpans.
func resourceSpans(b []byte, out *[]Span) error {
	service := ""
	var scopes [][]byte
	err := fields(b, func(f field) error {
		switch {
		case f.num == 1 && f.wt == wireBytes: // Resource: 1 repeated KeyValue
			return fields(f.b, func(g field) error {
				if g.num != 1 || g.wt != wireBytes {
					return nil
				}
				k, v, err := keyValue(g.b, 0)
				if err == nil && k == "service.name" {
					service = v
				}
				return err
			})
		case f.num == 2 && f.wt == wireBytes:
			scopes = append(scopes, f.b)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, sc := range scopes {
		// ScopeSpans: 2 repeated Span.
		err := fields(sc, func(f field) error {
			if f.num != 2 || f.wt != wireBytes {
				return nil
			}
			s, err := span(f.b)
			if err != nil {
				return err
			}
			s.Service = service
			*out = append(*out, s)
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// span: 1 trace_id, 2 span_id, 4 parent_span_id, 5 name, 6 kind,
// 9 repeated attributes.
func span(b []byte) (Span, error) {
	s := Span{Attrs: map[string]string{}}
	err := fields(b, func(f field) error {
		switch {
		case f.num == 1 && f.wt == wireBytes:
			s.TraceID = hex.EncodeToString(f.b)
		case f.num == 2 && f.wt == wireBytes:
			s.SpanID = hex.EncodeToString(f.b)
		case f.num == 4 && f.wt == wireBytes:
			s.ParentSpanID = hex.EncodeToString(f.b)
		case f.num == 5 && f.wt == wireBytes:
			s.Name = string(f.b)
		case f.num == 6 && f.wt == wireVarint:
			s.Kind = int(int32(f.n))
		case f.num == 9 && f.wt == wireBytes:
			k, v, err := keyValue(f.b, 0)
			if err != nil {
				return err
			}
			if len(s.Attrs) < maxAttrs {
				s.Attrs[k] = v
			}
		}
		return nil
	})
	if err != nil {
		return Span{}, err
	}
	if len(s.TraceID) != 32 || len(s.SpanID) != 16 {
		return Span{}, fmt.Errorf("span %q: trace_id of %d bytes and span_id of %d, want 16 and 8", s.Name, len(s.TraceID)/2, len(s.SpanID)/2)
	}
	if s.ParentSpanID != "" && len(s.ParentSpanID) != 16 {
		return Span{}, fmt.Errorf("span %q: parent_span_id of %d bytes, want 8", s.Name, len(s.ParentSpanID)/2)
	}
	return s, nil
}

// keyValue: 1 key, 2 AnyValue; the value as text.
func keyValue(b []byte, depth int) (key, value string, err error) {
	err = fields(b, func(f field) error {
		if f.wt != wireBytes {
			return nil
		}
		switch f.num {
		case 1:
			key = string(f.b)
		case 2:
			v, err := anyValue(f.b, depth+1)
			if err != nil {
				return err
			}
			value = text(v)
		}
		return nil
	})
	return key, value, err
}

// anyValue decodes an AnyValue: 1 string, 2 bool, 3 int, 4 double,
// 5 ArrayValue (1 repeated AnyValue), 6 KeyValueList (1 repeated
// KeyValue), 7 bytes.
func anyValue(b []byte, depth int) (any, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("attribute values nested over %d deep", maxDepth)
	}
	var v any
	err := fields(b, func(f field) error {
		switch {
		case f.num == 1 && f.wt == wireBytes:
			v = string(f.b)
		case f.num == 2 && f.wt == wireVarint:
			v = f.n != 0
		case f.num == 3 && f.wt == wireVarint:
			v = int64(f.n)
		case f.num == 4 && f.wt == wireFixed64:
			v = math.Float64frombits(f.n)
		case f.num == 5 && f.wt == wireBytes:
			arr := []any{}
			err := fields(f.b, func(g field) error {
				if g.num != 1 || g.wt != wireBytes {
					return nil
				}
				x, err := anyValue(g.b, depth+1)
				arr = append(arr, x)
				return err
			})
			v = arr
			return err
		case f.num == 6 && f.wt == wireBytes:
			m := map[string]any{}
			err := fields(f.b, func(g field) error {
				if g.num != 1 || g.wt != wireBytes {
					return nil
				}
				var k string
				var x any
				err := fields(g.b, func(h field) error {
					if h.wt != wireBytes {
						return nil
					}
					var err error
					switch h.num {
					case 1:
						k = string(h.b)
					case 2:
						x, err = anyValue(h.b, depth+1)
					}
					return err
				})
				m[k] = x
				return err
			})
			v = m
			return err
		case f.num == 7 && f.wt == wireBytes:
			v = append([]byte(nil), f.b...)
		}
		return nil
	})
	return v, err
}

// text writes an attribute value as Span.Attrs holds it.
func text(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case []byte:
		return hex.EncodeToString(x)
	}
	b, _ := json.Marshal(v)
	return string(b)
}
