package resilience

import (
	"crypto/sha256"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcp-eval/mcp-eval/report"
)

// surfaceItem makes an item whose hashes are those of the labels given
// ("" is a hash not recorded).
func surfaceItem(name, desc, schema, whole string) report.SurfaceItem {
	return report.SurfaceItem{Name: name, DescriptionSHA256: dg(desc), InputSchemaSHA256: dg(schema), SHA256: dg(whole)}
}

func dg(label string) report.Digest {
	if label == "" {
		return report.Digest{}
	}
	return sha256.Sum256([]byte(label))
}

// hx is the hex a SurfaceChange names for a label's hash.
func hx(label string) string { return dg(label).String() }

func TestSurfaceDiff(t *testing.T) {
	t.Parallel()
	base := report.Surface{Tools: []report.SurfaceItem{
		surfaceItem("a", "d1", "s1", "w1"),
		surfaceItem("b", "d2", "s2", "w2"),
		surfaceItem("c", "d3", "s3", "w3"),
	}}
	cases := []struct {
		name string
		cur  []report.SurfaceItem
		want []SurfaceChange
	}{
		{"unchanged", base.Tools, nil},
		{"unchanged, other order", []report.SurfaceItem{base.Tools[2], base.Tools[0], base.Tools[1]}, nil},
		{"added and removed", []report.SurfaceItem{base.Tools[0], base.Tools[1], surfaceItem("d", "d4", "s4", "w4")},
			[]SurfaceChange{{Tool: "c", Change: ToolRemoved}, {Tool: "d", Change: ToolAdded}}},
		{"description", []report.SurfaceItem{surfaceItem("a", "dX", "s1", "wX"), base.Tools[1], base.Tools[2]},
			[]SurfaceChange{{Tool: "a", Change: DescriptionChanged, Before: hx("d1"), After: hx("dX")}}},
		{"schema", []report.SurfaceItem{base.Tools[0], surfaceItem("b", "d2", "sX", "wX"), base.Tools[2]},
			[]SurfaceChange{{Tool: "b", Change: SchemaChanged, Before: hx("s2"), After: hx("sX")}}},
		{"both", []report.SurfaceItem{surfaceItem("a", "dX", "sX", "wX"), base.Tools[1], base.Tools[2]},
			[]SurfaceChange{{Tool: "a", Change: DescriptionChanged, Before: hx("d1"), After: hx("dX")}, {Tool: "a", Change: SchemaChanged, Before: hx("s1"), After: hx("sX")}}},
		{"annotations only", []report.SurfaceItem{surfaceItem("a", "d1", "s1", "wX"), base.Tools[1], base.Tools[2]},
			[]SurfaceChange{{Tool: "a", Change: DefinitionChanged, Before: hx("w1"), After: hx("wX")}}},
		{"hash missing on one side", []report.SurfaceItem{surfaceItem("a", "", "s1", ""), base.Tools[1], base.Tools[2]}, nil},
		{"everything gone", []report.SurfaceItem{},
			[]SurfaceChange{{Tool: "a", Change: ToolRemoved}, {Tool: "b", Change: ToolRemoved}, {Tool: "c", Change: ToolRemoved}}},
		{"duplicate name: first counts", []report.SurfaceItem{base.Tools[0], surfaceItem("a", "dX", "sX", "wX"), base.Tools[1], base.Tools[2]}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := SurfaceDiff(report.Surface{Tools: tc.cur}, base)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("SurfaceDiff (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSurfaceCheck(t *testing.T) {
	t.Parallel()
	base := &report.Surface{Tools: []report.SurfaceItem{surfaceItem("a", "d1", "s1", "w1"), surfaceItem("b", "d2", "s2", "w2")}}
	cur := report.Surface{Tools: []report.SurfaceItem{surfaceItem("a", "dX", "s1", "wX"), surfaceItem("c", "d3", "s3", "w3")}}
	cases := []struct {
		name       string
		cur        report.Surface
		base       *report.Surface
		status     report.Status
		message    string
		info       string
		nEvidences int
	}{
		{"no baseline", cur, nil, report.StatusSkip, "no baseline report to compare the tool surface with", "", 0},
		{"baseline without surface", cur, &report.Surface{}, report.StatusSkip, "the baseline report records no tool surface", "", 0},
		{"same", *base, base, report.StatusPass, "", "2 tools, all as in the baseline", 0},
		{"changed", cur, base, report.StatusFail,
			"3 tool changes since the baseline: a description changed; b removed; c added", "added 1, removed 1, description 1", 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ch := SurfaceCheck(tc.cur, tc.base)
			if ch.ID != "resilience/surface-unchanged" || ch.Layer != report.LayerResilience || ch.Level != report.LevelShould || ch.Hard {
				t.Errorf("check %s layer %s level %s hard %v", ch.ID, ch.Layer, ch.Level, ch.Hard)
			}
			if ch.Status != tc.status || ch.Message != tc.message || ch.Info != tc.info {
				t.Errorf("got %s %q info %q, want %s %q info %q", ch.Status, ch.Message, ch.Info, tc.status, tc.message, tc.info)
			}
			if tc.nEvidences > 0 {
				var ev struct {
					Changes []SurfaceChange `json:"changes"`
				}
				if err := json.Unmarshal(ch.Evidence, &ev); err != nil || len(ev.Changes) != tc.nEvidences {
					t.Errorf("evidence %s: %v", ch.Evidence, err)
				}
			}
		})
	}
}
