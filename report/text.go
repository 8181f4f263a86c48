package report

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// TextOptions controls WriteText.
type TextOptions struct {
	// Color adds ANSI colours. The caller decides (a terminal, NO_COLOR);
	// WriteText never looks at its writer.
	Color bool
	// Verbose shows evidence and info for passing checks too.
	Verbose bool
	// Quiet prints only what fails the run, and the tally.
	Quiet bool
	// GateOnly prints the gate's work in full (the baseline's origin, the
	// rules, every reason, delta and note) and the tally, without the
	// checks and cases: mcp-eval gate.
	GateOnly bool
}

const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiDim    = "\x1b[2m"
	ansiRed    = "\x1b[31m"
	ansiGreen  = "\x1b[32m"
	ansiYellow = "\x1b[33m"
)

// Limits for the terminal: evidence values are cut to keep one line each,
// and a message to keep a server's huge error from flooding the log.
const (
	textValueMax   = 200
	textMessageMax = 1000
	textIDMax      = 44
)

// plainKey matches evidence keys that can be printed as they are; others
// are quoted so that no line can start with server text such as "::".
var plainKey = regexp.MustCompile(`^[A-Za-z0-9_.$/-][A-Za-z0-9_.$/ -]{0,59}$`)

// WriteText writes the terminal report: a header, the checks by group with a
// status mark each (✓ pass, ✗ fail, ⚠ warning, ! error, - skip), the golden
// cases, scores and gate, and a tally line. Server text is shown with control
// characters escaped, one line per value.
func WriteText(w io.Writer, r *Report, o TextOptions) error {
	r = normalized(r)
	t := &textWriter{o: o, j: newJudge(r)}
	if o.GateOnly {
		t.o.Quiet = false
		if r.Gate != nil {
			t.gate(r.Gate)
		} else {
			t.line("no gate decision in this report")
		}
		t.tally(r)
		_, err := w.Write(t.buf.Bytes())
		return err
	}
	if !o.Quiet {
		t.header(r)
	}
	if r.Interrupted != "" {
		t.line(t.paint(ansiYellow, "! interrupted by "+oneLine(r.Interrupted, textMessageMax)+"; this report is partial"))
		t.line("")
	}
	width := 0
	for _, c := range r.Checks {
		if n := utf8.RuneCountInString(oneLine(c.ID, 0)); n > width {
			width = n
		}
	}
	width = min(width, textIDMax)
	if o.Quiet {
		for _, c := range r.Checks {
			if oc := t.j.check(c); oc == outFail || oc == outError {
				t.check(c, oc, width)
			}
		}
	} else {
		// Skipped checks are counted by reason under the groups, not a
		// line each (a passing run's screen would be mostly skips);
		// --verbose lists them in place.
		skips := map[string]int{}
		for _, g := range groupChecks(r.Checks) {
			header := false
			for _, c := range g.checks {
				oc := t.j.check(c)
				if oc == outSkip && !o.Verbose {
					skips[orDash(oneLine(c.Message, textMessageMax))]++
					continue
				}
				if !header {
					t.line(t.paint(ansiBold, textKey(g.name)))
					header = true
				}
				t.check(c, oc, width)
			}
		}
		t.skipped(skips)
	}
	if !o.Quiet {
		t.surfaceDiff(r)
		t.selection(r)
	}
	if len(r.Cases) > 0 {
		t.cases(r)
	}
	if !o.Quiet && len(r.Scores) > 0 {
		t.line("")
		t.line(t.paint(ansiBold, "scores"))
		kw := 0
		for k := range r.Scores {
			kw = max(kw, utf8.RuneCountInString(textKey(k)))
		}
		for _, k := range sortedKeys(r.Scores) {
			t.line(fmt.Sprintf("  %-*s  %s", kw, textKey(k), score(r.Scores[k])))
		}
	}
	if !o.Quiet {
		t.telemetry(r)
	}
	if r.Gate != nil && (!o.Quiet || !r.Gate.Passed) {
		t.gate(r.Gate)
	}
	t.tally(r)
	_, err := w.Write(t.buf.Bytes())
	return err
}

