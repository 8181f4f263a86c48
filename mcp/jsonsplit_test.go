package mcp

import (
	"encoding/json"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
)

func TestMembers(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want map[string]string
		err  bool
	}{
		{`{}`, map[string]string{}, false},
		{` {"a" : 1 , "b":[1,{"c":"}"}]} `, map[string]string{"a": `1`, "b": `[1,{"c":"}"}]`}, false},
		{`{"a:b":"x,y","\u0069d":7}`, map[string]string{"a:b": `"x,y"`, "id": `7`}, false},
		{`{"k":1,"k":2}`, map[string]string{"k": `2`}, false},
		{`{"k":1`, nil, true},
		{`[1]`, nil, true},
		{"{}\f", nil, true},
		{"{\"a\xff\":1,\"a\xfe\":2}", map[string]string{"a\uFFFD": `2`}, false},
	} {
		got, err := Members([]byte(tt.in))
		if (err != nil) != tt.err {
			t.Errorf("%s: err %v", tt.in, err)
			continue
		}
		if err != nil {
			continue
		}
		gs := map[string]string{}
		for k, v := range got {
			gs[k] = string(v)
		}
		if diff := cmp.Diff(tt.want, gs); diff != "" {
			t.Errorf("%s: (-want +got)\n%s", tt.in, diff)
		}
	}
}

// FuzzMembers: on any valid object, Members agrees with encoding/json.
func FuzzMembers(f *testing.F) {
	f.Add([]byte(`{"a":"b,}","\"k\"":[1,{"x":2}],"a":null}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var want map[string]json.RawMessage
		if json.Unmarshal(b, &want) != nil || want == nil {
			return
		}
		got, err := Members(b)
		if err != nil {
			t.Fatalf("%q: %v", b, err)
		}
		if len(got) != len(want) {
			t.Fatalf("%q: %d members, want %d", b, len(got), len(want))
		}
		for k := range want {
			var a, c any
			if json.Unmarshal(got[k], &a) != nil || json.Unmarshal(want[k], &c) != nil || !cmp.Equal(a, c) {
				t.Fatalf("%q: member %q %s, want %s", b, k, got[k], want[k])
			}
		}
	})
}

// DecodeTool decodes as encoding/json does, with the schemas sharing the
// tool's bytes rather than copying them (a big server's list is held once).
func TestDecodeToolShares(t *testing.T) {
	raw := json.RawMessage(`{"name":"t","description":"d","inputSchema":{"type":"object","properties":{"q":{"type":"string"}}},"outputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}`)
	tool, ok := DecodeTool(raw)
	if !ok || tool.Name != "t" || !tool.ReadOnly() || string(tool.InputSchema) != `{"type":"object","properties":{"q":{"type":"string"}}}` {
		t.Fatalf("DecodeTool = %+v, %v", tool, ok)
	}
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(raw)))
	within := func(b []byte) bool {
		p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
		return len(b) > 0 && p >= lo && p < lo+uintptr(len(raw))
	}
	if !within(tool.InputSchema) || !within(tool.OutputSchema) {
		t.Error("the schemas are copies, not parts of Raw")
	}
	if _, ok := DecodeTool(json.RawMessage(`{"name":7}`)); ok {
		t.Error("a tool whose name is a number decoded")
	}
}

// x-mcp-header bindings are found when the key is spelled with escapes
// too (the schemas without either are not decoded at all).
func TestParamHeadersEscapedKey(t *testing.T) {
	for _, schema := range []string{
		`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}`,
		`{"type":"object","properties":{"region":{"type":"string","x\u002dmcp-header":"Region"}}}`,
	} {
		c := &Client{paramHeaders: &paramHeaderCache{m: map[string][]paramHeader{}}}
		c.learnParamHeaders([]Tool{{Name: "t", InputSchema: json.RawMessage(schema)}})
		if b := c.paramHeaders.m["t"]; len(b) != 1 || b[0].Header != "Region" {
			t.Errorf("%s: bindings %+v", schema, b)
		}
	}
	if mayBindHeaders([]byte(`{"type":"object"}`)) {
		t.Error("a schema without the key would be decoded")
	}
}

// FuzzDecodeTool: DecodeTool decodes what encoding/json decodes, field for
// field, and fails where it fails.
func FuzzDecodeTool(f *testing.F) {
	for _, s := range []string{
		`{"name":"t","description":"d","inputSchema":{"type":"object"},"outputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}`,
		`{"name":7}`, `{"name":null,"title":"x"}`, `{"Name":"a","name":"b"}`, `{"name":"a","name":"b"}`,
		`{"NAME":"a"}`, `{"ſchema":1,"name":"n"}`, `{"inputSchema":null}`, `{"annotations":null,"name":"a"}`,
		`{"annotations":{"readOnlyHint":"yes"}}`, `{"annotations":5}`, `{"n\u0061me":"a","x":[1,{"y":2}]}`,
		`{"name":"a\u00e9\ud800","description":"\"q\" \\ \n","inputSchema":[1]}`, `{"name":"bad` + "\xff" + `"}`,
		`[]`, `{}`, ` {"name":"a"} `, `{"name":"a"}x`, `{"annotations":{"readOnlyHint":true},"annotations":{"openWorldHint":false}}`,
		`{"inputSchema":{"a":1},"INPUTSCHEMA":{"b":2}}`, `{"title":"","description":""}`, `{"kelvin\u212a":1}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, ok := DecodeTool(raw)
		var want Tool
		wantOK := json.Unmarshal(raw, &want) == nil
		if ok != wantOK {
			t.Fatalf("%q: DecodeTool ok %v, encoding/json ok %v", raw, ok, wantOK)
		}
		if !ok {
			return
		}
		want.Raw = raw
		if !cmp.Equal(got, want) {
			t.Fatalf("%q:\nDecodeTool   %+v\nencoding/json %+v", raw, got, want)
		}
	})
}
