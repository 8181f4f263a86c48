package report

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcp-eval/mcp-eval/internal/clip"
)

// Limits that keep summary.md well under GitHub's 1 MiB step-summary cap
// even for a server that answers with huge errors.
const (
	mdEvidenceMax = 8000 // bytes of pretty-printed evidence per check
	mdCellMax     = 300  // runes of a message in a table cell
	mdMessageMax  = 2000 // runes of a message or info under a finding
	mdCodeSpanMax = 300  // runes of an identifier that is not plain (tool names, targets)
	mdListMax     = 100  // ids in one list of the gate (regressions, fixed, …)
	// mdEvidenceBudget is how many bytes of evidence the whole summary
	// shows; past it a finding points at report.json instead.
	mdEvidenceBudget = 256 << 10
	// A golden set of thousands of cases on several models (a sharded
	// nightly run) is summarised rather than listed: the case matrix shows
	// at most mdCaseRowsMax cases, those that did not pass everywhere
	// first, after a tally per model; the reasons of at most
	// mdCaseReasonsMax pairs are shown; the per-case scores only up to
	// mdCaseScoresMax pairs. 10 000 cases × 6 models then take about
	// 200 KiB, within the 1 MiB step summary.
	mdCaseRowsMax    = 300
	mdReasonsMax     = 100
	mdCaseReasonsMax = 60
	mdCaseScoresMax  = 600
)

// WriteMarkdown writes summary.md, the human report that also becomes the
// GitHub job summary: a status line, the server, what a legacy server must
// change, failures and warnings with their evidence, every check by group,
// the golden cases, scores, telemetry and the gate.
//
// Everything that came from the server or a model is untrusted: it is
// escaped with escapeMarkdown in text and tables, and shown raw only inside
// fenced code blocks sized by codeFence.
func WriteMarkdown(w io.Writer, r *Report) error {
	r = normalized(r)
	var b bytes.Buffer
	m := &mdWriter{b: &b, j: newJudge(r)}
	m.status(r)
	m.whatFailed(r)
	m.server(r)
	if len(r.Server.Migration) > 0 {
		m.migration(r)
	}
	m.findings(r, "Failures", func(o outcome) bool { return o == outFail || o == outError })
	m.findings(r, "Warnings", func(o outcome) bool { return o == outWarn || o == outSoftError })
	if len(r.Checks) > 0 {
		m.checks(r)
	}
	m.surfaceDiff(r)
	m.selection(r)
	if len(r.Cases) > 0 {
		m.cases(r)
	}
	if len(r.Scores) > 0 || len(r.ScoresByModel) > 0 {
		m.scores(r)
	}
	if len(r.History) >= 2 {
		m.trend(r.History)
	}
	if r.Telemetry != nil && (len(r.Telemetry.ToolCalls) > 0 || len(r.Telemetry.Models) > 0) {
		m.telemetry(r.Telemetry)
	}
	if r.Gate != nil {
		m.gate(r.Gate)
	}
	_, err := w.Write(b.Bytes())
	return err
}

type mdWriter struct {
	b *bytes.Buffer
	j judge
	// evidence counts the bytes of evidence written so far.
	evidence int
}

func (m *mdWriter) p(format string, args ...any) {
	fmt.Fprintf(m.b, format, args...)
	m.b.WriteByte('\n')
}

// row writes one table row; cells must already be escaped.
func (m *mdWriter) row(cells ...string) {
	m.b.WriteString("|")
	for _, c := range cells {
		m.b.WriteString(" " + c + " |")
	}
	m.b.WriteByte('\n')
}

func (m *mdWriter) tableHead(cells ...string) {
	m.row(cells...)
	seps := make([]string, len(cells))
	for i := range seps {
		seps[i] = "---"
	}
	m.row(seps...)
}

// modelHead is tableHead with a column per model after cols.
func (m *mdWriter) modelHead(models []string, cols ...string) {
	for _, mo := range models {
		cols = append(cols, codeSpan(mo))
	}
	m.tableHead(cols...)
}

