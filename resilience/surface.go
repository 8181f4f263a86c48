package resilience

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mcp-eval/mcp-eval/engine/check"
	"github.com/mcp-eval/mcp-eval/report"
)

// Kinds of SurfaceChange.
const (
	ToolAdded   = "added"
	ToolRemoved = "removed"
	// DescriptionChanged: the tool's description text changed.
	DescriptionChanged = "description"
	// SchemaChanged: the tool's inputSchema changed.
	SchemaChanged = "inputSchema"
	// DefinitionChanged: another member changed (title, annotations such
	// as readOnlyHint, outputSchema) while description and inputSchema did
	// not.
	DefinitionChanged = "definition"
)

// SurfaceChange is one difference of one tool between a baseline surface
// and the current one.
type SurfaceChange struct {
	Tool string `json:"tool"`
	// Change is ToolAdded, ToolRemoved, DescriptionChanged, SchemaChanged
	// or DefinitionChanged.
	Change string `json:"change"`
	// Before and After are the hashes that differ (the description's, the
	// inputSchema's or the whole tool's); empty for an added or removed
	// tool.
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
}

// SurfaceDiff compares the current tool surface with a baseline's, tool by
// tool on the per-tool hashes (report.Surface), and returns the changes
// sorted by tool and kind. A tool whose description and schema both changed
// yields two changes. A hash that either side lacks (an older report) is
// not compared. When a name appears twice, its first entry counts.
func SurfaceDiff(cur, base report.Surface) []SurfaceChange {
	was, now := byName(base.Tools), byName(cur.Tools)
	var out []SurfaceChange
	for name, b := range was {
		c, ok := now[name]
		if !ok {
			out = append(out, SurfaceChange{Tool: name, Change: ToolRemoved})
			continue
		}
		n := len(out)
		if differ(b.DescriptionSHA256, c.DescriptionSHA256) {
			out = append(out, SurfaceChange{Tool: name, Change: DescriptionChanged, Before: b.DescriptionSHA256.String(), After: c.DescriptionSHA256.String()})
		}
		if differ(b.InputSchemaSHA256, c.InputSchemaSHA256) {
			out = append(out, SurfaceChange{Tool: name, Change: SchemaChanged, Before: b.InputSchemaSHA256.String(), After: c.InputSchemaSHA256.String()})
		}
		if len(out) == n && differ(b.SHA256, c.SHA256) {
			out = append(out, SurfaceChange{Tool: name, Change: DefinitionChanged, Before: b.SHA256.String(), After: c.SHA256.String()})
		}
	}
	for name := range now {
		if _, ok := was[name]; !ok {
			out = append(out, SurfaceChange{Tool: name, Change: ToolAdded})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Tool != out[j].Tool {
			return out[i].Tool < out[j].Tool
		}
		return changeOrder[out[i].Change] < changeOrder[out[j].Change]
	})
	return out
}

var changeOrder = map[string]int{ToolAdded: 0, ToolRemoved: 1, DescriptionChanged: 2, SchemaChanged: 3, DefinitionChanged: 4}

func byName(items []report.SurfaceItem) map[string]report.SurfaceItem {
	m := make(map[string]report.SurfaceItem, len(items))
	for _, it := range items {
		if _, dup := m[it.Name]; !dup {
			m[it.Name] = it
		}
	}
	return m
}

func differ(a, b report.Digest) bool { return !a.IsZero() && !b.IsZero() && a != b }

// surfaceDef declares resilience/surface-unchanged (SurfaceCheck).
var surfaceDef = Info{ID: "resilience/surface-unchanged", Level: report.LevelShould,
	Title:   "the tool surface matches the baseline's (no tool added, removed or changed since)",
	SpecRef: specRef("server/tools") + "#security-considerations"}

// SurfaceCheck is resilience/surface-unchanged: it compares the current
// tool surface with the baseline report's (base nil: no baseline, skip).
// A change fails it at SHOULD level — a warning, since most changes are
// releases, but one to read: a tool that changes its description or schema
// after it was approved is how a "rug pull" works. The per-tool diff is the
// evidence; the counts are the info.
func SurfaceCheck(cur report.Surface, base *report.Surface) report.Check {
	rc := report.Check{
		ID: surfaceDef.ID, Layer: report.LayerResilience, Group: "resilience",
		Level: surfaceDef.Level, Title: surfaceDef.Title, SpecRef: surfaceDef.SpecRef,
	}
	switch {
	case base == nil:
		rc.Status, rc.Message = report.StatusSkip, "no baseline report to compare the tool surface with"
		return rc
	case base.Tools == nil:
		rc.Status, rc.Message = report.StatusSkip, "the baseline report records no tool surface"
		return rc
	}
	rc.Runs = 1
	changes := SurfaceDiff(cur, *base)
	if len(changes) == 0 {
		rc.Status, rc.Passed = report.StatusPass, 1
		rc.Info = fmt.Sprintf("%d tools, all as in the baseline", len(cur.Tools))
		return rc
	}
	count := map[string]int{}
	var parts []string
	for _, ch := range changes {
		count[ch.Change]++
		if len(parts) < 5 {
			parts = append(parts, describeChange(ch))
		}
	}
	rc.Status = report.StatusFail
	rc.Message = fmt.Sprintf("%d tool %s since the baseline: %s", len(changes), pluralWord(len(changes), "change", "changes"), strings.Join(parts, "; "))
	if len(changes) > len(parts) {
		rc.Message += "; …"
	}
	var info []string
	for _, k := range []string{ToolAdded, ToolRemoved, DescriptionChanged, SchemaChanged, DefinitionChanged} {
		if count[k] > 0 {
			info = append(info, fmt.Sprintf("%s %d", k, count[k]))
		}
	}
	rc.Info = strings.Join(info, ", ")
	rc.Evidence = check.JSON(map[string]any{"changes": changes})
	return rc
}

func describeChange(ch SurfaceChange) string {
	switch ch.Change {
	case ToolAdded:
		return ch.Tool + " added"
	case ToolRemoved:
		return ch.Tool + " removed"
	case DescriptionChanged:
		return ch.Tool + " description changed"
	case SchemaChanged:
		return ch.Tool + " inputSchema changed"
	}
	return ch.Tool + " definition changed (title, annotations or outputSchema)"
}

func pluralWord(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