// skipped prints the skipped checks counted by reason, most first.
func (t *textWriter) skipped(skips map[string]int) {
	if len(skips) == 0 {
		return
	}
	reasons := sortedKeys(skips)
	slices.SortStableFunc(reasons, func(a, b string) int { return skips[b] - skips[a] })
	n := 0
	for _, k := range reasons {
		n += skips[k]
	}
	t.line(t.paint(ansiDim, fmt.Sprintf("skipped: %s, by reason (--verbose lists each)", plural(n, "check"))))
	for _, k := range reasons {
		t.line(t.paint(ansiDim, fmt.Sprintf("  %3d  %s", skips[k], k)))
	}
}

// tally is the closing verdict line with the counts.
func (t *textWriter) tally(r *Report) {
	t.line("")
	verdict := t.paint(ansiGreen, "PASS")
	if !r.Passed() {
		verdict = t.paint(ansiRed, "FAIL")
	}
	checks, cases := tallies(r)
	tl := verdict + "  " + checks.String() + " · " + passRateText(r)
	if len(r.Cases) > 0 {
		tl += "\n      cases: " + cases.String() + draftNote(r)
	}
	t.line(tl)
	t.layer1(r)
}

// tallyCasesMax is how many cases that did not pass the verdict names.
const tallyCasesMax = 5

// layer1 is Layer 1's result under the verdict, where a reader looks
// first: the pass rate per model, the cases that did not pass, and the
// judge; the case table above has the detail.
func (t *textWriter) layer1(r *Report) {
	if len(r.Cases) == 0 {
		return
	}
	var rates []string
	for _, m := range sortedKeys(r.ScoresByModel) {
		if v, ok := r.ScoresByModel[m]["behavior.passRate"]; ok {
			rates = append(rates, oneLine(m, textIDMax)+" "+percent(v))
		}
	}
	if len(rates) == 0 {
		if v, ok := r.Scores["behavior.passRate"]; ok {
			rates = append(rates, percent(v))
		}
	}
	if len(rates) > 0 {
		t.line("      layer 1 pass rate: " + strings.Join(rates, " · "))
	}
	var bad []string
	n := 0
	for _, c := range r.Cases {
		oc := t.j.kase(c)
		if oc != outFail && oc != outError {
			continue
		}
		n++
		if len(bad) < tallyCasesMax {
			bad = append(bad, fmt.Sprintf("%s %s %d/%d", t.paint(marks[oc].color, marks[oc].mark), oneLine(c.Key(), textIDMax*2), c.Passed, c.Runs))
		}
	}
	if n > 0 {
		more := ""
		if n > len(bad) {
			more = fmt.Sprintf(" … and %d more (cases, above)", n-len(bad))
		}
		t.line("      did not pass: " + strings.Join(bad, ", ") + more)
	}
	if j := judgeText(r.Judge); j != "" {
		t.line("      judge: " + oneLine(j, textValueMax))
	}
}

// judgeText says which judge graded the run's rubrics and semantic
// arguments, and why that one; "" when no judge was set up (no Layer 1).
func judgeText(j *JudgeInfo) string {
	switch {
	case j == nil:
		return ""
	case j.Off():
		return "none (--judge-model none): rubric cases skipped, semantic arguments by word overlap"
	}
	if len(j.ByModel) > 0 && j.Model == "" {
		// The tested models graded each other (no --judge-model).
		return j.Judges() + " (no --judge-model was given: each of --models is graded by the next one, none by itself)"
	}
	s := j.Model
	if j.Default {
		s += " (no --judge-model was given, and --models has one model)"
	}
	if len(j.SelfGraded) > 0 {
		return s + ", also a tested model: it graded its own runs"
	}
	return s + ", not a tested model"
}

type textWriter struct {
	o   TextOptions
	j   judge
	buf bytes.Buffer
}

func (t *textWriter) line(s string) {
	t.buf.WriteString(strings.TrimRight(s, " "))
	t.buf.WriteByte('\n')
}

func (t *textWriter) paint(code, s string) string {
	if !t.o.Color || s == "" {
		return s
	}
	return code + s + ansiReset
}