var mdMarks = map[outcome]string{
	outPass:  "✅ pass",
	outFail:  "❌ fail",
	outWarn:  "⚠️ warning",
	outSkip:  "⏭️ skip",
	outError: "❗ error",

	outSoftError: "❗ error",
}

func (m *mdWriter) status(r *Report) {
	verdict := "✅ mcp-eval passed"
	if !r.Passed() {
		verdict = "❌ mcp-eval failed"
	}
	m.p("## %s", verdict)
	m.p("")
	checks, cases := tallies(r)
	m.p("- **Checks:** %s · %s", checks, passRateText(r))
	if len(r.Cases) > 0 {
		m.p("- **Cases:** %s%s", cases, draftNote(r))
	}
	if r.Gate != nil {
		if r.Gate.Passed {
			m.p("- **Gate:** passed")
		} else {
			m.p("- **Gate:** failed (%d reasons)", len(r.Gate.Reasons))
		}
	}
	if j := judgeText(r.Judge); j != "" {
		m.p("- **Judge:** %s", escapeMarkdown(j))
	}
	if r.Strict {
		m.p("- Run with `--strict`: warnings fail the run.")
	}
	m.p("")
	if r.Interrupted != "" {
		m.p("> [!WARNING]")
		m.p("> Interrupted by %s. This report is partial.", escapeMarkdown(cutRunes(r.Interrupted, mdMessageMax)))
		m.p("")
	}
}

func (m *mdWriter) server(r *Report) {
	s := r.Server
	// Folded: the verdict and what failed come first.
	m.p("<details><summary>The server and the run</summary>")
	m.p("")
	m.tableHead("server", "")
	m.row("target", codeSpan(s.Target))
	if name := serverName(s.ServerInfo); name != "" {
		m.row("server", escapeMarkdown(name))
	}
	m.row("transport", escapeMarkdown(s.Transport))
	m.row("era", escapeMarkdown(s.Era))
	m.row("protocol version", escapeMarkdown(orDash(s.ProtocolVersion)))
	vs := make([]string, len(s.SupportedVersions))
	for i, v := range s.SupportedVersions {
		vs[i] = codeSpan(v)
	}
	m.row("supported versions", orDash(strings.Join(vs, ", ")))
	if s.Fingerprint != "" {
		m.row("fingerprint", codeSpan(s.Fingerprint))
	}
	if r.Commit != "" {
		m.row("commit", codeSpan(r.Commit))
	}
	if len(r.Layers) > 0 {
		m.row("layers", escapeMarkdown(strings.Join(r.Layers, ", ")))
	}
	tool := strings.TrimSpace(r.Tool.Name + " " + r.Tool.Version)
	if tool != "" {
		m.row("tool", escapeMarkdown(tool))
	}
	if r.DurationMs > 0 {
		m.row("duration", fmt.Sprintf("%.1f s", float64(r.DurationMs)/1000))
	}
	m.p("")
	m.p("</details>")
	m.p("")
}

func (m *mdWriter) migration(r *Report) {
	m.p("### Migrating to 2026-07-28")
	m.p("")
	m.p("This server speaks an earlier revision of MCP. To serve 2026-07-28 it needs to:")
	m.p("")
	for _, item := range r.Server.Migration {
		m.p("- %s", escapeMarkdown(cutRunes(item, mdMessageMax)))
	}
	m.p("")
	if legacyHint(r) {
		m.p("> [!TIP]")
		m.p("> To gate this server on %s while it migrates, run with `--protocol-version %s` (the Action's `protocol-version` input): only what applies to that revision is checked, and the rest is skipped with the reason.", LegacyVersion, LegacyVersion)
		m.p("")
	}
}

