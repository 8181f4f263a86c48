package mcp

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

func TestParseMessage(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		wantErr bool
		check   func(t *testing.T, m *Message)
	}{
		{name: "result", in: `{"jsonrpc":"2.0","id":7,"result":{"a":1}}`, check: func(t *testing.T, m *Message) {
			if !m.IsResponse() || string(m.ID) != "7" || string(m.Result) != `{"a":1}` {
				t.Errorf("got %+v", m)
			}
		}},
		{name: "null id error", in: `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse"}}`, check: func(t *testing.T, m *Message) {
			if string(m.ID) != "null" || m.Error.Code != -32700 {
				t.Errorf("got id %s err %+v", m.ID, m.Error)
			}
		}},
		{name: "absent id", in: `{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`, check: func(t *testing.T, m *Message) {
			if m.ID != nil || !m.IsNotification() {
				t.Errorf("got id %q", m.ID)
			}
		}},
		{name: "case-sensitive members", in: `{"jsonrpc":"2.0","ID":7,"Result":{}}`, check: func(t *testing.T, m *Message) {
			if m.ID != nil || m.IsResponse() {
				t.Errorf("ID/Result matched case-insensitively: %+v", m)
			}
		}},
		{name: "string id kept verbatim", in: `{"jsonrpc":"2.0","id":"7","result":{}}`, check: func(t *testing.T, m *Message) {
			if string(m.ID) != `"7"` || idKey(m.ID) != "7" {
				t.Errorf("id %s key %s", m.ID, idKey(m.ID))
			}
		}},
		{name: "array", in: `[{"jsonrpc":"2.0","id":1,"result":{}}]`, wantErr: true},
		{name: "not json", in: `hello`, wantErr: true},
		{name: "object id", in: `{"jsonrpc":"2.0","id":{},"result":{}}`, wantErr: true},
		{name: "fractional code", in: `{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"x"}}`, wantErr: true},
		{name: "error not object", in: `{"jsonrpc":"2.0","id":1,"error":"boom"}`, wantErr: true},
		{name: "truncated", in: `{"jsonrpc":"2.0","id":1,"result":`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := ParseMessage([]byte(tt.in))
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if err == nil && tt.check != nil {
				tt.check(t, m)
			}
		})
	}
}

func FuzzParseMessage(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":"a","error":{"code":-1,"message":"m","data":[1]}}`,
		`{"method":"x","params":null}`, `{}`, `[]`, `{"id":1e400}`, `{"error":{"code":99999999999999999999}}`,
		`{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"a"}],"nextCursor":"c","ttlMs":0}}`,
		` { "result" : { "a" : 1 , "a" : { "b" : 2 } } , "res\u0075lt" : { "c" : [ ] } } `,
		`{"result":[{"a":1}]}`, `{"result":"x","result":{"y":1}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ParseMessage(b)
		if err == nil && m == nil {
			t.Fatal("nil message without error")
		}
		if err == nil && m.ID != nil && !validID(m.ID) {
			t.Fatalf("accepted invalid id %q", m.ID)
		}
		if err != nil {
			return
		}
		// The members the parse found are the members splitting finds,
		// and so are the result's (ResultMembers reads what the parse found).
		want, werr := splitObject(bytes.TrimSpace(b))
		if werr != nil || m.Result == nil && want["result"] != nil || m.Result != nil && !bytes.Equal(m.Result, want["result"]) {
			t.Fatalf("%q: result %q, split %q (%v)", b, m.Result, want["result"], werr)
		}
		got, gerr := m.ResultMembers()
		split := bytes.TrimSpace(m.Result)
		var wantRes map[string]json.RawMessage
		var wrerr error = errNotObject
		if len(split) >= 2 && split[0] == '{' && split[len(split)-1] == '}' {
			wantRes, wrerr = splitObject(split)
		}
		if (gerr == nil) != (wrerr == nil) || !reflect.DeepEqual(got, wantRes) {
			t.Fatalf("%q: ResultMembers %q (%v), split %q (%v)", b, got, gerr, wantRes, wrerr)
		}
	})
}

func TestRequestMarshal(t *testing.T) {
	b, err := json.Marshal(&Request{ID: int64(3), Method: "tools/list", Params: map[string]any{"cursor": "c"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":"c"}}`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
	b, _ = json.Marshal(&Request{Method: "notifications/cancelled"})
	if bytes.Contains(b, []byte(`"id"`)) || bytes.Contains(b, []byte(`"params"`)) {
		t.Errorf("notification without params encoded as %s", b)
	}
}

// Client.encode writes a request with MarshalJSON alone: the bytes are
// json.Marshal's, whatever the params hold (HTML-significant runes, U+2028,
// invalid UTF-8, nesting, numbers, raw JSON).
func TestRequestMarshalJSONAsMarshal(t *testing.T) {
	for _, r := range []*Request{
		{Method: "ping"},
		{ID: int64(7), Method: "tools/call", Params: map[string]any{"name": "a<b>&c", "arguments": map[string]any{"s": "line\u2028sep \u2029 \xff\xfe", "n": 1.5e300, "z": []any{nil, true, json.Number("12")}}}},
		{ID: "id-\"x\"", Method: "resources/read", Params: map[string]any{"uri": "file:///tmp/<x>", "_meta": map[string]any{"raw": json.RawMessage(`{ "a" : [1, 2] }`)}}},
		{ID: json.RawMessage(`"r"`), Method: "x", Params: map[string]any{}},
	} {
		got, err := r.MarshalJSON()
		want, werr := json.Marshal(r)
		if (err == nil) != (werr == nil) || !bytes.Equal(got, want) {
			t.Errorf("MarshalJSON = %s (%v), json.Marshal = %s (%v)", got, err, want, werr)
		}
	}
}

func TestHeaderValueEncoding(t *testing.T) {
	tests := []struct{ in, want string }{
		{"get_weather", "get_weather"},
		{"file:///a b.txt", "file:///a b.txt"},
		{"Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="},
		{" padded", "=?base64?IHBhZGRlZA==?="},
		{"=?base64?abc?=", "=?base64?PT9iYXNlNjQ/YWJjPz0=?="},
		{"tab\there", "=?base64?dGFiCWhlcmU=?="},
	}
	for _, tt := range tests {
		got := EncodeHeaderValue(tt.in)
		if got != tt.want {
			t.Errorf("EncodeHeaderValue(%q) = %q, want %q", tt.in, got, tt.want)
		}
		back, ok := DecodeHeaderValue(got)
		if !ok || back != tt.in {
			t.Errorf("DecodeHeaderValue(%q) = %q, %v; want %q", got, back, ok, tt.in)
		}
	}
	if _, ok := DecodeHeaderValue("=?base64?!!!?="); ok {
		t.Error("invalid base64 payload decoded without error")
	}
}
