package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcp-eval/mcp-eval/internal/clip"
)

// DefaultHistoryLimit is how many runs CarryHistory keeps when its limit is
// not positive: the last 20.
const DefaultHistoryLimit = 20

// Bounds on what a baseline can carry into History, so that a corrupt or
// hostile baseline cannot grow report.json without limit.
const (
	historyMaxKeys  = 64 // score keys per entry
	historyMaxField = 64 // bytes of startedAt and commit
)

// HistoryEntry is the headline scores of one past run.
type HistoryEntry struct {
	// StartedAt is the run's start (RFC 3339), as in Report.StartedAt.
	StartedAt string `json:"startedAt,omitempty"`
	// Commit is the revision the run evaluated, when it was known.
	Commit string `json:"commit,omitempty"`
	// Scores are the run's pooled scores (Report.Scores).
	Scores map[string]float64 `json:"scores"`
}

// CarryHistory sets r.History to the baseline's history followed by this
// run's scores, keeping the newest limit entries (DefaultHistoryLimit when
// limit is not positive). A baseline written before History existed counts
// as one entry of its own. With no baseline the history starts with this
// run. It reads base and changes nothing but r.History; calling it again
// gives the same result.
//
// Entries keep only the scores a report may hold (finite fractions in
// [0, 1]), at most 64 keys each; an entry left with no score is dropped, and
// so is a run without scores.
func (r *Report) CarryHistory(base *Report, limit int) {
	if limit <= 0 {
		limit = DefaultHistoryLimit
	}
	var h []HistoryEntry
	if base != nil {
		for _, e := range base.History {
			if e, ok := cleanEntry(e); ok {
				h = append(h, e)
			}
		}
		// The baseline's own run is the last entry of its history when
		// CarryHistory wrote it; an older baseline has no history at all.
		if own, ok := cleanEntry(entryOf(base)); ok && !endsWithRun(h, own) {
			h = append(h, own)
		}
	}
	if own, ok := cleanEntry(entryOf(r)); ok {
		h = append(h, own)
	}
	if len(h) > limit {
		h = h[len(h)-limit:]
	}
	r.History = h
}

func entryOf(r *Report) HistoryEntry {
	return HistoryEntry{StartedAt: r.StartedAt, Commit: r.Commit, Scores: r.Scores}
}

// endsWithRun reports whether the last entry of h is the run e: the same
// start time, or, when the baseline has none, any entry (a history written
// by CarryHistory always ends with its own run).
func endsWithRun(h []HistoryEntry, e HistoryEntry) bool {
	if len(h) == 0 {
		return false
	}
	last := h[len(h)-1]
	if e.StartedAt == "" {
		return true
	}
	return last.StartedAt == e.StartedAt && last.Commit == e.Commit
}

// cleanEntry copies e with its fields bounded and its scores limited to
// valid fractions. It reports false when no score is left.
func cleanEntry(e HistoryEntry) (HistoryEntry, bool) {
	out := HistoryEntry{Scores: map[string]float64{}}
	out.StartedAt, _ = clip.Prefix(e.StartedAt, historyMaxField)
	out.Commit, _ = clip.Prefix(e.Commit, historyMaxField)
	for _, k := range sortedKeys(e.Scores) {
		v := e.Scores[k]
		if math.IsNaN(v) || v < 0 || v > 1 {
			continue
		}
		out.Scores[k] = v
		if len(out.Scores) == historyMaxKeys {
			break
		}
	}
	return out, len(out.Scores) > 0
}

// trendKeys is the order in which score keys are chosen for the trend
// chart: the headline scores first, then any other key alphabetically.
var trendKeys = []string{
	ScoreConformancePassRate,
	ScoreBehaviorPassRate,
	ScoreSelectionAccuracy,
	ScoreTaskCompletion,
	ScoreResiliencePassRate,
	ScoreFalseActivationRate,
	ScoreArgumentAccuracy,
	ScoreSequenceAccuracy,
	ScoreFabricationRate,
	ScoreAttackSuccessRate,
}

// trendMaxLines is how many scores the chart draws at most.
const trendMaxLines = 4

// trendPalette colours the chart's lines in order, and trendSwatches name
// those colours in the legend. Both are fixed text.
var (
	trendPalette  = "#1f77b4, #2ca02c, #ff7f0e, #9467bd"
	trendSwatches = []string{"🔵 blue", "🟢 green", "🟠 orange", "🟣 purple"}
)