func (t *textWriter) header(r *Report) {
	// The line starts with the tool's name; a name that is not plain text
	// could start a workflow command, so it falls back to ours.
	name := r.Tool.Name
	if !plainKey.MatchString(name) {
		name = "mcp-eval"
	}
	parts := []string{strings.TrimSpace(name + " " + oneLine(r.Tool.Version, 40))}
	target := oneLine(r.Server.Target, 0)
	if sn := serverName(r.Server.ServerInfo); sn != "" {
		target += " (" + oneLine(sn, 80) + ")"
	}
	parts = append(parts, "server "+target)
	parts = append(parts, "transport "+orDash(oneLine(r.Server.Transport, 20)))
	parts = append(parts, "era "+orDash(oneLine(r.Server.Era, 20)))
	parts = append(parts, "protocol "+orDash(oneLine(r.Server.ProtocolVersion, 40)))
	t.line(strings.Join(parts, " · "))
	for _, m := range r.Server.Migration {
		t.line("  migrate: " + oneLine(m, textMessageMax))
	}
	if legacyHint(r) {
		t.line("  hint: to gate it on " + LegacyVersion + " while it migrates, run with --protocol-version " + LegacyVersion +
			": only what applies to that revision is checked")
	}
	t.line("")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// marks maps an outcome to its mark and colour.
var marks = map[outcome]struct{ mark, color string }{
	outPass:  {"✓", ansiGreen},
	outFail:  {"✗", ansiRed},
	outWarn:  {"⚠", ansiYellow},
	outSkip:  {"-", ansiDim},
	outError: {"!", ansiYellow},

	outSoftError: {"!", ansiYellow},
}

func (t *textWriter) check(c Check, oc outcome, width int) {
	m := marks[oc]
	id := oneLine(c.ID, 0)
	var rest []string
	if rt := runsText(c); rt != "" && oc != outSkip {
		rest = append(rest, rt)
	}
	msg := oneLine(c.Message, textMessageMax)
	switch oc {
	case outSkip:
		rest = append(rest, "skipped: "+orDash(msg))
	case outError:
		rest = append(rest, "error: "+msg)
	case outSoftError:
		rest = append(rest, "error (not a hard check, does not fail the run): "+msg)
	case outWarn:
		if reason, ok := t.j.waiver(c.ID); ok {
			rest = append(rest, "waived ("+oneLine(reason, textValueMax)+"): "+msg)
		} else {
			rest = append(rest, "warning: "+msg)
		}
	default:
		if msg != "" && oc != outPass {
			rest = append(rest, msg)
		}
	}
	body := strings.TrimRight(fmt.Sprintf("%-*s  %s", width, id, strings.Join(rest, "  ")), " ")
	if oc == outSkip {
		// A skipped line is dimmed as a whole: it is not a finding.
		t.line("  " + t.paint(m.color, m.mark+" "+body))
	} else {
		t.line("  " + t.paint(m.color, m.mark) + " " + body)
	}
	details := oc == outFail || oc == outError || oc == outWarn || oc == outSoftError || (t.o.Verbose && oc == outPass)
	if !details {
		return
	}
	if oc == outPass && t.o.Verbose && c.Message != "" {
		t.line("      message: " + oneLine(c.Message, textValueMax))
	}
	for _, f := range evidenceFields(c.Evidence) {
		t.line("      " + textKey(f.key) + ": " + oneLine(f.value, textValueMax))
	}
	if c.Info != "" {
		t.line("      info: " + oneLine(c.Info, textValueMax))
	}
}

// textKey prints an evidence key as is when it is plain, else Go-quoted.
func textKey(k string) string {
	if plainKey.MatchString(k) {
		return k
	}
	return strconv.QuoteToGraphic(k)
}

func (t *textWriter) cases(r *Report) {
	var show []Case
	for _, c := range r.Cases {
		oc := t.j.kase(c)
		if !t.o.Quiet || oc == outFail || oc == outError {
			show = append(show, c)
		}
	}
	if len(show) == 0 {
		return
	}
	iw, mw := 0, 0
	for _, c := range show {
		iw = max(iw, utf8.RuneCountInString(oneLine(c.ID, 0)))
		mw = max(mw, utf8.RuneCountInString(oneLine(c.Model, 0)))
	}
	t.line("")
	t.line(t.paint(ansiBold, "cases"))
	for _, c := range show {
		oc := t.j.kase(c)
		m := marks[oc]
		res := fmt.Sprintf("%d/%d  %s", c.Passed, c.Runs, percent(c.PassRate))
		if ci := caseInterval(c); ci != "" {
			res += " (" + ci + ")"
		}
		switch oc {
		case outSkip:
			res = "skipped, not run"
		case outFail, outWarn, outError:
			if d := decisionShort(c); d != "" {
				res += "  " + d
			} else {
				res += " < floor " + percent(c.Floor)
			}
		default:
			if d := decisionShort(c); d != "" && c.PassRate < c.FloorOrDefault()-1e-9 {
				res += "  " + d
			}
		}
		if f := flakyText(c); f != "" {
			res += "  " + f
		}
		if c.Errored > 0 {
			res += fmt.Sprintf("  (%d errored)", c.Errored)
		}
		if c.Carried != nil {
			res += "  carried from " + oneLine(carriedText(c.Carried), textValueMax)
		}
		if reason, ok := t.j.waiver(c.Key()); ok && oc == outWarn {
			res += "  waived (" + oneLine(reason, textValueMax) + ")"
		}
		t.line(fmt.Sprintf("  %s %-*s  %-*s  %s", t.paint(m.color, m.mark), iw, oneLine(c.ID, 0), mw, oneLine(c.Model, 0), res))
		t.caseReasons(c, oc)
	}
	if j := r.Judge; j != nil && len(j.SelfGraded) > 0 && !t.o.Quiet {
		t.line("  " + t.paint(ansiYellow, "⚠") + " " + oneLine(selfGradedText(j), 0))
	}
}

// caseReasons prints why runs failed or errored, one line each, under a
// case that did not pass (under every case with --verbose), and where the
// transcripts are.
func (t *textWriter) caseReasons(c Case, oc outcome) {
	if oc == outPass && !t.o.Verbose {
		return
	}
	if c.Skipped != "" {
		t.line("      skipped: " + oneLine(c.Skipped, textValueMax))
	}
	if t.o.Verbose && len(c.RunOutcomes) > 0 {
		var runs []string
		for i, o := range c.RunOutcomes {
			mark := "?"
			switch o {
			case "pass":
				mark = t.paint(ansiGreen, "✓")
			case "fail":
				mark = t.paint(ansiRed, "✗")
			case "error":
				mark = t.paint(ansiRed, "!")
			}
			runs = append(runs, fmt.Sprintf("%d%s", i+1, mark))
		}
		t.line("      runs " + strings.Join(runs, " "))
	}
	for _, f := range c.Failures {
		t.line("      failed " + oneLine(f, textValueMax))
	}
	for _, e := range c.Errors {
		t.line("      errored " + oneLine(e, textValueMax))
	}
	if t.o.Verbose {
		for _, j := range c.JudgeReasons {
			t.line("      judge " + oneLine(j, textValueMax))
		}
	}
	for _, p := range c.Transcripts {
		t.line("      transcript " + oneLine(p, textValueMax))
	}
}

// textToolsMax bounds the tools the terminal lists under telemetry; the
// rest are in report.json.
const textToolsMax = 20

// telemetry prints Layer 3: latency per tool and per model, tokens and cost
// per model (never a made-up $0), the judge's own cost, and the estimate of
// what the tool list costs.
func (t *textWriter) telemetry(r *Report) {
	tm := r.Telemetry
	judged := r.Judge != nil && r.Judge.Calls > 0
	if tm == nil || len(tm.ToolCalls)+len(tm.Models) == 0 && tm.ToolList == nil && !judged {
		return
	}
	t.line("")
	t.line(t.paint(ansiBold, "telemetry"))
	tools, models := sortedKeys(tm.ToolCalls), sortedKeys(tm.Models)
	tools = tools[:min(len(tools), textToolsMax)]
	w := 0
	for _, k := range append(slices.Clone(tools), models...) {
		w = max(w, utf8.RuneCountInString(oneLine(k, textIDMax)))
	}
	for _, k := range tools {
		l := tm.ToolCalls[k]
		t.line(fmt.Sprintf("  tool  %-*s  %s", w, oneLine(k, textIDMax), latencyText(l.Count, l.Errors, l.P50Ms, l.P95Ms, l.P99Ms)))
	}
	if n := len(tm.ToolCalls) - len(tools); n > 0 {
		t.line(fmt.Sprintf("  … and %d more tools in report.json", n))
	}
	for _, k := range models {
		u := tm.Models[k]
		cost := fmt.Sprintf("$%.4f", u.CostUSD)
		if u.CostUnknown {
			cost = "cost unknown"
		}
		t.line(fmt.Sprintf("  model %-*s  %s  %s  %s", w, oneLine(k, textIDMax), latencyText(u.Count, u.Errors, u.P50Ms, u.P95Ms, u.P99Ms),
			TokensText(u), cost))
	}
	if judged {
		cost := "cost unknown"
		if r.Judge.CostUSD != nil {
			cost = fmt.Sprintf("$%.4f", *r.Judge.CostUSD)
		}
		t.line(fmt.Sprintf("  judge %s  %d calls  tokens %d in, %d out  %s (apart from the models under test)",
			oneLine(r.Judge.Judges(), textMessageMax), r.Judge.Calls, r.Judge.InputTokens, r.Judge.OutputTokens, cost))
	}
	if fp := tm.ToolList; fp != nil {
		t.line(fmt.Sprintf("  tool list  about %d tokens for %d tools, before the first word of every conversation (an estimate)", fp.EstimatedTokens, fp.Tools))
	}
	for _, n := range tm.Notes {
		t.line("  note: " + oneLine(n, textMessageMax))
	}
}

// latencyText is "N calls  p50 … ms  p95 … ms  p99 … ms", with the errors.
func latencyText(count, errors int, p50, p95, p99 float64) string {
	s := fmt.Sprintf("p50 %.0f ms  p95 %.0f ms", p50, p95)
	if count > 0 {
		// An older report may not have counted a model's calls.
		s = fmt.Sprintf("%d calls  ", count) + s
	}
	if p99 > 0 {
		s += fmt.Sprintf("  p99 %.0f ms", p99)
	}
	if errors > 0 {
		s += fmt.Sprintf("  (%d errors)", errors)
	}
	return s
}

// selfGradedText is the self-grading warning every renderer shows.
func selfGradedText(j *JudgeInfo) string {
	fix := "set --judge-model to another model"
	if j.Default {
		fix = "add a second model to --models or set --judge-model"
	}
	return fmt.Sprintf("the judge %s grades its own runs (%s is also a tested model): its rubric and semantic verdicts on them flatter it; %s",
		j.JudgeOf(j.SelfGraded[0]), strings.Join(j.SelfGraded, ", "), fix)
}

func (t *textWriter) gate(g *Gate) {
	t.line("")
	verdict := t.paint(ansiGreen, "passed")
	if !g.Passed {
		verdict = t.paint(ansiRed, "failed")
	}
	base := "no baseline (absolute floors only)"
	if g.Baseline != "" {
		base = "baseline " + oneLine(g.Baseline, textMessageMax)
	}
	t.line("gate " + verdict + " · " + base)
	if b := g.BaselineRun; b != nil && !t.o.Quiet {
		t.line("  baseline run: " + baselineRunText(b))
	}
	for _, reason := range g.Reasons {
		t.line("  ✗ " + oneLine(reason, textMessageMax))
	}
	if t.o.Quiet {
		return
	}
	if t.o.GateOnly {
		if g.Passed {
			t.line("  decided: passed, no rule below failed")
		} else {
			t.line(fmt.Sprintf("  decided: failed, %d reason(s) above, by the rules below", len(g.Reasons)))
		}
		for _, rule := range g.Rules {
			t.line("  rule: " + oneLine(rule, textMessageMax))
		}
	}
	if len(g.Scores) > 0 {
		for _, s := range g.Scores {
			t.line("  Δ " + gateScoreText(s))
		}
	} else {
		for _, k := range sortedKeys(g.Deltas) {
			t.line(fmt.Sprintf("  Δ %s %+.3f", oneLine(k, 0), g.Deltas[k]))
		}
	}
	for _, pf := range g.Perf {
		t.line("  Δ " + gatePerfText(pf))
	}
	if g.DriftMessage != "" {
		t.line("  drift: " + oneLine(g.DriftMessage, textMessageMax))
	}
	for _, l := range statisticsLines(g.Statistics, 5) {
		t.line("  " + oneLine(l, textMessageMax))
	}
	for _, it := range g.Waived {
		t.line("  waived " + oneLine(it.Key(), textValueMax) + ": " + oneLine(it.WaiverReason, textValueMax))
	}
	for _, n := range g.Notes {
		t.line("  note: " + oneLine(n, textMessageMax))
	}
}

// gatePerfText is one latency or cost figure against the baseline.
func gatePerfText(p GatePerf) string {
	what := oneLine(p.Kind, 20) + " " + oneLine(p.ID, textValueMax)
	if p.Model != "" {
		what += " on " + oneLine(p.Model, textValueMax)
	}
	unit, f := "ms", func(v float64) string { return strconv.FormatFloat(v, 'f', 0, 64) }
	if p.Metric == MetricCostPerRun {
		unit, f = " USD/run", func(v float64) string { return strconv.FormatFloat(v, 'f', 4, 64) }
	}
	out := fmt.Sprintf("%s %s %s%s → %s%s (%+.0f%%)", oneLine(p.Metric, 20), what, f(p.Base), unit, f(p.Current), unit, p.Increase*100)
	switch {
	case p.Limit == nil:
		out += " [no limit]"
	case p.Failed:
		out += fmt.Sprintf(" [failed: above the limit of +%.0f%%]", *p.Limit*100)
	case p.Exceeded:
		out += fmt.Sprintf(" [above the limit of +%.0f%%, a warning]", *p.Limit*100)
	}
	return out
}

// baselineRunText describes the baseline's run on one line.
func baselineRunText(b *GateBaseline) string {
	var parts []string
	if b.StartedAt != "" {
		parts = append(parts, "started "+oneLine(b.StartedAt, 40))
	}
	if b.Commit != "" {
		parts = append(parts, "commit "+oneLine(b.Commit, 12))
	}
	if b.ToolVersion != "" {
		parts = append(parts, "mcp-eval "+oneLine(b.ToolVersion, 40))
	}
	switch {
	case b.Fingerprint == "":
		parts = append(parts, "no server fingerprint")
	case b.SameServer:
		parts = append(parts, "same server fingerprint "+oneLine(b.Fingerprint, 12))
	default:
		parts = append(parts, "server fingerprint "+oneLine(b.Fingerprint, 12)+", changed since")
	}
	return strings.Join(parts, " · ")
}

// gateScoreText is one score against the baseline: key, values, delta and
// what the gate made of it.
func gateScoreText(s GateScore) string {
	out := oneLine(s.Key, 0) + " " + optScore(s.Base) + " → " + optScore(s.Current)
	if s.Base != nil && s.Current != nil {
		out += fmt.Sprintf(" (%+.3f)", s.Delta)
	}
	if v := gateScoreVerdict(s); v != "" {
		out += " " + v
	}
	return out
}

// TokensText is a model's token counts as the reports show them: "tokens
// unknown" when no answer reported usage, "tokens at least N in, M out"
// when some did not, never a 0 that was not measured.
func TokensText(u ModelUsage) string {
	switch {
	case u.TokensUnknown && u.InputTokens == 0 && u.OutputTokens == 0:
		return "tokens unknown"
	case u.TokensUnknown:
		return fmt.Sprintf("tokens at least %d in, %d out (some answers reported none)", u.InputTokens, u.OutputTokens)
	}
	return fmt.Sprintf("tokens %d in, %d out", u.InputTokens, u.OutputTokens)
}