// findings lists the checks selected by keep with their message and folded
// evidence.
func (m *mdWriter) findings(r *Report, title string, keep func(outcome) bool) {
	var cs []Check
	for _, c := range r.Checks {
		if keep(m.j.check(c)) {
			cs = append(cs, c)
		}
	}
	if len(cs) == 0 {
		return
	}
	m.p("### %s (%d)", title, len(cs))
	m.p("")
	for _, g := range foldCauses(cs, m.j.check) {
		if len(g) > 1 {
			m.cause(g)
			continue
		}
		c := g[0]
		oc := m.j.check(c)
		mark, _, _ := strings.Cut(mdMarks[oc], " ")
		head := mark + " " + codeSpan(c.ID)
		if c.Title != "" {
			head += " — " + escapeMarkdown(c.Title)
		}
		m.p("#### %s", head)
		m.p("")
		meta := []string{"**" + escapeMarkdown(string(c.Level)) + "**", "group " + codeSpan(groupName(c))}
		if c.Runs > 0 {
			meta = append(meta, fmt.Sprintf("%d/%d runs passed", c.Passed, c.Runs))
		}
		if c.SpecRef != "" {
			meta = append(meta, "spec: "+specLink(c.SpecRef))
		}
		m.p("%s", strings.Join(meta, " · "))
		m.p("")
		if msg := bareMessage(c); msg != "" {
			// The runs are on the line above.
			m.p("%s", escapeMarkdown(cutRunes(msg, mdMessageMax)))
			m.p("")
		}
		if c.Info != "" {
			m.p("Info: %s", escapeMarkdown(cutRunes(c.Info, mdMessageMax)))
			m.p("")
		}
		if reason, ok := m.j.waiver(c.ID); ok {
			m.p("Waived: %s", escapeMarkdown(orDash(reason)))
			m.p("")
		}
		if hasEvidence(c.Evidence) {
			if m.evidence >= mdEvidenceBudget {
				m.p("Evidence omitted to keep the summary within its size limit; it is in report.json.")
				m.p("")
				continue
			}
			m.details("evidence", indentEvidence(c.Evidence), "json")
		}
	}
}

// cause writes failures that share one cause (causeKey) as one finding:
// the cause, a row per check, and the first one's evidence.
func (m *mdWriter) cause(g []Check) {
	mark, _, _ := strings.Cut(mdMarks[m.j.check(g[0])], " ")
	headline := bareMessage(g[0])
	m.p("#### %s %d findings, one cause: %s", mark, len(g), escapeMarkdown(cutRunes(oneLine(headline, 0), mdCellMax)))
	m.p("")
	m.tableHead("check", "level", "runs", "message")
	for _, c := range g {
		id := codeSpan(c.ID)
		if c.Title != "" {
			id += " — " + escapeMarkdown(c.Title)
		}
		runs := "–"
		if c.Runs > 0 {
			runs = fmt.Sprintf("%d/%d", c.Passed, c.Runs)
		}
		msg := "the same"
		if b := bareMessage(c); b != headline {
			msg = escapeMarkdown(cutRunes(b, mdCellMax))
		}
		if reason, ok := m.j.waiver(c.ID); ok {
			msg += " (waived: " + escapeMarkdown(cutRunes(orDash(reason), mdCellMax)) + ")"
		}
		m.row(id, "**"+escapeMarkdown(string(c.Level))+"**", runs, msg)
	}
	m.p("")
	if hasEvidence(g[0].Evidence) {
		if m.evidence >= mdEvidenceBudget {
			m.p("Evidence omitted to keep the summary within its size limit; it is in report.json.")
			m.p("")
			return
		}
		m.details("evidence of "+codeSpan(g[0].ID)+" (the others' is in report.json)", indentEvidence(g[0].Evidence), "json")
	}
}

// details writes a folded fenced code block. The summary text is ours; body
// is untrusted and only ever appears inside the fence.
func (m *mdWriter) details(summary, body, lang string) {
	body, cut := clip.Prefix(body, mdEvidenceMax)
	m.evidence += len(body)
	fence := codeFence(body)
	m.p("<details><summary>%s</summary>", summary)
	m.p("")
	m.p("%s%s", fence, lang)
	m.p("%s", body)
	m.p("%s", fence)
	m.p("")
	if cut {
		m.p("Evidence truncated; the full text is in report.json.")
		m.p("")
	}
	m.p("</details>")
	m.p("")
}

