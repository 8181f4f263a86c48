package report

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
)

// How much of the surface diff and the selection each rendering shows;
// report.json keeps all of it.
const (
	textSurfaceMax    = 40  // change lines on the terminal
	mdSurfaceMax      = 200 // rows of the summary's table
	commentSurfaceMax = 12  // lines in the PR comment
	selectionWhyMax   = 50  // cases listed with why they ran
)

// changeText is one change in words: "new required parameter tenant",
// "readOnlyHint true -> false (default)".
func changeText(c SurfaceChange) string {
	what := map[string]string{
		ChangeAdded: "tool added", ChangeRemoved: "tool removed", ChangeDescription: "description reworded", ChangeTitle: "title changed",
		ChangeParamAdded: "new optional parameter", ChangeRequiredAdded: "new required parameter", ChangeRequiredRemoved: "parameter no longer required",
		ChangeParamRemoved: "parameter removed", ChangeTypeWidened: "type widened", ChangeTypeNarrowed: "type narrowed", ChangeTypeChanged: "type changed",
		ChangeEnumWidened: "enum widened", ChangeEnumNarrowed: "enum narrowed", ChangeEnumChanged: "enum changed",
		ChangeParamDescription: "parameter description reworded", ChangeConstraint: "constraint changed", ChangeAnnotation: "annotation changed",
		ChangeDefinition: "definition changed (compared by hash)",
	}[c.Kind]
	if what == "" {
		what = c.Kind
	}
	if c.Kind == ChangeRequiredAdded && c.Before != "" {
		what = "parameter made required"
	}
	if c.Where == InOutputSchema {
		what = "output: " + what
	}
	if c.Path != "" {
		what += " " + c.Path
	}
	if c.Kind != ChangeDescription && c.Kind != ChangeParamDescription && (c.Before != "" || c.After != "") && c.Kind != ChangeParamAdded && c.Kind != ChangeRequiredAdded {
		what += ": " + orDash(c.Before) + " → " + orDash(c.After)
	}
	return what
}

// flags are the change's marks: breaking, security.
func flags(c SurfaceChange) string {
	var f []string
	if c.Security {
		f = append(f, "security")
	}
	if c.Breaking {
		f = append(f, "breaking")
	}
	return strings.Join(f, ", ")
}

// diffHeadline is the one-line summary: "3 tools changed: 5 changes, 1
// breaking, 1 security-relevant (readOnlyHint/destructiveHint flipped)".
func diffHeadline(d *SurfaceDiff) string {
	s := fmt.Sprintf("%s changed since the baseline: %s", plural(d.Tools, "tool"), plural(len(d.Changes), "change"))
	if d.Breaking > 0 {
		s += fmt.Sprintf(", %d breaking", d.Breaking)
	}
	if d.Security > 0 {
		s += fmt.Sprintf(", %d security-relevant (readOnlyHint or destructiveHint flipped)", d.Security)
	}
	return s
}

// byImportance orders the changes security first, then breaking, then as
// found (by tool); the summary and the comment show the ones that matter
// first when they cannot show all.
func byImportance(cs []SurfaceChange) []SurfaceChange {
	out := append([]SurfaceChange{}, cs...)
	rank := func(c SurfaceChange) int {
		switch {
		case c.Security:
			return 0
		case c.Breaking:
			return 1
		}
		return 2
	}
	sort.SliceStable(out, func(i, j int) bool { return rank(out[i]) < rank(out[j]) })
	return out
}

func (t *textWriter) surfaceDiff(r *Report) {
	d := r.SurfaceDiff
	if d == nil || len(d.Changes) == 0 {
		return
	}
	t.blank()
	t.line(t.paint(ansiBold, "tool surface"))
	t.line("  " + diffHeadline(d))
	cs := byImportance(d.Changes)
	for i, c := range cs {
		if i == textSurfaceMax {
			t.line(fmt.Sprintf("  … %d more changes in report.json (surfaceDiff)", len(cs)-i))
			break
		}
		mark := " "
		switch {
		case c.Security:
			mark = t.paint(ansiRed, "!")
		case c.Breaking:
			mark = t.paint(ansiYellow, "⚠")
		}
		l := fmt.Sprintf("  %s %s: %s", mark, oneLine(c.Tool, textIDMax), oneLine(changeText(c), textValueMax))
		if f := flags(c); f != "" {
			l += " [" + f + "]"
		}
		t.line(l)
	}
}

