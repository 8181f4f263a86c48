package surface

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/mcp-eval/mcp-eval/internal/canon"
	"github.com/mcp-eval/mcp-eval/internal/mcptest"
	"github.com/mcp-eval/mcp-eval/report"
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

// TestFingerprintIsCanonicalJSONOfTheWhole: the streamed fingerprint is
// the SHA-256 of the canonical JSON of the whole surface, as documented
// (fingerprints in existing baselines must not change).
func TestFingerprintIsCanonicalJSONOfTheWhole(t *testing.T) {
	tools := []json.RawMessage{
		json.RawMessage(`{"name":"b","description":"<b> & ü","inputSchema":{"type":"object","properties":{"x":{"type":"integer"}}},"_meta":{"k":1}}`),
		json.RawMessage(`{"name":"a","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true},"ttlMs":5}`),
	}
	prompts := []json.RawMessage{json.RawMessage(`{"name":"p","arguments":[{"name":"q","required":true}]}`)}
	var decoded []any
	for _, r := range []json.RawMessage{tools[1], tools[0]} { // sorted by name
		var v map[string]any
		dec := json.NewDecoder(bytes.NewReader(r))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		strip(v)
		decoded = append(decoded, v)
	}
	var p map[string]any
	_ = json.Unmarshal(prompts[0], &p)
	whole := map[string]any{"tools": decoded, "prompts": []any{p}, "resourceTemplates": []any{}}
	want := hash(canon.Value(whole)).String()
	got, _ := Compute(tools, prompts, nil)
	if got != want {
		t.Errorf("fingerprint %s, want %s (canonical %s)", got, want, canon.Value(whole))
	}
}

// The fingerprint does not depend on whether the canonical forms were
// kept or made again (keepCanon): a big list is hashed the same.
func TestFingerprintPastKeepCanon(t *testing.T) {
	var tools []json.RawMessage
	for i := range 300 {
		tools = append(tools, json.RawMessage(fmt.Sprintf(`{"name":"t%03d","description":"tool %d","inputSchema":{"type":"object","properties":{"q":{"type":"string"}}},"_meta":{"x":1}}`, 299-i, i)))
	}
	want, wantS := Compute(tools, nil, nil)
	old := keepCanon
	keepCanon = 1000 // a handful kept, the rest made again
	defer func() { keepCanon = old }()
	got, gotS := Compute(tools, nil, nil)
	if got != want || len(gotS.Tools) != len(wantS.Tools) || !reflect.DeepEqual(gotS.Tools[0], wantS.Tools[0]) {
		t.Errorf("fingerprint %s past the bound, %s within it", got, want)
	}
}

// TestFingerprintPinned: the fingerprint of a surface does not change from
// one mcp-eval version to the next (a new fingerprint against the last
// green run's reads as the server's change). The values were written by
// the decode-strip-encode implementation that canon.Stripped replaced;
// the items cover escapes, U+2028, invalid UTF-8, duplicate names,
// volatile members at depth, number spellings and items that are not one
// object.
func TestFingerprintPinned(t *testing.T) {
	items := raws(
		`{"name":"b","description":"B tool","inputSchema":{"type":"object"}}`,
		`{"name":"a","description":"A \u00e9 tool <x> & \u2028","_meta":{"k":1},"inputSchema":{"type":"object","properties":{"_meta":{"type":"string"},"q":{"type":"string","default":"\"\\\/"}},"ttlMs":5}}`,
		`{"name":"c","name":"d","description":7,"inputSchema":{"maximum":1.50,"minimum":-0,"x":1E+2,"k":[true,null,{}]}}`,
		"{\"name\":\"e\",\"description\":\"bad \xff utf-8\",\"annotations\":{\"cacheScope\":\"x\",\"readOnlyHint\":true}}",
		`{"name":"f"} trailing`, `[1]`, `null`, `{"name":"g","description":"\ud800 lone"}`,
	)
	fp, s := Compute(items, items[:2], items[2:4])
	if want := "04051ee9ef0fb7622069533ed6dba55f49d94bde810ad7d033d2ff6cba70c9b4"; fp != want {
		t.Errorf("fingerprint %s, want %s", fp, want)
	}
	// The pinned value covers the hashes the first version recorded; the
	// definitions and the later hashes are left out of it.
	pinned := func(items []report.SurfaceItem) []report.SurfaceItem {
		var out []report.SurfaceItem
		for _, it := range items {
			out = append(out, report.SurfaceItem{Name: it.Name, DescriptionSHA256: it.DescriptionSHA256, InputSchemaSHA256: it.InputSchemaSHA256, SHA256: it.SHA256})
		}
		return out
	}
	b, err := json.Marshal(report.Surface{Tools: pinned(s.Tools), Prompts: pinned(s.Prompts), Resources: pinned(s.Resources)})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := hash(b).String(), "5811cf1bc5e1eabb4371560459c9e1798d3b948119f7e27e9d17be95ff7c522c"; got != want {
		t.Errorf("per-item hashes changed (sha256 of the Surface %s, want %s):\n%s", got, want, b)
	}
}

