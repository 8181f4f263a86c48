package report

import (
	"bytes"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func entry(at, commit string, scores map[string]float64) HistoryEntry {
	return HistoryEntry{StartedAt: at, Commit: commit, Scores: scores}
}

func TestCarryHistory(t *testing.T) {
	t.Parallel()
	s := func(v float64) map[string]float64 { return map[string]float64{"conformance.passRate": v} }
	cur := func() *Report {
		return &Report{StartedAt: "2026-08-16T00:00:00Z", Commit: "c16", Scores: s(0.9)}
	}
	own := entry("2026-08-16T00:00:00Z", "c16", s(0.9))
	tests := []struct {
		name  string
		base  *Report
		limit int
		want  []HistoryEntry
	}{
		{"no baseline", nil, 0, []HistoryEntry{own}},
		{"baseline from before history", &Report{StartedAt: "2026-08-15T00:00:00Z", Scores: s(0.8)}, 0,
			[]HistoryEntry{entry("2026-08-15T00:00:00Z", "", s(0.8)), own}},
		{"baseline whose history ends with itself", &Report{StartedAt: "2026-08-15T00:00:00Z", Commit: "c15", Scores: s(0.8),
			History: []HistoryEntry{entry("2026-08-14T00:00:00Z", "c14", s(0.7)), entry("2026-08-15T00:00:00Z", "c15", s(0.8))}}, 0,
			[]HistoryEntry{entry("2026-08-14T00:00:00Z", "c14", s(0.7)), entry("2026-08-15T00:00:00Z", "c15", s(0.8)), own}},
		{"baseline whose history lacks itself", &Report{StartedAt: "2026-08-15T00:00:00Z", Scores: s(0.8),
			History: []HistoryEntry{entry("2026-08-14T00:00:00Z", "", s(0.7))}}, 0,
			[]HistoryEntry{entry("2026-08-14T00:00:00Z", "", s(0.7)), entry("2026-08-15T00:00:00Z", "", s(0.8)), own}},
		{"baseline without a start time", &Report{Scores: s(0.8), History: []HistoryEntry{entry("", "", s(0.8))}}, 0,
			[]HistoryEntry{entry("", "", s(0.8)), own}},
		{"bad scores dropped", &Report{StartedAt: "b", Scores: map[string]float64{"x": math.NaN(), "y": 1.5, "z": -1},
			History: []HistoryEntry{entry("a", "", map[string]float64{"conformance.passRate": 0.5, "w": math.Inf(1)}), entry("e", "", nil)}}, 0,
			[]HistoryEntry{entry("a", "", s(0.5)), own}},
		{"limit", &Report{StartedAt: "3", Scores: s(0.3), History: []HistoryEntry{entry("1", "", s(0.1)), entry("2", "", s(0.2)), entry("3", "", s(0.3))}}, 2,
			[]HistoryEntry{entry("3", "", s(0.3)), own}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := cur()
			var before *Report
			if tt.base != nil {
				b := *tt.base
				b.History = append([]HistoryEntry(nil), tt.base.History...)
				before = &b
			}
			r.CarryHistory(tt.base, tt.limit)
			if diff := cmp.Diff(tt.want, r.History); diff != "" {
				t.Errorf("history mismatch (-want +got):\n%s", diff)
			}
			if tt.base != nil && fmt.Sprint(before) != fmt.Sprint(tt.base) {
				t.Errorf("CarryHistory modified the baseline")
			}
			// Again: the same result, and no aliasing of this run's scores.
			first := r.History
			r.CarryHistory(tt.base, tt.limit)
			if !reflect.DeepEqual(first, r.History) {
				t.Errorf("a second call gave %v, want %v", r.History, first)
			}
			r.Scores["conformance.passRate"] = 0
			if r.History[len(r.History)-1].Scores["conformance.passRate"] != 0.9 {
				t.Errorf("history shares its map with Report.Scores")
			}
		})
	}

	// The default limit is 20, and a run without scores adds nothing.
	base := &Report{}
	for i := range 30 {
		base.History = append(base.History, entry(fmt.Sprint(i), "", s(0.5)))
	}
	r := &Report{}
	r.CarryHistory(base, 0)
	if len(r.History) != DefaultHistoryLimit || r.History[0].StartedAt != "10" || r.History[19].StartedAt != "29" {
		t.Errorf("history of %d from %q to %q", len(r.History), r.History[0].StartedAt, r.History[len(r.History)-1].StartedAt)
	}
	// Oversized fields and too many keys are cut.
	big := map[string]float64{}
	for i := range 100 {
		big[fmt.Sprintf("k%03d", i)] = 0.5
	}
	r = &Report{StartedAt: strings.Repeat("9", 1000), Commit: strings.Repeat("c", 1000), Scores: big}
	r.CarryHistory(nil, 0)
	if e := r.History[0]; len(e.StartedAt) != historyMaxField || len(e.Commit) != historyMaxField || len(e.Scores) != historyMaxKeys {
		t.Errorf("entry not bounded: %d, %d, %d", len(e.StartedAt), len(e.Commit), len(e.Scores))
	}
}