func (t *textWriter) selection(r *Report) {
	s := r.Selection
	if s == nil {
		return
	}
	t.blank()
	t.line(t.paint(ansiBold, "selection"))
	t.line("  " + selectionHeadline(s))
	for i, c := range s.Cases {
		if i == selectionWhyMax {
			t.line(fmt.Sprintf("  … %d more in report.json (selection)", len(s.Cases)-i))
			break
		}
		t.line(fmt.Sprintf("  ran %s: %s", oneLine(c.ID, textIDMax), oneLine(c.Why, textValueMax)))
	}
}

// selectionHeadline says how much ran and where the rest came from.
func selectionHeadline(s *Selection) string {
	total := s.Ran + s.Carried
	h := fmt.Sprintf("--%s: ran %d of %d (case, model) pairs; %d carried the verdict of %s", selectFlag(s.Mode), s.Ran, total, s.Carried, s.From)
	if s.Mode == SelectAffected {
		h += fmt.Sprintf(" (--sample %d, seed %s)", s.Sample, orDash(cutRunes(s.Seed, 12)))
	}
	return h
}

func selectFlag(mode string) string {
	if mode == SelectRerunFailed {
		return "rerun-failed"
	}
	return "select " + mode
}

func (m *mdWriter) surfaceDiff(r *Report) {
	d := r.SurfaceDiff
	if d == nil || len(d.Changes) == 0 {
		return
	}
	m.p("### Tool surface changes")
	m.p("")
	m.p("%s.", escapeMarkdown(diffHeadline(d)))
	m.p("")
	cs := byImportance(d.Changes)
	if len(cs) > mdSurfaceMax {
		// Summarised, not cut: the counts by kind, then the changes that
		// matter most.
		counts := map[string]int{}
		for _, c := range cs {
			counts[c.Kind]++
		}
		var parts []string
		for _, k := range sortedKeys(counts) {
			parts = append(parts, fmt.Sprintf("%s %d", k, counts[k]))
		}
		m.p("By kind: %s. The first %d, security and breaking first; all are in report.json (`surfaceDiff`).", escapeMarkdown(strings.Join(parts, ", ")), mdSurfaceMax)
		m.p("")
		cs = cs[:mdSurfaceMax]
	}
	m.tableHead("tool", "change", "before", "after", "")
	for _, c := range cs {
		before, after := c.Before, c.After
		m.row(codeSpan(c.Tool), escapeMarkdown(cutRunes(oneLine(changeText2(c), 0), mdCellMax)),
			escapeMarkdown(cutRunes(oneLine(before, 0), mdCellMax)), escapeMarkdown(cutRunes(oneLine(after, 0), mdCellMax)), mdFlags(c))
	}
	m.p("")
}

// changeText2 is changeText without the values, for a table that shows
// them in their own columns.
func changeText2(c SurfaceChange) string {
	c.Before, c.After = "", ""
	return changeText(c)
}

func mdFlags(c SurfaceChange) string {
	switch {
	case c.Security && c.Breaking:
		return "🔒 security, ⚠️ breaking"
	case c.Security:
		return "🔒 security"
	case c.Breaking:
		return "⚠️ breaking"
	}
	return ""
}

func (m *mdWriter) selection(r *Report) {
	s := r.Selection
	if s == nil {
		return
	}
	m.p("### Selection")
	m.p("")
	m.p("%s.", escapeMarkdown(selectionHeadline(s)))
	m.p("")
	if len(s.Cases) == 0 {
		return
	}
	m.tableHead("case that ran", "why")
	for i, c := range s.Cases {
		if i == mdSurfaceMax {
			m.row(fmt.Sprintf("… %d more in report.json", len(s.Cases)-i), "")
			break
		}
		m.row(codeSpan(c.ID), escapeMarkdown(cutRunes(oneLine(c.Why, 0), mdCellMax)))
	}
	m.p("")
}