// trendSeries picks what the chart draws: up to four score keys of the
// newest entry, headline keys first, from the first entry that measured
// them. The first key measured in two or more entries sets the window (from
// its first measurement on); a later key joins only if it was measured at
// the window's start. start is the first entry drawn.
func trendSeries(h []HistoryEntry) (start int, keys []string) {
	if len(h) < 2 {
		return 0, nil
	}
	newest := h[len(h)-1].Scores
	var cands []string
	for _, k := range trendKeys {
		if _, ok := newest[k]; ok {
			cands = append(cands, k)
		}
	}
	for _, k := range sortedKeys(newest) {
		if !slices.Contains(trendKeys, k) {
			cands = append(cands, k)
		}
	}
	for _, k := range cands {
		s := slices.IndexFunc(h, func(e HistoryEntry) bool {
			_, ok := e.Scores[k]
			return ok
		})
		switch {
		case len(h)-s < 2:
		case keys == nil:
			start, keys = s, []string{k}
		default:
			if _, ok := h[start].Scores[k]; ok {
				keys = append(keys, k)
			}
		}
		if len(keys) == trendMaxLines {
			break
		}
	}
	return start, keys
}

// trendLabels returns the x-axis labels: the runs' dates as MM-DD when every
// entry has a readable, distinct date, else the run numbers. Either way a
// label holds only digits and '-', so nothing of the history's text reaches
// the chart.
func trendLabels(h []HistoryEntry) []string {
	labels := make([]string, len(h))
	seen := map[string]bool{}
	for i, e := range h {
		t, err := time.Parse(time.RFC3339, e.StartedAt)
		d := t.UTC().Format("01-02")
		if err != nil || seen[d] {
			for i := range labels {
				labels[i] = strconv.Itoa(i + 1)
			}
			return labels
		}
		seen[d] = true
		labels[i] = d
	}
	return labels
}

// trend writes the trend chart of the history: a Mermaid xychart-beta, which
// GitHub renders, with a legend and the numbers behind it. Only numbers and
// fixed text go inside the Mermaid block; score keys, dates and commits
// appear in the legend and the table, escaped like any other text.
func (m *mdWriter) trend(h []HistoryEntry) {
	start, keys := trendSeries(h)
	if len(keys) == 0 {
		return
	}
	h = h[start:]
	labels := trendLabels(h)
	m.p("### Trend")
	m.p("")
	series := make([][]string, len(keys))
	filled := false
	for i, k := range keys {
		// A line cannot have gaps: a run that did not measure the score
		// (a layer it did not run) repeats the last value.
		last := 0.0
		for _, e := range h {
			v, ok := e.Scores[k]
			if ok {
				last = v
			} else {
				filled = true
			}
			series[i] = append(series[i], strconv.FormatFloat(last, 'f', 3, 64))
		}
	}
	m.p("Headline scores of the last %d runs, oldest first (0 to 1).", len(h))
	if filled {
		m.p("A run that did not measure a score repeats its last value; the table below shows what each run measured.")
	}
	m.p("")
	m.p("```mermaid")
	m.p("%%%%{init: {\"themeVariables\": {\"xyChart\": {\"plotColorPalette\": \"%s\"}}}}%%%%", trendPalette)
	m.p("xychart-beta")
	m.p("  title \"Headline scores, last %d runs\"", len(h))
	quoted := make([]string, len(labels))
	for i, l := range labels {
		quoted[i] = `"` + l + `"`
	}
	m.p("  x-axis [%s]", strings.Join(quoted, ", "))
	m.p("  y-axis \"score\" 0 --> 1")
	for _, vals := range series {
		m.p("  line [%s]", strings.Join(vals, ", "))
	}
	m.p("```")
	m.p("")
	legend := make([]string, len(keys))
	for i, k := range keys {
		legend[i] = trendSwatches[i] + " " + codeSpan(k)
	}
	m.p("Lines: %s.", strings.Join(legend, " · "))
	m.p("")
	m.p("<details><summary>Trend data</summary>")
	m.p("")
	head := []string{"run", "started", "commit"}
	for _, k := range keys {
		head = append(head, codeSpan(k))
	}
	m.tableHead(head...)
	for i, e := range h {
		commit := "–"
		if e.Commit != "" {
			short, _ := clip.Prefix(e.Commit, 12)
			commit = codeSpan(short)
		}
		cells := []string{fmt.Sprint(i + 1), escapeMarkdown(orDash(e.StartedAt)), commit}
		for _, k := range keys {
			cells = append(cells, scoreCell(e.Scores, k))
		}
		m.row(cells...)
	}
	m.p("")
	m.p("</details>")
	m.p("")
}
