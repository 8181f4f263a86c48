package report

import (
	"fmt"
	"strings"
)

// What a reader sees first: summary.md, the PR comment and report.html
// open with the verdict and what failed, one line an item, before any
// detail; the gate's reasons (a sentence each, often alike: one per soft
// case below its floor) are folded under them.

// firstScreenMax is how many failed items the opening lists; the rest are
// counted, and listed in the sections below.
const firstScreenMax = 20

// failedItem is one check or case that failed or errored.
type failedItem struct {
	mark string // ❌ failed, ❗ errored
	// md is the item in Markdown (escaped); text the same as plain text.
	md, text string
}

// failedItems are the checks, then the cases, that failed or errored,
// each with its level or runs and the first line of why.
func failedItems(r *Report, j judge) []failedItem {
	var out []failedItem
	mark := func(oc outcome) string {
		if oc == outError {
			return "❗"
		}
		return "❌"
	}
	for _, c := range r.Checks {
		oc := j.check(c)
		if oc != outFail && oc != outError {
			continue
		}
		msg := cutRunes(oneLine(bareMessage(c), 0), mdCellMax)
		item := failedItem{mark: mark(oc),
			md:   fmt.Sprintf("%s (**%s**)", codeSpan(c.ID), escapeMarkdown(string(c.Level))),
			text: fmt.Sprintf("%s (%s)", c.ID, c.Level)}
		if msg != "" {
			item.md += ": " + escapeMarkdown(msg)
			item.text += ": " + msg
		}
		out = append(out, item)
	}
	for _, c := range r.Cases {
		oc := j.kase(c)
		if oc != outFail && oc != outError {
			continue
		}
		why := decisionShort(c)
		if why == "" || strings.HasPrefix(why, "look ") {
			why = "floor " + percent(c.FloorOrDefault())
		}
		runs := fmt.Sprintf("%d/%d runs passed (%s), %s", c.Passed, c.Runs, percent(c.PassRate), why)
		if c.Errored > 0 {
			runs += fmt.Sprintf(", %d errored", c.Errored)
		}
		out = append(out, failedItem{mark: mark(oc),
			md:   fmt.Sprintf("case %s on %s: %s", codeSpan(c.ID), codeSpan(c.Model), escapeMarkdown(runs)),
			text: fmt.Sprintf("case %s on %s: %s", c.ID, c.Model, runs)})
	}
	return out
}

// whatFailed writes summary.md's opening list: the failed checks and
// cases, or, when the gate failed on something else (a score's drop, a
// stale waiver), its reasons; then the gate's reasons folded.
func (m *mdWriter) whatFailed(r *Report) {
	items := failedItems(r, m.j)
	g := r.Gate
	gateFailed := g != nil && !g.Passed && len(g.Reasons) > 0
	if len(items) == 0 && !gateFailed {
		return
	}
	m.p("### What failed")
	m.p("")
	for i, it := range items {
		if i == firstScreenMax {
			m.p("- … and %d more: the sections below list them all", len(items)-i)
			break
		}
		m.p("- %s %s", it.mark, it.md)
	}
	if len(items) == 0 {
		for i, reason := range g.Reasons {
			if i == firstScreenMax {
				m.p("- … and %d more reasons: report.json (`gate.reasons`) lists them all", len(g.Reasons)-i)
				break
			}
			m.p("- ❌ %s", escapeMarkdown(cutRunes(oneLine(reason, 0), mdMessageMax)))
		}
		m.p("")
		return
	}
	m.p("")
	if gateFailed {
		m.p("<details><summary>Why the gate failed (%s)</summary>", plural(len(g.Reasons), "reason"))
		m.p("")
		for i, reason := range g.Reasons {
			if i == mdReasonsMax {
				m.p("- … %d more reasons, one per failing item: report.json (`gate.reasons`) lists them all", len(g.Reasons)-i)
				break
			}
			m.p("- ❌ %s", escapeMarkdown(cutRunes(reason, mdMessageMax)))
		}
		m.p("")
		m.p("</details>")
		m.p("")
	}
}

// whatFailed is the comment's list of failed checks and cases, the same
// lines as summary.md's.
func (c commentBuilder) whatFailed() section {
	items := failedItems(c.r, c.j)
	if len(items) == 0 {
		return section{}
	}
	s := section{head: []string{fmt.Sprintf("**What failed (%d):**", len(items)), ""}, tail: []string{""}, more: moreItems}
	for _, it := range items {
		s.rows = append(s.rows, "- "+it.mark+" "+it.md)
	}
	capRows(&s, commentReasonsMax)
	return s
}