func (m *mdWriter) checks(r *Report) {
	m.p("### Checks")
	m.p("")
	for _, g := range groupChecks(r.Checks) {
		var t tally
		for _, c := range g.checks {
			t.add(m.j.check(c))
		}
		m.p("#### %s (%s)", escapeMarkdown(g.name), groupTally(t, len(g.checks)))
		m.p("")
		m.tableHead("check", "status", "runs", "message")
		// Checks skipped for one reason share a row: a legacy or stdio
		// server skips whole groups, and one reason said once is enough.
		skipped := map[string][]string{}
		for _, c := range g.checks {
			if m.j.check(c) == outSkip {
				skipped[c.Message] = append(skipped[c.Message], codeSpan(c.ID))
			}
		}
		for _, c := range g.checks {
			oc := m.j.check(c)
			if ids := skipped[c.Message]; oc == outSkip && len(ids) > 1 {
				if ids[0] == codeSpan(c.ID) {
					m.row(strings.Join(ids, ", "), mdMarks[oc], "–", escapeMarkdown(cutRunes(c.Message, mdCellMax)))
				}
				continue
			}
			runs := "–"
			if oc != outSkip && c.Runs > 0 {
				runs = fmt.Sprintf("%d/%d", c.Passed, c.Runs)
			}
			msg := bareMessage(c) // the runs have a column
			if c.Info != "" {
				if msg != "" {
					msg += " "
				}
				msg += "(info: " + c.Info + ")"
			}
			status := mdMarks[oc]
			if _, ok := m.j.waiver(c.ID); ok {
				status = "⚠️ waived"
			}
			m.row(codeSpan(c.ID), status, runs, escapeMarkdown(cutRunes(msg, mdCellMax)))
		}
		m.p("")
	}
}

// groupTally says how a group of n checks went: passed over those that
// ran, and the skipped ones apart, so that a group the server does not
// support reads "all 13 skipped", not "0/13 passed".
func groupTally(t tally, n int) string {
	switch ran := n - t.skipped; {
	case ran == 0 && n == 1:
		return "skipped"
	case ran == 0:
		return fmt.Sprintf("all %d skipped", n)
	case t.skipped > 0:
		return fmt.Sprintf("%d/%d passed, %d skipped", t.passed, ran, t.skipped)
	default:
		return fmt.Sprintf("%d/%d passed", t.passed, ran)
	}
}

// specURL matches the spec references mcp-eval's checks carry: an https
// URL of plain characters, which can be a link as it is.
var specURL = regexp.MustCompile(`^https://[A-Za-z0-9.-]+(/[A-Za-z0-9._~/%-]*)?(#[A-Za-z0-9._~%-]*)?$`)

// specLink renders a spec reference as a link GitHub makes clickable, with
// the page and anchor as its text; anything else is escaped text.
func specLink(ref string) string {
	if !specURL.MatchString(ref) || len(ref) > 500 {
		return escapeMarkdown(ref)
	}
	text := ref[strings.Index(ref, "://")+3:]
	if i := strings.Index(text, "/specification/"); i >= 0 {
		text = text[i+len("/specification/"):]
	}
	return "[" + escapeMarkdown(text) + "](" + ref + ")"
}

// moreText is " and N more" for N > 0, else "".
func moreText(n int) string {
	if n <= 0 {
		return ""
	}
	return fmt.Sprintf(" and %d more", n)
}

