package otlp

import (
	"encoding/binary"
	"math"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// This file encodes spans as an OTLP ExportTraceServiceRequest in the
// protobuf binary format (opentelemetry-proto, trace/v1 and common/v1).
// The official exporter would do it with generated code, but its module
// links gRPC and grpc-gateway into the binary even when only HTTP is used
// (about 10 MB of a stripped static build); the few messages a span needs
// are written here with the standard library, and the tests decode them
// with the official generated types.

// Wire types.
const (
	wireVarint  = 0
	wireFixed64 = 1
	wireBytes   = 2
	wireFixed32 = 5
)

func appendTag(b []byte, field int, wt int) []byte {
	return binary.AppendUvarint(b, uint64(field)<<3|uint64(wt))
}

func appendBytes(b []byte, field int, v []byte) []byte {
	b = appendTag(b, field, wireBytes)
	b = binary.AppendUvarint(b, uint64(len(v)))
	return append(b, v...)
}

func appendString(b []byte, field int, s string) []byte {
	if s == "" {
		return b
	}
	b = appendTag(b, field, wireBytes)
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendVarint(b []byte, field int, v uint64) []byte {
	if v == 0 {
		return b
	}
	return binary.AppendUvarint(appendTag(b, field, wireVarint), v)
}

func appendFixed64(b []byte, field int, v uint64) []byte {
	return binary.LittleEndian.AppendUint64(appendTag(b, field, wireFixed64), v)
}

func appendFixed32(b []byte, field int, v uint32) []byte {
	return binary.LittleEndian.AppendUint32(appendTag(b, field, wireFixed32), v)
}

// encodeRequest returns ExportTraceServiceRequest{resource_spans = 1}.
// Spans are grouped by resource and instrumentation scope, as OTLP wants.
func encodeRequest(spans []sdktrace.ReadOnlySpan) []byte {
	type scopeKey struct{ res, name, version string }
	var order []scopeKey
	groups := map[scopeKey][]sdktrace.ReadOnlySpan{}
	for _, s := range spans {
		k := scopeKey{s.Resource().Encoded(attribute.DefaultEncoder()), s.InstrumentationScope().Name, s.InstrumentationScope().Version}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], s)
	}
	var req []byte
	for _, k := range order {
		g := groups[k]
		// ResourceSpans{resource = 1, scope_spans = 2, schema_url = 3}
		var rs []byte
		var res []byte // Resource{attributes = 1}
		for _, kv := range g[0].Resource().Attributes() {
			res = appendBytes(res, 1, encodeKeyValue(kv))
		}
		rs = appendBytes(rs, 1, res)
		// ScopeSpans{scope = 1, spans = 2, schema_url = 3}
		var ss []byte
		var scope []byte // InstrumentationScope{name = 1, version = 2}
		scope = appendString(scope, 1, k.name)
		scope = appendString(scope, 2, k.version)
		ss = appendBytes(ss, 1, scope)
		for _, s := range g {
			ss = appendBytes(ss, 2, encodeSpan(s))
		}
		ss = appendString(ss, 3, g[0].InstrumentationScope().SchemaURL)
		rs = appendBytes(rs, 2, ss)
		rs = appendString(rs, 3, g[0].Resource().SchemaURL())
		req = appendBytes(req, 1, rs)
	}
	return req
}

