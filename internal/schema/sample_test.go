package schema

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSampleArgs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, schema, want string
	}{
		{"no required", `{"type":"object","properties":{"a":{"type":"string"}}}`, `{}`},
		{"const default enum", `{"required":["c","d","e"],"properties":{"c":{"const":3},"d":{"default":"x"},"e":{"enum":["p","q"]}}}`, `{"c":3,"d":"x","e":"p"}`},
		{"types", `{"required":["i","n","b","a","z"],"properties":{"i":{"type":"integer","minimum":4},"n":{"type":["null","number"]},"b":{"type":"boolean"},"a":{"type":"array"},"z":{"type":"null"}}}`,
			`{"a":[],"b":false,"i":4,"n":1,"z":null}`},
		{"strings", `{"required":["d","s","u"],"properties":{"d":{"type":"string","format":"date"},"s":{"type":"string","minLength":10},"u":{"type":"string","format":"uuid"}}}`,
			`{"d":"2026-01-01","s":"mcp-evalxx","u":"00000000-0000-4000-8000-000000000000"}`},
		{"nested object", `{"required":["o","m"],"properties":{"o":{"type":"object","required":["k"],"properties":{"k":{"type":"integer"}}}}}`, `{"m":"mcp-eval","o":{"k":1}}`},
		{"not a schema", `[1]`, `{}`},
	}
	for _, tt := range tests {
		got, err := json.Marshal(SampleArgs(json.RawMessage(tt.schema)))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, string(got)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}
