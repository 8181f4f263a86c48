package surfacediff

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcp-eval/mcp-eval/engine/surface"
	"github.com/mcp-eval/mcp-eval/report"
)

// surf is the surface of tools as engine/surface records it.
func surf(t *testing.T, tools ...string) report.Surface {
	t.Helper()
	var raws []json.RawMessage
	for _, s := range tools {
		if !json.Valid([]byte(s)) {
			t.Fatalf("bad tool JSON %s", s)
		}
		raws = append(raws, json.RawMessage(s))
	}
	_, s := surface.Compute(raws, nil, nil)
	return s
}

// line is a change as one comparable line.
func line(c report.SurfaceChange) string {
	s := c.Tool + " " + c.Kind
	if c.Where != "" {
		s += " " + c.Where
	}
	if c.Path != "" {
		s += " " + c.Path
	}
	if c.Before != "" || c.After != "" {
		s += fmt.Sprintf(" %s -> %s", c.Before, c.After)
	}
	if c.Breaking {
		s += " BREAKING"
	}
	if c.Security {
		s += " SECURITY"
	}
	return s
}

const base = `{"name":"search","description":"Search the records.","annotations":{"readOnlyHint":true},
  "inputSchema":{"type":"object","required":["q"],"properties":{
    "q":{"type":"string","description":"Query text."},
    "limit":{"type":"integer","maximum":50},
    "status":{"type":"string","enum":["open","closed"]},
    "filter":{"type":"object","properties":{"owner":{"type":"string"}}}}},
  "outputSchema":{"type":"object","properties":{"total":{"type":"integer"}}}}`

// edit returns base with its JSON edited by f.
func edit(t *testing.T, f func(m map[string]any)) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(base), &m); err != nil {
		t.Fatal(err)
	}
	f(m)
	b, _ := json.Marshal(m)
	return string(b)
}

func props(m map[string]any) map[string]any {
	return m["inputSchema"].(map[string]any)["properties"].(map[string]any)
}