// encodeSpan returns a trace.v1.Span.
func encodeSpan(s sdktrace.ReadOnlySpan) []byte {
	sc := s.SpanContext()
	tid, sid := sc.TraceID(), sc.SpanID()
	var b []byte
	b = appendBytes(b, 1, tid[:])
	b = appendBytes(b, 2, sid[:])
	b = appendString(b, 3, sc.TraceState().String())
	if p := s.Parent(); p.SpanID().IsValid() {
		psid := p.SpanID()
		b = appendBytes(b, 4, psid[:])
	}
	b = appendString(b, 5, s.Name())
	// trace.SpanKind and the OTLP enum share their numbers (1 internal …
	// 5 consumer).
	b = appendVarint(b, 6, uint64(s.SpanKind()))
	b = appendFixed64(b, 7, uint64(s.StartTime().UnixNano()))
	b = appendFixed64(b, 8, uint64(s.EndTime().UnixNano()))
	for _, kv := range s.Attributes() {
		b = appendBytes(b, 9, encodeKeyValue(kv))
	}
	b = appendVarint(b, 10, uint64(s.DroppedAttributes()))
	for _, ev := range s.Events() {
		// Event{time_unix_nano = 1, name = 2, attributes = 3}
		var e []byte
		e = appendFixed64(e, 1, uint64(ev.Time.UnixNano()))
		e = appendString(e, 2, ev.Name)
		for _, kv := range ev.Attributes {
			e = appendBytes(e, 3, encodeKeyValue(kv))
		}
		b = appendBytes(b, 11, e)
	}
	b = appendVarint(b, 12, uint64(s.DroppedEvents()))
	b = appendVarint(b, 14, uint64(s.DroppedLinks()))
	// Status{message = 2, code = 3}; OTLP numbers OK 1 and ERROR 2, the
	// reverse of otel/codes.
	var st []byte
	switch s.Status().Code {
	case codes.Ok:
		st = appendVarint(st, 3, 1)
	case codes.Error:
		st = appendString(st, 2, s.Status().Description)
		st = appendVarint(st, 3, 2)
	}
	if len(st) > 0 {
		b = appendBytes(b, 15, st)
	}
	b = appendFixed32(b, 16, uint32(sc.TraceFlags()))
	return b
}

// encodeKeyValue returns a common.v1.KeyValue{key = 1, value = 2}.
func encodeKeyValue(kv attribute.KeyValue) []byte {
	var b []byte
	b = appendString(b, 1, string(kv.Key))
	return appendBytes(b, 2, encodeValue(kv.Value))
}

// encodeValue returns a common.v1.AnyValue: string 1, bool 2, int64 3,
// double 4, array 5 (ArrayValue{values = 1}).
func encodeValue(v attribute.Value) []byte {
	var b []byte
	switch v.Type() {
	case attribute.STRING:
		s := v.AsString()
		b = appendTag(b, 1, wireBytes)
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	case attribute.BOOL:
		var x uint64
		if v.AsBool() {
			x = 1
		}
		b = binary.AppendUvarint(appendTag(b, 2, wireVarint), x)
	case attribute.INT64:
		b = binary.AppendUvarint(appendTag(b, 3, wireVarint), uint64(v.AsInt64()))
	case attribute.FLOAT64:
		b = appendFixed64(b, 4, math.Float64bits(v.AsFloat64()))
	case attribute.STRINGSLICE, attribute.BOOLSLICE, attribute.INT64SLICE, attribute.FLOAT64SLICE:
		var arr []byte
		for _, x := range sliceValues(v) {
			arr = appendBytes(arr, 1, encodeValue(x))
		}
		b = appendBytes(b, 5, arr)
	default:
		// An invalid value: an empty AnyValue, as the official exporter
		// sends.
	}
	return b
}

func sliceValues(v attribute.Value) []attribute.Value {
	switch v.Type() {
	case attribute.STRINGSLICE:
		return values(v.AsStringSlice(), attribute.StringValue)
	case attribute.BOOLSLICE:
		return values(v.AsBoolSlice(), attribute.BoolValue)
	case attribute.INT64SLICE:
		return values(v.AsInt64Slice(), attribute.Int64Value)
	case attribute.FLOAT64SLICE:
		return values(v.AsFloat64Slice(), attribute.Float64Value)
	}
	return nil
}

// values wraps each of xs as an attribute.Value.
func values[T any](xs []T, value func(T) attribute.Value) []attribute.Value {
	var out []attribute.Value
	for _, x := range xs {
		out = append(out, value(x))
	}
	return out
}
