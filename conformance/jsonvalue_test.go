package conformance

import (
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/mcp-eval/mcp-eval/internal/mcptest"
)

// undocumentedParamsDecoded is undocumentedParams as it was written first,
// with encoding/json: the reference the in-place reading is held to.
func undocumentedParamsDecoded(raw json.RawMessage) []string {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Defs       map[string]json.RawMessage `json:"$defs"`
	}
	if json.Unmarshal(raw, &s) != nil {
		return nil
	}
	var out []string
	for name, p := range s.Properties {
		var prop struct {
			Description string `json:"description"`
			Title       string `json:"title"`
			Ref         string `json:"$ref"`
		}
		_ = json.Unmarshal(p, &prop)
		if strings.TrimSpace(prop.Description) != "" {
			continue
		}
		if def, ok := strings.CutPrefix(prop.Ref, "#/$defs/"); ok {
			var d struct {
				Description string `json:"description"`
			}
			if json.Unmarshal(s.Defs[def], &d) == nil && strings.TrimSpace(d.Description) != "" {
				continue
			}
		}
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

var fieldCases = []string{
	``, `null`, `[]`, `"x"`, `5`, `true`, `{}`, `{"type":"object"}`, `{"TYPE":"object"}`, `{"type":"object","Type":"string"}`,
	`{"type":null}`, `{"ſype":1,"type":2}`, `{"properties":{"a":{"description":"A"},"b":{},"c":{"$ref":"#/$defs/c"}},"$defs":{"c":{"description":"C"}}}`,
	`{"properties":{"a":{}},"Properties":{"b":{}}}`, `{"properties":{"a":{}},"properties":null,"properties":{"b":{}}}`,
	`{"properties":{"a":{}},"properties":[]}`, `{"properties":"x"}`, `{"$defs":5,"properties":{"a":{}}}`, `{"$DEFS":{"c":{"description":"C"}},"properties":{"c":{"$ref":"#/$defs/c"}}}`,
	`{"properties":{"a":{"description":5},"b":{"description":"x","description":7},"c":{"description":7,"description":"x"},"d":{"DESCRIPTION":"x"}}}`,
	`{"properties":{"a":{"description":null},"b":{"description":"x","description":null},"c":{"description":"  "},"d":true,"e":[1]}}`,
	`{"properties":{"a":{"$ref":"#/$defs/x"},"b":{"$ref":"#/$defs/y"},"c":{"$ref":"#/$defs/z"},"d":{"$ref":5},"e":{"$REF":"#/$defs/x"}},
	  "$defs":{"x":{"description":"X"},"y":{"description":5,"description":"Y"},"z":null}}`,
	`{"properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{"x":{"description":"X"},"x":{"title":"T"}}}`,
	`{"properties":{"\u0061":{},"a\"b":{"description":"d"},"` + "\xff" + `":{}}}`,
	`{"properties":{"a":{"descr\u0131ption":"x"},"b":{"deſcription":"y"},"c":{"description":"\u00e9"}}}`,
}

// TestFieldsAsDecoded: the lints that read a schema's members in place say
// what decoding it with encoding/json said, on the cases where the two
// could part (names in other cases, twice, null, values of other types)
// and on a big server's catalogue.
func TestFieldsAsDecoded(t *testing.T) {
	cases := append([]string{}, fieldCases...)
	for _, raw := range mcptest.BigToolsJSON(50) {
		var tool struct {
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		if err := json.Unmarshal(raw, &tool); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, string(tool.InputSchema))
	}
	for _, c := range cases {
		fieldsAgree(t, []byte(c))
	}
}

// FuzzFieldsAsDecoded: as TestFieldsAsDecoded, on any bytes.
func FuzzFieldsAsDecoded(f *testing.F) {
	for _, c := range fieldCases {
		f.Add([]byte(c))
	}
	f.Fuzz(fieldsAgree)
}

func fieldsAgree(t *testing.T, raw []byte) {
	if got, want := undocumentedParams(raw), undocumentedParamsDecoded(raw); !reflect.DeepEqual(got, want) {
		t.Fatalf("undocumentedParams(%s) = %q, encoding/json says %q", raw, got, want)
	}
	var root struct {
		Type json.RawMessage `json:"type"`
	}
	wantErr := json.Unmarshal(raw, &root)
	typ, ok := rawField(raw, "type")
	if ok != (wantErr == nil) || ok && string(typ) != string(root.Type) {
		t.Fatalf("rawField(%s, type) = %s, %v; encoding/json says %s, %v", raw, typ, ok, root.Type, wantErr)
	}
}

// BenchmarkSchemaLints: the two lints that read every inputSchema of a big
// server's listing, 1 000 tools, in place and with encoding/json.
func BenchmarkSchemaLints(b *testing.B) {
	var schemas []json.RawMessage
	for _, raw := range mcptest.BigToolsJSON(1000) {
		var tool struct {
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		if err := json.Unmarshal(raw, &tool); err != nil {
			b.Fatal(err)
		}
		schemas = append(schemas, tool.InputSchema)
	}
	b.Run("in-place", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, s := range schemas {
				undocumentedParams(s)
				rawField(s, "type")
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, s := range schemas {
				undocumentedParamsDecoded(s)
				var root struct {
					Type json.RawMessage `json:"type"`
				}
				_ = json.Unmarshal(s, &root)
			}
		}
	})
}