func TestDiffClassifies(t *testing.T) {
	tests := []struct {
		name string
		cur  func(m map[string]any)
		want []string
	}{
		{"unchanged", func(map[string]any) {}, nil},
		{"description reworded", func(m map[string]any) { m["description"] = "Find records." },
			[]string{"search description Search the records. -> Find records."}},
		{"new required parameter", func(m map[string]any) {
			props(m)["tenant"] = map[string]any{"type": "string"}
			m["inputSchema"].(map[string]any)["required"] = []any{"q", "tenant"}
		}, []string{"search required-added inputSchema tenant  -> required BREAKING"}},
		{"new optional parameter", func(m map[string]any) { props(m)["since"] = map[string]any{"type": "string"} },
			[]string{"search param-added inputSchema since  -> optional"}},
		{"existing parameter made required", func(m map[string]any) {
			m["inputSchema"].(map[string]any)["required"] = []any{"q", "limit"}
		}, []string{"search required-added inputSchema limit optional -> required BREAKING"}},
		{"parameter removed", func(m map[string]any) { delete(props(m), "limit") },
			[]string{"search param-removed inputSchema limit BREAKING"}},
		{"type widened", func(m map[string]any) { props(m)["limit"].(map[string]any)["type"] = "number" },
			[]string{"search type-widened inputSchema limit integer -> number"}},
		{"type narrowed", func(m map[string]any) { props(m)["q"].(map[string]any)["type"] = []any{"string", "null"} },
			[]string{"search type-widened inputSchema q string -> [\"string\",\"null\"]"}},
		{"type narrowed by dropping null", func(m map[string]any) {
			props(m)["limit"].(map[string]any)["type"] = "string"
		}, []string{"search type-changed inputSchema limit integer -> string"}},
		{"enum widened", func(m map[string]any) {
			props(m)["status"].(map[string]any)["enum"] = []any{"open", "closed", "archived"}
		},
			[]string{`search enum-widened inputSchema status "closed", "open" -> "archived", "closed", "open"`}},
		{"enum narrowed", func(m map[string]any) { props(m)["status"].(map[string]any)["enum"] = []any{"open"} },
			[]string{`search enum-narrowed inputSchema status "closed", "open" -> "open" BREAKING`}},
		{"nested parameter and a constraint", func(m map[string]any) {
			props(m)["filter"].(map[string]any)["properties"].(map[string]any)["owner"] = map[string]any{"type": "integer"}
			props(m)["limit"].(map[string]any)["maximum"] = 20
		}, []string{"search type-changed inputSchema filter.owner string -> integer", "search constraint inputSchema limit.maximum 50 -> 20"}},
		{"parameter description", func(m map[string]any) { props(m)["q"].(map[string]any)["description"] = "Words to find." },
			[]string{"search param-description inputSchema q Query text. -> Words to find."}},
		{"output widened breaks consumers", func(m map[string]any) {
			m["outputSchema"].(map[string]any)["properties"].(map[string]any)["total"] = map[string]any{"type": "number"}
		}, []string{"search type-widened outputSchema total integer -> number BREAKING"}},
		{"readOnlyHint flipped", func(m map[string]any) { m["annotations"] = map[string]any{"readOnlyHint": false} },
			[]string{"search annotation annotations readOnlyHint true -> false (default) SECURITY"}},
		{"destructiveHint made explicit at its default is no change", func(m map[string]any) {
			m["annotations"] = map[string]any{"readOnlyHint": true, "destructiveHint": true}
		}, nil},
		{"destructiveHint false then openWorldHint", func(m map[string]any) {
			m["annotations"] = map[string]any{"readOnlyHint": true, "destructiveHint": false, "openWorldHint": false}
		}, []string{"search annotation annotations destructiveHint true (default) -> false SECURITY",
			"search annotation annotations openWorldHint true (default) -> false"}},
		{"title", func(m map[string]any) { m["title"] = "Search" }, []string{"search title  -> Search"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Diff(surf(t, base), surf(t, edit(t, tt.cur)))
			var got []string
			if d != nil {
				for _, c := range d.Changes {
					got = append(got, line(c))
				}
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("changes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			if d != nil {
				breaking, security := 0, 0
				for _, c := range d.Changes {
					if c.Breaking {
						breaking++
					}
					if c.Security {
						security++
					}
				}
				if d.Tools != 1 || d.Breaking != breaking || d.Security != security {
					t.Errorf("counts: %d tools, %d breaking, %d security", d.Tools, d.Breaking, d.Security)
				}
			}
		})
	}
}

func TestDiffAddedRemoved(t *testing.T) {
	a := `{"name":"a","description":"A.","inputSchema":{"type":"object"}}`
	b := `{"name":"b","description":"B.","inputSchema":{"type":"object"}}`
	d := Diff(surf(t, a), surf(t, b))
	if d == nil || len(d.Changes) != 2 || line(d.Changes[0]) != "a removed BREAKING" || line(d.Changes[1]) != "b added" || d.Tools != 2 {
		t.Fatalf("diff %+v", d)
	}
	if got := d.ChangedTools(); strings.Join(got, ",") != "a,b" {
		t.Errorf("ChangedTools %v", got)
	}
}

// A baseline that recorded hashes only (an older report, or a tool past
// the surface's budget) is compared by hash, and the tool is named as
// compared so.
func TestDiffByHash(t *testing.T) {
	old := surf(t, base)
	for i := range old.Tools {
		it := &old.Tools[i]
		it.SurfaceDefinition = nil
	}
	d := Diff(old, surf(t, edit(t, func(m map[string]any) { m["description"] = "Find records." })))
	if d == nil || len(d.Changes) != 1 || line(d.Changes[0]) != "search description" || len(d.Undefined) != 1 {
		t.Fatalf("diff %+v", d)
	}
	d = Diff(old, surf(t, edit(t, func(m map[string]any) { m["annotations"] = map[string]any{} })))
	if d == nil || len(d.Changes) != 1 || line(d.Changes[0]) != "search definition annotations" {
		t.Fatalf("diff %+v", d)
	}
	if d := Diff(old, surf(t, base)); d != nil {
		t.Errorf("unchanged by hash: %+v", d)
	}
}