func TestTrendSeries(t *testing.T) {
	t.Parallel()
	e := func(kv ...any) HistoryEntry {
		m := map[string]float64{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1].(float64)
		}
		return HistoryEntry{Scores: m}
	}
	tests := []struct {
		name      string
		h         []HistoryEntry
		wantStart int
		wantKeys  []string
	}{
		{"one entry", []HistoryEntry{e("conformance.passRate", 1.0)}, 0, nil},
		{"headline first", []HistoryEntry{
			e("zeta", 0.1, "behavior.passRate", 0.5, "conformance.passRate", 1.0),
			e("zeta", 0.2, "behavior.passRate", 0.6, "conformance.passRate", 1.0),
		}, 0, []string{"conformance.passRate", "behavior.passRate", "zeta"}},
		{"at most four", []HistoryEntry{
			e("a", .1, "b", .1, "c", .1, "d", .1, "e", .1),
			e("a", .1, "b", .1, "c", .1, "d", .1, "e", .1),
		}, 0, []string{"a", "b", "c", "d"}},
		{"gaps are filled, a later start is not", []HistoryEntry{
			e("conformance.passRate", 1.0, "behavior.passRate", 0.9),
			e("conformance.passRate", 1.0),
			e("conformance.passRate", 1.0, "behavior.passRate", 0.8, "behavior.taskCompletion", 0.7),
		}, 0, []string{"conformance.passRate", "behavior.passRate"}},
		{"a key only in the newest run is skipped", []HistoryEntry{
			e("conformance.passRate", 1.0),
			e("conformance.passRate", 1.0, "behavior.passRate", 0.8),
		}, 0, []string{"conformance.passRate"}},
		{"window starts where the first key does", []HistoryEntry{
			e("other", 0.5),
			e("behavior.passRate", 0.9),
			e("behavior.passRate", 0.8, "other", 0.5),
		}, 1, []string{"behavior.passRate"}},
		{"keys gone from the newest run are not drawn", []HistoryEntry{
			e("behavior.passRate", 0.9), e("behavior.passRate", 0.9), e("conformance.passRate", 1.0),
		}, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start, keys := trendSeries(tt.h)
			if start != tt.wantStart || !reflect.DeepEqual(keys, tt.wantKeys) {
				t.Errorf("trendSeries = %d, %q; want %d, %q", start, keys, tt.wantStart, tt.wantKeys)
			}
		})
	}
}

func TestTrendLabels(t *testing.T) {
	t.Parallel()
	h := []HistoryEntry{{StartedAt: "2026-08-14T23:30:00-02:00"}, {StartedAt: "2026-08-16T00:00:00Z"}}
	if got := trendLabels(h); !reflect.DeepEqual(got, []string{"08-15", "08-16"}) {
		t.Errorf("dates: %q", got)
	}
	h = append(h, HistoryEntry{StartedAt: "2026-08-16T10:00:00Z"})
	if got := trendLabels(h); !reflect.DeepEqual(got, []string{"1", "2", "3"}) {
		t.Errorf("same day twice: %q", got)
	}
	if got := trendLabels([]HistoryEntry{{StartedAt: `"]`}, {}}); !reflect.DeepEqual(got, []string{"1", "2"}) {
		t.Errorf("unreadable: %q", got)
	}
}

// mermaidLine is every line a trend chart may hold: fixed text and numbers.
var mermaidLine = regexp.MustCompile(`^(%%\{init: \{"themeVariables": \{"xyChart": \{"plotColorPalette": "#1f77b4, #2ca02c, #ff7f0e, #9467bd"\}\}\}\}%%` +
	`|xychart-beta` +
	`|  title "Headline scores, last [0-9]+ runs"` +
	`|  x-axis \["[0-9-]+"(, "[0-9-]+")*\]` +
	`|  y-axis "score" 0 --> 1` +
	`|  line \[[0-9.]+(, [0-9.]+)*\])$`)

// TestTrendChartSafe fills the history with hostile keys, dates and commits
// and checks that the Mermaid block holds nothing but numbers and fixed
// text, and that no chart is drawn from fewer than two runs.
func TestTrendChartSafe(t *testing.T) {
	t.Parallel()
	h := "```\n</details>\"] @org/team ::set-output name=x::y %%{init: {}}%%\n"
	r := &Report{History: []HistoryEntry{
		{StartedAt: h, Commit: h, Scores: map[string]float64{h: 0.5, "conformance.passRate": 1}},
		{StartedAt: "2026-08-15T00:00:00Z", Commit: h, Scores: map[string]float64{h: 0.25, "conformance.passRate": 0.5}},
	}}
	var b bytes.Buffer
	if err := WriteMarkdown(&b, r); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	start := strings.Index(md, "```mermaid\n")
	if start < 0 {
		t.Fatalf("no chart:\n%s", md)
	}
	block, _, ok := strings.Cut(md[start+len("```mermaid\n"):], "\n```\n")
	if !ok {
		t.Fatalf("chart not closed:\n%s", md)
	}
	lines := strings.Split(block, "\n")
	if len(lines) != 7 {
		t.Errorf("chart has %d lines, want 7 (two series):\n%s", len(lines), block)
	}
	for _, line := range lines {
		if !mermaidLine.MatchString(line) {
			t.Errorf("unexpected chart line %q", line)
		}
	}
	outside, _ := splitFences(t, md)
	if strings.Contains(outside, "@org") || strings.Contains(outside, "</details>\"") {
		t.Errorf("hostile history text escaped the table:\n%s", outside)
	}

	r.History = r.History[1:]
	b.Reset()
	if err := WriteMarkdown(&b, r); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "mermaid") {
		t.Errorf("a chart from one run:\n%s", b.String())
	}
}
