package surface

import (
	"encoding/json"
	"testing"
)

func raws(ss ...string) []json.RawMessage {
	out := make([]json.RawMessage, len(ss))
	for i, s := range ss {
		out[i] = json.RawMessage(s)
	}
	return out
}

func TestComputeIgnoresOrderSpaceAndVolatileMembers(t *testing.T) {
	a, _ := Compute(raws(
		`{"name":"b","description":"B tool","inputSchema":{"type":"object"}}`,
		`{"name":"a","description":"A tool","inputSchema":{"type":"object","properties":{"x":{"type":"string"}}},"_meta":{"k":1}}`,
	), nil, nil)
	b, _ := Compute(raws(
		`{"inputSchema":{"properties":{"x":{"type":"string"}},"type":"object"},"description":"A tool","name":"a"}`,
		` {"name":"b", "inputSchema":{"type":"object"}, "description":"B tool"}`,
	), nil, nil)
	if a != b {
		t.Fatalf("fingerprints differ for the same surface:\n%s\n%s", a, b)
	}
}

func TestComputeSeesChanges(t *testing.T) {
	base, bs := Compute(raws(`{"name":"a","description":"A tool","inputSchema":{"type":"object"}}`), nil, nil)
	tests := map[string][]json.RawMessage{
		"description": raws(`{"name":"a","description":"A tool!","inputSchema":{"type":"object"}}`),
		"schema":      raws(`{"name":"a","description":"A tool","inputSchema":{"type":"object","required":["x"]}}`),
		"new tool":    raws(`{"name":"a","description":"A tool","inputSchema":{"type":"object"}}`, `{"name":"c","inputSchema":{"type":"object"}}`),
		"number form": raws(`{"name":"a","description":"A tool","inputSchema":{"type":"object","maximum":1.0}}`),
	}
	for name, tools := range tests {
		t.Run(name, func(t *testing.T) {
			got, s := Compute(tools, nil, nil)
			if got == base {
				t.Fatalf("fingerprint unchanged after a %s change", name)
			}
			if name == "description" && s.Tools[0].DescriptionSHA256 == bs.Tools[0].DescriptionSHA256 {
				t.Errorf("per-tool description hash unchanged")
			}
			if name == "schema" && s.Tools[0].InputSchemaSHA256 == bs.Tools[0].InputSchemaSHA256 {
				t.Errorf("per-tool schema hash unchanged")
			}
		})
	}
}

func TestComputePromptsAndTemplatesCount(t *testing.T) {
	a, _ := Compute(nil, raws(`{"name":"p"}`), nil)
	b, _ := Compute(nil, nil, raws(`{"name":"p"}`))
	if a == b {
		t.Fatal("a prompt and a resource template of the same name gave the same fingerprint")
	}
}