// surfaceDiff is the comment's section on the tool surface: the headline,
// then the changes security and breaking first.
func (c commentBuilder) surfaceDiff() section {
	d := c.r.SurfaceDiff
	if d == nil || len(d.Changes) == 0 {
		return section{}
	}
	s := section{head: []string{"**Tool surface:** " + escapeMarkdown(diffHeadline(d)) + ".", ""}, tail: []string{""}, more: moreItems}
	for _, ch := range byImportance(d.Changes) {
		row := "- " + codeSpan(cutRunes(ch.Tool, commentIDMax)) + ": " + escapeMarkdown(cutRunes(oneLine(changeText(ch), 0), commentTextMax))
		if f := mdFlags(ch); f != "" {
			row += " — " + f
		}
		s.rows = append(s.rows, row)
	}
	capRows(&s, commentSurfaceMax)
	return s
}

// selectionLine is the comment's line on what ran, "" without a selection.
func (c commentBuilder) selectionLine() []string {
	if s := c.r.Selection; s != nil {
		return []string{"**Selection:** " + escapeMarkdown(selectionHeadline(s)) + ".", ""}
	}
	return nil
}

// caseRows are the case ids the summary's matrix lists, and how many it
// leaves out: every case up to mdCaseRowsMax; past it, the cases that did
// not pass on every model first (in order), then passing ones while room
// is left.
func (m *mdWriter) caseRows(mx caseMatrix) (ids []string, hidden int) {
	if len(mx.ids) <= mdCaseRowsMax {
		return mx.ids, 0
	}
	var bad, good []string
	for _, id := range mx.ids {
		ok := true
		for _, mo := range mx.models {
			if c, ran := mx.cell(id, mo); ran && m.j.kase(c) != outPass {
				ok = false
				break
			}
		}
		if ok {
			good = append(good, id)
		} else {
			bad = append(bad, id)
		}
	}
	ids = bad
	if len(ids) > mdCaseRowsMax {
		ids = ids[:mdCaseRowsMax]
	} else {
		ids = append(ids, good[:min(len(good), mdCaseRowsMax-len(ids))]...)
	}
	return ids, len(mx.ids) - len(ids)
}

// hiddenText says what the cases left out of the matrix are.
func (m *mdWriter) hiddenText(mx caseMatrix, shown []string) string {
	listed := make(map[string]bool, len(shown))
	for _, id := range shown {
		listed[id] = true
	}
	passing, other := 0, 0
	for _, id := range mx.ids {
		if listed[id] {
			continue
		}
		ok := true
		for _, mo := range mx.models {
			if c, ran := mx.cell(id, mo); ran && m.j.kase(c) != outPass {
				ok = false
			}
		}
		if ok {
			passing++
		} else {
			other++
		}
	}
	if other == 0 {
		return fmt.Sprintf("%d passed on every model", passing)
	}
	return fmt.Sprintf("%d passed on every model, %d did not", passing, other)
}

// modelTally is a table of the case outcomes per model, the summary of a
// matrix too big to list.
func (m *mdWriter) modelTally(r *Report, models []string) {
	type count struct{ cases, passed, failed, flaky, errored, skipped, carried int }
	by := map[string]*count{}
	for _, mo := range models {
		by[mo] = &count{}
	}
	for _, c := range r.Cases {
		n := by[c.Model]
		if n == nil {
			continue
		}
		n.cases++
		switch m.j.kase(c) {
		case outPass:
			n.passed++
		case outSkip:
			n.skipped++
		case outError:
			n.errored++
		default:
			n.failed++
		}
		if c.Flaky {
			n.flaky++
		}
		if c.Carried != nil {
			n.carried++
		}
	}
	m.tableHead("model", "cases", "passed", "failed", "flaky", "errored", "skipped", "carried")
	for _, mo := range models {
		n := by[mo]
		m.row(codeSpan(mo), fmt.Sprint(n.cases), fmt.Sprint(n.passed), fmt.Sprint(n.failed), fmt.Sprint(n.flaky), fmt.Sprint(n.errored), fmt.Sprint(n.skipped), fmt.Sprint(n.carried))
	}
	m.p("")
}

// blank writes an empty line unless the output already ends with one.
func (t *textWriter) blank() {
	if !bytes.HasSuffix(t.buf.Bytes(), []byte("\n\n")) {
		t.line("")
	}
}