// BenchmarkCompute: the fingerprint of a big server's 1 000 tools, as the
// run's description computes it before any check starts.
func BenchmarkCompute(b *testing.B) {
	tools := mcptest.BigToolsJSON(1000)
	b.ReportAllocs()
	for b.Loop() {
		Compute(tools, nil, nil)
	}
}

// TestDefinitionsRecorded: a tool's definition is recorded for the
// semantic diff (canonical, without _meta) with hashes of its output
// schema and annotations, until DefinitionBudget is spent; past it a tool
// keeps its hashes only.
func TestDefinitionsRecorded(t *testing.T) {
	tools := []json.RawMessage{
		json.RawMessage(`{"name":"b","title":"B","description":"Bee tool.","inputSchema":{"type":"object","_meta":{"x":1},"properties":{"q":{"type":"string"}}},"outputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}`),
		json.RawMessage(`{"name":"a","description":"Ay tool.","inputSchema":{"type":"object"}}`),
	}
	_, s := Compute(tools, nil, nil)
	bi := s.Tools[1]
	b := bi.Def()
	if b == nil {
		t.Fatalf("tool b has no definition: %+v", bi)
	}
	if b.Title != "B" || b.Description != "Bee tool." || string(b.InputSchema) != `{"properties":{"q":{"type":"string"}},"type":"object"}` ||
		string(b.OutputSchema) != `{"type":"object"}` || string(b.Annotations) != `{"readOnlyHint":true}` || bi.OutputSchemaSHA256.IsZero() || bi.AnnotationsSHA256.IsZero() {
		t.Errorf("tool b recorded as %+v, %+v", bi, b)
	}
	if a := s.Tools[0]; a.Def() == nil || !a.OutputSchemaSHA256.IsZero() || a.Annotations != nil {
		t.Errorf("tool a recorded as %+v", a)
	}
	old := DefinitionBudget
	DefinitionBudget = definitionRecord + 60 // the first tool (sorted: a) fits, b does not
	defer func() { DefinitionBudget = old }()
	_, s = Compute(tools, nil, nil)
	if s.Tools[0].Def() == nil || s.Tools[1].SurfaceDefinition != nil || s.Tools[1].DescriptionSHA256.IsZero() {
		t.Errorf("past the budget: %+v", s.Tools)
	}
}

// The items are sorted by a permutation applied in place: stable by name
// (two items of one name keep the listing's order), the hashes and the
// canonical forms moved together, and the result sized to the listing
// (no slack left by growing it, which at 100 000 tools was megabytes).
func TestComputeSortsInPlaceStably(t *testing.T) {
	var in []string
	names := []string{"d", "b", "a", "c", "b", "e", "a"}
	for i, n := range names {
		in = append(in, fmt.Sprintf(`{"name":%q,"description":"tool %d"}`, n, i))
	}
	fp, s := Compute(raws(in...), nil, nil)
	var got []string
	for _, it := range s.Tools {
		got = append(got, it.Name+"/"+it.Description)
	}
	want := []string{"a/tool 2", "a/tool 6", "b/tool 1", "b/tool 4", "c/tool 3", "d/tool 0", "e/tool 5"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("order = %v, want %v", got, want)
	}
	if cap(s.Tools) != len(s.Tools) {
		t.Errorf("cap(Tools) = %d for %d tools: the slice was grown, not sized", cap(s.Tools), len(s.Tools))
	}
	// The fingerprint hashes the forms in the same order as the items: a
	// listing given sorted gives the same one.
	sorted := []string{in[2], in[6], in[1], in[4], in[3], in[0], in[5]}
	if fp2, _ := Compute(raws(sorted...), nil, nil); fp2 != fp {
		t.Errorf("fingerprint depends on the listing's order: %s vs %s", fp, fp2)
	}
	for i, it := range s.Tools {
		sum := sha256.Sum256([]byte(it.Description))
		if it.DescriptionSHA256 != sum {
			t.Errorf("item %d (%s): hash moved apart from its item", i, it.Name)
		}
	}
}