// cutRunes cuts s to max runes, ending in "…". It reads no further than
// the cut, so a megabyte string costs no more than a short one.
func cutRunes(s string, max int) string {
	n := 0
	for i := range s {
		if n == max {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

func (m *mdWriter) cases(r *Report) {
	mx := newCaseMatrix(r.Cases)
	m.p("### Cases")
	m.p("")
	ids, hidden := m.caseRows(mx)
	if hidden > 0 {
		m.modelTally(r, mx.models)
	}
	m.modelHead(mx.models, "case", "kind")
	explained := false // an interval or "flaky" was shown
	for _, id := range ids {
		cells := []string{codeSpan(id), escapeMarkdown(mx.first[id].Kind)}
		for _, mo := range mx.models {
			c, ok := mx.cell(id, mo)
			if !ok {
				cells = append(cells, "–")
				continue
			}
			oc := m.j.kase(c)
			mark, _, _ := strings.Cut(mdMarks[oc], " ")
			if oc == outSkip {
				cells = append(cells, mark+" skipped")
				continue
			}
			cell := fmt.Sprintf("%s %d/%d (%s", mark, c.Passed, c.Runs, percent(c.PassRate))
			if c.Status != StatusPass {
				cell += ", floor " + percent(c.Floor)
			}
			if ci := caseInterval(c); ci != "" {
				cell += "; " + ci
				explained = true
			}
			cell += ")"
			if f := flakyText(c); f != "" {
				cell += ", **" + f + "**"
				explained = true
			}
			if c.Errored > 0 {
				cell += fmt.Sprintf(", %d errored", c.Errored)
			}
			if c.Carried != nil {
				cell += ", carried"
			}
			cells = append(cells, cell)
		}
		m.row(cells...)
	}
	m.p("")
	if hidden > 0 {
		m.p("%d more cases are not listed (%s); report.json lists every case.", hidden, m.hiddenText(mx, ids))
		m.p("")
	}
	if explained {
		m.p("%s", intervalNote)
		m.p("")
	}
	if j := r.Judge; j != nil && len(j.SelfGraded) > 0 {
		m.p("> [!WARNING]")
		m.p("> %s", escapeMarkdown(selfGradedText(j)))
		m.p("")
	}
	if j := r.Judge; j != nil && j.Calls > 0 {
		cost := "cost unknown"
		if j.CostUSD != nil {
			cost = fmt.Sprintf("$%.4f", *j.CostUSD)
		}
		m.p("Judge %s: %d calls, %d tokens in, %d out, %s (apart from the models under test).", codeSpan(j.Judges()), j.Calls, j.InputTokens, j.OutputTokens, cost)
		m.p("")
	}
	m.caseReasons(r)
	if len(r.Cases) > mdCaseScoresMax {
		m.p("Per-case scores of the %d (case, model) pairs are in report.json, not listed here.", len(r.Cases))
		m.p("")
		return
	}
	m.p("<details><summary>Per-case scores</summary>")
	m.p("")
	m.tableHead("case", "model", "selection", "arguments", "sequence", "judge")
	for _, c := range r.Cases {
		m.row(codeSpan(c.ID), codeSpan(c.Model), optScore(c.Selection), optScore(c.Arguments), optScore(c.Sequence), optScore(c.Judge))
	}
	m.p("")
	m.p("</details>")
	m.p("")
}

// caseReasons writes, for every case that did not pass, a folded list of
// why its runs failed or errored (the model's and server's text stays
// inside a code fence) and links to the transcripts written beside the
// summary.
func (m *mdWriter) caseReasons(r *Report) {
	shown, more := 0, 0
	defer func() {
		if more > 0 {
			m.p("Why %d more (case, model) pairs did not pass is not listed: see report.json (`failures`, `errors`) and the transcripts.", more)
			m.p("")
		}
	}()
	for _, c := range r.Cases {
		oc := m.j.kase(c)
		if oc == outPass || len(c.Failures)+len(c.Errors) == 0 && c.Skipped == "" {
			continue
		}
		if shown == mdCaseReasonsMax {
			more++
			continue
		}
		shown++
		mark, _, _ := strings.Cut(mdMarks[oc], " ")
		var body strings.Builder
		if c.Skipped != "" {
			body.WriteString("skipped: " + c.Skipped + "\n")
		}
		for _, f := range c.Failures {
			body.WriteString("failed " + f + "\n")
		}
		for _, e := range c.Errors {
			body.WriteString("errored " + e + "\n")
		}
		summary := fmt.Sprintf("%s %s on %s: why %d of %d runs did not pass", mark, codeSpan(c.ID), codeSpan(c.Model), c.Runs-c.Passed, c.Runs)
		if c.Status == StatusSkip {
			summary = fmt.Sprintf("%s %s on %s: skipped", mark, codeSpan(c.ID), codeSpan(c.Model))
		}
		m.details(summary, strings.TrimSuffix(body.String(), "\n"), "text")
		var links []string
		for _, p := range c.Transcripts {
			if safeRelPath.MatchString(p) {
				links = append(links, fmt.Sprintf("[%s](%s)", strings.TrimSuffix(p[strings.LastIndexByte(p, '/')+1:], ".json"), p))
			}
		}
		if len(links) > 0 {
			m.p("Transcripts of %s on %s: %s", codeSpan(c.ID), codeSpan(c.Model), strings.Join(links, " · "))
			m.p("")
		}
	}
}

// safeRelPath is what a transcript link may look like: a relative path of
// plain characters, nothing Markdown or a URL would read specially.
var safeRelPath = regexp.MustCompile(`^transcripts/[A-Za-z0-9._@-]+(/[A-Za-z0-9._@-]+)*\.json$`)

func (m *mdWriter) scores(r *Report) {
	keys := map[string]bool{}
	for k := range r.Scores {
		keys[k] = true
	}
	for _, byModel := range r.ScoresByModel {
		for k := range byModel {
			keys[k] = true
		}
	}
	models := sortedKeys(r.ScoresByModel)
	m.p("### Scores")
	m.p("")
	m.modelHead(models, "score", "all")
	for _, k := range sortedKeys(keys) {
		cells := []string{codeSpan(k), scoreCell(r.Scores, k)}
		for _, mo := range models {
			cells = append(cells, scoreCell(r.ScoresByModel[mo], k))
		}
		m.row(cells...)
	}
	m.p("")
}

func scoreCell(m map[string]float64, k string) string {
	v, ok := m[k]
	if !ok {
		return "–"
	}
	return score(v)
}

func (m *mdWriter) telemetry(t *Telemetry) {
	m.p("### Telemetry")
	m.p("")
	if len(t.ToolCalls) > 0 {
		m.tableHead("tool", "calls", "p50 ms", "p95 ms")
		for _, k := range sortedKeys(t.ToolCalls) {
			l := t.ToolCalls[k]
			m.row(codeSpan(k), fmt.Sprint(l.Count), fmt.Sprintf("%.0f", l.P50Ms), fmt.Sprintf("%.0f", l.P95Ms))
		}
		m.p("")
	}
	if len(t.Models) > 0 {
		m.tableHead("model", "p50 ms", "p95 ms", "tokens in", "tokens out", "cost USD")
		for _, k := range sortedKeys(t.Models) {
			u := t.Models[k]
			cost := fmt.Sprintf("%.4f", u.CostUSD)
			if u.CostUnknown {
				cost = "unknown" // never shown as $0
			}
			in, out := fmt.Sprint(u.InputTokens), fmt.Sprint(u.OutputTokens)
			if u.TokensUnknown { // never a 0 that was not measured
				in, out = "≥ "+in, "≥ "+out
				if u.InputTokens == 0 && u.OutputTokens == 0 {
					in, out = "unknown", "unknown"
				}
			}
			m.row(codeSpan(k), fmt.Sprintf("%.0f", u.P50Ms), fmt.Sprintf("%.0f", u.P95Ms), in, out, cost)
		}
		m.p("")
	}
}

func (m *mdWriter) gate(g *Gate) {
	if g.Passed {
		m.p("### Gate: ✅ passed")
	} else {
		m.p("### Gate: ❌ failed")
	}
	m.p("")
	if g.Baseline == "" {
		m.p("No baseline was found: only the absolute floors were applied.")
	} else {
		m.p("Baseline: %s", escapeMarkdown(cutRunes(g.Baseline, mdMessageMax)))
	}
	m.p("")
	if len(g.Reasons) > 0 {
		// Listed once, under What failed at the top.
		m.p("- ❌ %s: under *What failed* at the top.", plural(len(g.Reasons), "reason"))
		m.p("")
	}
	switch {
	case len(g.Scores) > 0:
		m.tableHead("score", "baseline", "current", "Δ", "")
		for _, s := range g.Scores {
			delta := "–"
			if s.Base != nil && s.Current != nil {
				delta = fmt.Sprintf("%+.3f", s.Delta)
			}
			verdict := "✅"
			if s.Failed {
				verdict = "❌"
			} else if s.Drop || s.BelowFloor || s.Drift {
				verdict = "⚠️"
			}
			if notes := gateScoreNotes(s); notes != "" {
				verdict += " " + notes
			}
			m.row(codeSpan(s.Key), optScore(s.Base), optScore(s.Current), delta, verdict)
		}
		m.p("")
	case len(g.Deltas) > 0:
		m.tableHead("score", "Δ vs baseline")
		for _, k := range sortedKeys(g.Deltas) {
			m.row(codeSpan(k), fmt.Sprintf("%+.3f", g.Deltas[k]))
		}
		m.p("")
	}
	if g.DriftMessage != "" {
		m.p("**Model drift:** %s", escapeMarkdown(cutRunes(g.DriftMessage, mdMessageMax)))
		m.p("")
	}
	if lines := statisticsLines(g.Statistics, 10); len(lines) > 0 {
		for _, l := range lines {
			m.p("- 📐 %s", escapeMarkdown(cutRunes(l, mdMessageMax)))
		}
		m.p("")
	}
	items := []struct {
		title string
		list  []GateItem
	}{
		{"Regressions", g.Regressions}, {"New failures", g.New}, {"Still failing", g.StillFailing},
		{"Fixed", g.Fixed}, {"Waived", g.Waived},
	}
	for _, it := range items {
		if len(it.list) == 0 {
			continue
		}
		shown := it.list[:min(len(it.list), mdListMax)]
		names := make([]string, len(shown))
		for i, gi := range shown {
			names[i] = codeSpan(gi.Key())
			if it.title == "Waived" && gi.WaiverReason != "" {
				names[i] += " (" + escapeMarkdown(cutRunes(gi.WaiverReason, mdCellMax)) + ")"
			} else if gi.Status == StatusError && it.title != "Fixed" {
				names[i] += " (error)" // errored, not failed: report.json's status
			}
		}
		m.p("- **%s (%d):** %s%s", it.title, len(it.list), strings.Join(names, ", "), moreText(len(it.list)-len(shown)))
	}
	for _, w := range []struct {
		title string
		ids   []string
	}{{"Stale waivers", g.StaleWaivers}, {"Expired waivers", g.ExpiredWaivers}} {
		if len(w.ids) == 0 {
			continue
		}
		shown := w.ids[:min(len(w.ids), mdListMax)]
		names := make([]string, len(shown))
		for i, id := range shown {
			names[i] = codeSpan(id)
		}
		m.p("- **%s (%d):** %s%s", w.title, len(w.ids), strings.Join(names, ", "), moreText(len(w.ids)-len(shown)))
	}
	for _, n := range g.Notes {
		m.p("- ℹ️ %s", escapeMarkdown(cutRunes(n, mdMessageMax)))
	}
	m.p("")
}

// safeCode matches text that can go in a code span as it is: ids, versions,
// model names, hashes, URLs. GitHub neither links nor mentions inside code
// spans. Anything else goes through escapeMarkdown.
var safeCode = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._/:@+-]*$`)

// codeSpan renders a short identifier as inline code when that is safe, else
// as escaped text.
func codeSpan(s string) string {
	if len(s) <= 200 && safeCode.MatchString(s) {
		return "`" + s + "`"
	}
	return escapeMarkdown(cutRunes(s, mdCodeSpanMax))
}

// zwj is inserted after '@' (and '#' before a digit) so that GitHub does not
// turn server text into a mention or an issue reference; it is invisible.
const zwj = "\u200d"

// escapeMarkdown makes untrusted text safe for one line of GitHub Markdown,
// in a paragraph or a table cell. It returns a single line with no raw HTML,
// no Markdown syntax, no cell separator, no @mention, no issue reference and
// no workflow command:
//   - line breaks and tabs become spaces, other control and bidi characters
//     are dropped, invalid UTF-8 becomes U+FFFD, and the ends are trimmed;
//   - < > & become entities, so no tag or entity of the input survives;
//   - \ ` * _ [ ] | ~ $ get a backslash (GitHub escapes | even in tables);
//   - a leading - + = # : and the dot of a leading "1." are escaped, so the
//     text cannot open a list, heading or rule, nor start with "::";
//   - the ':' of "://" is escaped, so a URL is not turned into a link;
//   - '@', and '#' before a digit, are followed by a zero-width joiner.
func escapeMarkdown(s string) string {
	t := cleanLine(s)
	listDot := orderedListDot(t)
	var b strings.Builder
	for i, r := range t {
		if r < utf8.RuneSelf && mdAlways[r] != "" {
			b.WriteString(mdAlways[r])
			continue
		}
		escapeAt(&b, t, i, r, listDot)
	}
	return b.String()
}

// mdAlways is what escapeMarkdown writes for the ASCII characters it
// escapes wherever they stand ("" for the others).
var mdAlways = func() (m [utf8.RuneSelf]string) {
	m['<'], m['>'], m['&'] = "&lt;", "&gt;", "&amp;"
	for _, c := range "\\`*_[]|~$" {
		m[c] = `\` + string(c)
	}
	m['@'] = "@" + zwj
	return m
}()

// cleanLine is s as one line: line breaks and tabs become spaces, other
// control and bidi characters are dropped, invalid UTF-8 becomes U+FFFD,
// and the ends are trimmed.
func cleanLine(s string) string {
	var clean strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == utf8.RuneError && size == 1:
			clean.WriteRune('\ufffd')
		case r == '\n' || r == '\r' || r == '\t' || r == '\v' || r == '\f' ||
			r == '\u0085' || r == '\u2028' || r == '\u2029':
			clean.WriteByte(' ')
		case unicode.IsControl(r) || isBidiControl(r):
		default:
			clean.WriteRune(r)
		}
	}
	// TrimSpace uses the same notion of space as the Actions runner, which
	// trims leading white space before it looks for "::".
	return strings.TrimSpace(clean.String())
}

// orderedListDot is the index of the '.' or ')' that would make t an
// ordered list item ("1. x"), or -1.
func orderedListDot(t string) int {
	if d := strings.IndexFunc(t, func(r rune) bool { return r < '0' || r > '9' }); d > 0 && d <= 9 && (t[d] == '.' || t[d] == ')') {
		return d
	}
	return -1
}

// escapeAt writes r, at index i of t, escaped where its place makes it
// Markdown or a reference: at the start of the line, before a digit, in
// "://", or as the dot of an ordered list item (listDot).
func escapeAt(b *strings.Builder, t string, i int, r rune, listDot int) {
	switch r {
	case '#':
		if i == 0 {
			b.WriteByte('\\')
		}
		b.WriteByte('#')
		if i+1 < len(t) && t[i+1] >= '0' && t[i+1] <= '9' {
			b.WriteString(zwj)
		}
		return
	case ':':
		// A leading ':' could start a workflow command; "://" would
		// let GitHub autolink a server-chosen URL.
		if i == 0 || strings.HasPrefix(t[i+1:], "//") {
			b.WriteByte('\\')
		}
	case '-', '+', '=':
		if i == 0 {
			b.WriteByte('\\')
		}
	case '.', ')':
		if i == listDot {
			b.WriteByte('\\')
		}
	}
	b.WriteRune(r)
}

// codeFence returns a backtick fence for a fenced code block holding
// content: longer than any run of backticks inside it (and at least three),
// so the content cannot close the block early.
func codeFence(content string) string {
	longest, run := 0, 0
	for i := 0; i < len(content); i++ {
		if content[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

// EscapeMarkdown makes untrusted text (from a server, a model or an API)
// safe inside Markdown: the same escaping every renderer here applies, for
// callers that add lines of their own to a summary.
func EscapeMarkdown(s string) string { return escapeMarkdown(s) }

// draftNote says how many of the report's golden cases are drafts
// (draft: true, written by mcp-eval init): "" when none is.
func draftNote(r *Report) string {
	ids := map[string]bool{}
	for _, c := range r.Cases {
		if c.Draft {
			ids[c.ID] = true
		}
	}
	switch n := len(ids); n {
	case 0:
		return ""
	case 1:
		return " · 1 golden case is a draft (draft: true): edit it, then remove the mark"
	default:
		return fmt.Sprintf(" · %d golden cases are drafts (draft: true): edit them, then remove the mark", n)
	}
}
