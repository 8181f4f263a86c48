package report

import (
	"bytes"
	"cmp"
	"fmt"
	"html/template"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcp-eval/mcp-eval/internal/clip"
)

// HTMLOptions are what report.html shows beyond the report itself.
type HTMLOptions struct {
	// Transcripts maps a path of Case.Transcripts to the file's text (JSON,
	// secrets already masked by the caller); each is shown folded under its
	// case. A path without text is listed as a relative link.
	Transcripts map[string]string
}

// maxHTMLTranscript bounds one transcript shown inline; the file beside
// the report has it all.
const maxHTMLTranscript = 64 << 10

// WriteHTML writes report.html: one self-contained page (no script, no
// style sheet, font or image from anywhere else, so it opens offline and
// from an artifact) with the verdict, what a legacy server must change,
// every check by group (the evidence of each finding folded under it), the
// case × model matrix, the reasons of every case that did not pass with its
// transcripts, the confusion matrix of each model, the scores, and latency
// and cost charts drawn as inline SVG. All text from the report goes through html/template, which
// escapes it for the context it lands in.
func WriteHTML(w io.Writer, r *Report, o HTMLOptions) error {
	r = normalized(r)
	j := newJudge(r)
	checks, cases := tallies(r)
	page := htmlPage{Title: "mcp-eval report", Verdict: "PASS", Pass: r.Passed(), Server: r.Server.Target,
		Started: r.StartedAt, Judge: r.Judge, Transport: r.Server.Transport, Era: r.Server.Era,
		Protocol: r.Server.ProtocolVersion, Migration: r.Server.Migration}
	if len(r.Cases) > 0 {
		page.Cases = cases.String()
	}
	if len(r.Checks) > 0 {
		page.Checks = checks.String()
		page.Groups = htmlGroups(r.Checks, j)
	}
	page.Interrupted = r.Interrupted
	if legacyHint(r) {
		page.LegacyHint = "To gate this server on " + LegacyVersion + " while it migrates, run with --protocol-version " + LegacyVersion +
			" (the Action's protocol-version input): only what applies to that revision is checked."
	}
	if !page.Pass {
		page.Verdict = "FAIL"
	}
	if r.Gate != nil {
		page.GateReasons = r.Gate.Reasons
	}
	for _, it := range failedItems(r, j) {
		// Words, not the emoji: a browser without an emoji font shows
		// those as boxes.
		f := htmlFailed{Class: "fail", Status: "fail", Text: it.text}
		if it.mark == "❗" {
			f.Class, f.Status = "error", "error"
		}
		page.Failed = append(page.Failed, f)
	}
	page.JudgeText = judgeText(r.Judge)
	if r.Judge != nil && len(r.Judge.SelfGraded) > 0 {
		page.SelfGraded = selfGradedText(r.Judge)
	}

	// Case × model matrix.
	mx := newCaseMatrix(r.Cases)
	page.Models = mx.models
	for _, id := range mx.ids {
		row := htmlRow{ID: id, Kind: mx.first[id].Kind}
		for _, m := range page.Models {
			c, ok := mx.cell(id, m)
			if !ok {
				row.Cells = append(row.Cells, htmlCell{Class: "none", Text: "–"})
				continue
			}
			oc := j.kase(c)
			cell := htmlCell{Class: outcomeClass(oc), Text: fmt.Sprintf("%d/%d", c.Passed, c.Runs),
				Title: fmt.Sprintf("%s: pass rate %s, floor %s", c.Status, percent(c.PassRate), percent(c.Floor))}
			if oc == outSkip {
				cell.Text, cell.Title = "skipped", "skipped: "+c.Skipped
			}
			if ci := caseInterval(c); ci != "" {
				cell.Text += " · " + ci
				cell.Title += ", " + ci
			}
			if c.Errored > 0 {
				cell.Text += fmt.Sprintf(" (%d errored)", c.Errored)
			}
			if f := flakyText(c); f != "" {
				cell.Text += " " + f
			}
			row.Cells = append(row.Cells, cell)
		}
		page.Rows = append(page.Rows, row)
	}

	// Reasons and transcripts of the cases that did not pass.
	for _, c := range r.Cases {
		oc := j.kase(c)
		if oc == outPass && len(c.Transcripts) == 0 {
			continue
		}
		d := htmlCaseDetail{ID: c.ID, Model: c.Model, Class: outcomeClass(oc), Status: string(c.Status),
			Summary: fmt.Sprintf("%d of %d runs passed", c.Passed, c.Runs), Skipped: c.Skipped}
		if oc == outSkip {
			d.Summary = "not run"
		}
		for _, f := range c.Failures {
			d.Reasons = append(d.Reasons, "failed "+f)
		}
		for _, e := range c.Errors {
			d.Reasons = append(d.Reasons, "errored "+e)
		}
		for _, jr := range c.JudgeReasons {
			d.Reasons = append(d.Reasons, "judge "+jr)
		}
		for _, p := range c.Transcripts {
			t := htmlTranscript{Path: p}
			if text, ok := o.Transcripts[p]; ok {
				if len(text) > maxHTMLTranscript {
					text = text[:maxHTMLTranscript] + "\n… cut here; the full transcript is in " + p
				}
				t.Text = text
			}
			d.Transcripts = append(d.Transcripts, t)
		}
		page.Details = append(page.Details, d)
	}

	// Confusion matrices, one per model.
	byModel := map[string][]ConfusionCell{}
	for _, c := range r.Confusion {
		byModel[c.Model] = append(byModel[c.Model], c)
	}
	for _, m := range slices.Sorted(maps.Keys(byModel)) {
		page.Confusions = append(page.Confusions, confusionTable(m, byModel[m]))
	}

	// Scores.
	for _, k := range sortedKeys(r.Scores) {
		page.Scores = append(page.Scores, htmlScore{Key: k, Value: score(r.Scores[k])})
	}

	// Charts.
	if t := r.Telemetry; t != nil {
		var lat []bar
		for _, k := range sortedKeys(t.Models) {
			u := t.Models[k]
			lat = append(lat, bar{Label: "model " + k, A: u.P50Ms, B: u.P95Ms})
		}
		for _, k := range sortedKeys(t.ToolCalls) {
			l := t.ToolCalls[k]
			lat = append(lat, bar{Label: "tool " + k, A: l.P50Ms, B: l.P95Ms})
		}
		page.Latency = barChart(lat, "ms", "p50", "p95")
		var cost []bar
		for _, k := range sortedKeys(t.Models) {
			u := t.Models[k]
			if u.CostUnknown {
				cost = append(cost, bar{Label: k, Unknown: "cost unknown"})
				continue
			}
			cost = append(cost, bar{Label: k, A: u.CostUSD})
		}
		if r.Judge != nil && r.Judge.CostUSD != nil {
			cost = append(cost, bar{Label: "judge " + r.Judge.Judges(), A: *r.Judge.CostUSD})
		}
		page.Cost = barChart(cost, "USD", "cost", "")
	}

	var b bytes.Buffer
	if err := htmlTemplate.Execute(&b, page); err != nil {
		return fmt.Errorf("report.html: %w", err)
	}
	_, err := w.Write(showControls(b.Bytes()))
	return err
}

// showControls rewrites, in a rendered page, the characters a browser
// obeys or hides rather than shows, which html/template (it escapes markup
// only) leaves: the C0 controls but tab, line feed and carriage return
// (ESC, BEL), DEL and the C1 controls, the line and paragraph separators,
// and the bidi controls that reorder what is read ("Trojan Source",
// CVE-2021-42574: U+202E makes "exe.txt" read "txt.exe"). Each becomes the
// escape the terminal shows for it (\x1b, \u202e), in plain text, so that
// a server's text is seen as it is. The page's own text holds none of them.
func showControls(page []byte) []byte {
	var out []byte
	last := 0
	for i := 0; i < len(page); {
		r, n := utf8.DecodeRune(page[i:])
		var esc string
		switch {
		case r == '\t' || r == '\n' || r == '\r' || r == utf8.RuneError:
		case r < 0x20 || r == 0x7f:
			esc = fmt.Sprintf(`\x%02x`, r)
		case unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || isBidiControl(r):
			esc = fmt.Sprintf(`\u%04x`, r)
		}
		if esc != "" {
			out = append(append(out, page[last:i]...), esc...)
			last = i + n
		}
		i += n
	}
	if out == nil {
		return page
	}
	return append(out, page[last:]...)
}

// htmlFailed is a line of What failed.
type htmlFailed struct{ Class, Status, Text string }

type htmlPage struct {
	Title, Verdict, Server, Started string
	Transport, Era, Protocol        string
	Migration                       []string
	LegacyHint, Interrupted         string
	Checks, Cases                   string // tallies
	Groups                          []htmlGroup
	Pass                            bool
	GateReasons                     []string
	Judge                           *JudgeInfo
	SelfGraded                      string
	Models                          []string
	Rows                            []htmlRow
	Details                         []htmlCaseDetail
	Confusions                      []htmlConfusion
	Scores                          []htmlScore
	Latency, Cost                   *svgChart

	// Failed are the failed checks and cases, one line each, first on
	// the page; JudgeText says which judge graded the run.
	Failed    []htmlFailed
	JudgeText string
}

type htmlGroup struct {
	Name, Tally string
	Checks      []htmlCheck
}

type htmlCheck struct {
	ID, Class, Status, Runs, Message, Evidence string
}

// htmlGroups lays out every check by group as summary.md does: the checks
// a group skips for one reason share a row, and each finding carries its
// evidence, within the summary's bounds.
func htmlGroups(checks []Check, j judge) []htmlGroup {
	var out []htmlGroup
	budget := mdEvidenceBudget
	for _, g := range groupChecks(checks) {
		var t tally
		skipped := map[string][]string{}
		for _, c := range g.checks {
			oc := j.check(c)
			t.add(oc)
			if oc == outSkip {
				skipped[c.Message] = append(skipped[c.Message], c.ID)
			}
		}
		hg := htmlGroup{Name: g.name, Tally: groupTally(t, len(g.checks))}
		for _, c := range g.checks {
			oc := j.check(c)
			// The runs have a column of their own.
			hc := htmlCheck{ID: c.ID, Class: outcomeClass(oc), Status: strings.TrimSpace(strings.SplitN(mdMarks[oc], " ", 2)[1]), Message: bareMessage(c)}
			if reason, ok := j.waiver(c.ID); ok {
				hc.Status, hc.Message = "waived", hc.Message+" (waived: "+reason+")"
			}
			if ids := skipped[c.Message]; oc == outSkip && len(ids) > 1 {
				if ids[0] != c.ID {
					continue
				}
				hc.ID = strings.Join(ids, ", ")
			}
			if oc != outSkip && c.Runs > 0 {
				hc.Runs = fmt.Sprintf("%d/%d", c.Passed, c.Runs)
			}
			if c.Info != "" {
				hc.Message = strings.TrimSpace(hc.Message + " (info: " + c.Info + ")")
			}
			if oc != outPass && oc != outSkip && hasEvidence(c.Evidence) && budget > 0 {
				ev, _ := clip.Prefix(indentEvidence(c.Evidence), mdEvidenceMax)
				budget -= len(ev)
				hc.Evidence = ev
			}
			hg.Checks = append(hg.Checks, hc)
		}
		out = append(out, hg)
	}
	return out
}

type htmlRow struct {
	ID, Kind string
	Cells    []htmlCell
}

type htmlCell struct{ Class, Text, Title string }

type htmlCaseDetail struct {
	ID, Model, Class, Status, Summary, Skipped string
	Reasons                                    []string
	Transcripts                                []htmlTranscript
}

type htmlTranscript struct{ Path, Text string }

type htmlScore struct{ Key, Value string }

type htmlConfusion struct {
	Model    string
	Selected []string
	Rows     []htmlConfusionRow
}

type htmlConfusionRow struct {
	Expected string
	Counts   []htmlCount
}

type htmlCount struct {
	N        int
	Diagonal bool
}

func confusionTable(model string, cells []ConfusionCell) htmlConfusion {
	t := htmlConfusion{Model: model}
	exp, sel := map[string]bool{}, map[string]bool{}
	n := map[[2]string]int{}
	for _, c := range cells {
		exp[c.Expected], sel[c.Selected] = true, true
		n[[2]string{c.Expected, c.Selected}] += c.Count
	}
	t.Selected = slices.Sorted(maps.Keys(sel))
	for _, e := range slices.Sorted(maps.Keys(exp)) {
		row := htmlConfusionRow{Expected: e}
		for _, s := range t.Selected {
			row.Counts = append(row.Counts, htmlCount{N: n[[2]string{e, s}], Diagonal: e == s})
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

func outcomeClass(o outcome) string {
	switch o {
	case outPass:
		return "pass"
	case outFail:
		return "fail"
	case outWarn:
		return "warn"
	case outSkip:
		return "skip"
	}
	return "error"
}

// bar is one labelled pair of values (A drawn dark, B light behind it).
type bar struct {
	Label string
	A, B  float64
	// Unknown, when set, is shown instead of a value (a cost that is
	// unknown is never drawn as 0).
	Unknown string
}

// svgChart is a horizontal bar chart laid out here, so the template only
// places numbers.
type svgChart struct {
	Width, Height int
	Unit          string
	LegendA       string
	LegendB       string
	Bars          []svgBar
}

type svgBar struct {
	Label    string
	Y, TextY int
	WA, WB   float64
	ValueA   string
	ValueB   string
	ValueX   float64
	HasB     bool
}

const (
	chartLabelW = 260
	chartBarW   = 560
	chartRowH   = 26
)

func barChart(bars []bar, unit, legendA, legendB string) *svgChart {
	if len(bars) == 0 {
		return nil
	}
	peak := 0.0
	for _, b := range bars {
		peak = max(peak, b.A, b.B)
	}
	if peak <= 0 || math.IsNaN(peak) || math.IsInf(peak, 0) {
		peak = 1
	}
	c := &svgChart{Width: chartLabelW + chartBarW + 200, Height: len(bars)*chartRowH + 30, Unit: unit, LegendA: legendA, LegendB: legendB}
	format := func(v float64) string {
		if unit == "USD" {
			return fmt.Sprintf("$%.4f", v)
		}
		return fmt.Sprintf("%.0f %s", v, unit)
	}
	for i, b := range bars {
		y := 24 + i*chartRowH
		sb := svgBar{Label: clipRunes(b.Label, 40), Y: y, TextY: y + 14,
			WA: chartBarW * clamp01(b.A/peak), WB: chartBarW * clamp01(b.B/peak), ValueA: format(b.A), HasB: legendB != ""}
		if sb.HasB {
			sb.ValueB = format(b.B)
		}
		sb.ValueX = chartLabelW + max(sb.WA, sb.WB) + 6
		if b.Unknown != "" {
			sb.ValueA, sb.WA, sb.WB = b.Unknown, 0, 0
		}
		c.Bars = append(c.Bars, sb)
	}
	return c
}

func clamp01(f float64) float64 {
	if math.IsNaN(f) || f < 0 {
		return 0
	}
	return min(f, 1)
}

// clipRunes is s on one line in at most n runes, the ellipsis included.
func clipRunes(s string, n int) string {
	s = oneLine(s, 0)
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return clip.Runes(s, n-1)
}

var htmlTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"labelX": func() int { return chartLabelW },
	"or":     func(a, b string) string { return cmp.Or(a, b) },
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>{{.Title}}</title>
<style>
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px;color:#1f2328;background:#fff}
h1{font-size:22px;margin:0 0 4px} h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #d0d7de;padding-bottom:4px}
.verdict{display:inline-block;padding:2px 10px;border-radius:6px;font-weight:600;color:#fff}
.verdict.pass{background:#1a7f37}.verdict.fail{background:#cf222e}
table{border-collapse:collapse;margin:6px 0}td,th{border:1px solid #d0d7de;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f6f8fa}code{font:12px ui-monospace,SFMono-Regular,Menlo,monospace}
td.pass{background:#dafbe1}td.fail{background:#ffebe9}td.warn{background:#fff8c5}td.error{background:#ffd8b5}td.skip{background:#eaeef2}td.none{color:#8c959f}
td.diag{font-weight:600;background:#dafbe1}td.off{background:#ffebe9}td.zero{color:#8c959f}
.warning{border-left:4px solid #bf8700;background:#fff8c5;padding:6px 10px;margin:8px 0}
.tip{border-left:4px solid #1a7f37;background:#dafbe1;padding:6px 10px;margin:8px 0}
table.checks td:first-child{max-width:420px;word-break:break-word}
details{margin:6px 0}summary{cursor:pointer}pre{background:#f6f8fa;padding:8px;overflow:auto;max-height:480px;white-space:pre-wrap;word-break:break-word;font:12px ui-monospace,Menlo,monospace}
span.status{padding:0 6px;border-radius:4px}span.fail{background:#ffebe9}span.error{background:#ffd8b5}
.case.fail summary,.case.error summary{color:#cf222e}.case.warn summary{color:#9a6700}
svg text{font:12px system-ui,sans-serif}
</style>
</head>
<body>
<h1>mcp-eval <span class="verdict {{if .Pass}}pass{{else}}fail{{end}}" id="verdict">{{.Verdict}}</span></h1>
<div>server <code>{{.Server}}</code>{{if .Transport}} · {{.Transport}}{{end}}{{if .Era}} · era {{.Era}}{{end}}{{if .Protocol}} · protocol {{.Protocol}}{{end}} · started {{.Started}}</div>
<div id="tally">{{if .Checks}}checks: {{.Checks}}{{end}}{{if and .Checks .Cases}} · {{end}}{{if .Cases}}cases: {{.Cases}}{{end}}</div>
{{if .Interrupted}}<div class="warning" id="interrupted">Interrupted by {{.Interrupted}}. This report is partial.</div>{{end}}
{{if .Failed}}<h2>What failed</h2><ul id="failed">{{range .Failed}}<li><span class="status {{.Class}}">{{.Status}}</span> {{.Text}}</li>{{end}}</ul>{{end}}
{{if .GateReasons}}<details id="gate"{{if not .Failed}} open{{end}}><summary>Why the gate failed ({{len .GateReasons}})</summary><ul>{{range .GateReasons}}<li>{{.}}</li>{{end}}</ul></details>{{end}}
{{if .Migration}}<h2>Migrating to 2026-07-28</h2><ul id="migration">{{range .Migration}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{if .LegacyHint}}<div class="tip" id="legacy-hint">{{.LegacyHint}}</div>{{end}}
{{with .Judge}}<div id="judge">judge {{if $.JudgeText}}{{$.JudgeText}}{{else}}<code>{{or .Judges "none"}}</code>{{end}}, prompt <code>{{.PromptSHA256}}</code>{{if .PromptFile}} from <code>{{.PromptFile}}</code>{{end}}{{if .Calls}} · {{.Calls}} calls{{end}}</div>{{end}}
{{if .SelfGraded}}<div class="warning" id="self-graded">⚠ {{.SelfGraded}}</div>{{end}}
{{if .Rows}}
<h2>Cases × models</h2>
<table id="matrix"><thead><tr><th>case</th><th>kind</th>{{range .Models}}<th><code>{{.}}</code></th>{{end}}</tr></thead>
<tbody>{{range .Rows}}<tr><td><code>{{.ID}}</code></td><td>{{.Kind}}</td>{{range .Cells}}<td class="{{.Class}}" title="{{.Title}}">{{.Text}}</td>{{end}}</tr>{{end}}</tbody></table>
{{end}}
{{if .Details}}
<h2>Why cases did not pass</h2>
<div id="transcripts">{{range .Details}}
<details class="case {{.Class}}"><summary><code>{{.ID}}</code> on <code>{{.Model}}</code>: {{.Status}}, {{.Summary}}</summary>
{{if .Skipped}}<p>skipped: {{.Skipped}}</p>{{end}}
{{if .Reasons}}<ul class="reasons">{{range .Reasons}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{range .Transcripts}}<details class="transcript"><summary>transcript {{.Path}}</summary>{{if .Text}}<pre>{{.Text}}</pre>{{else}}<p>in the output folder: <code>{{.Path}}</code></p>{{end}}</details>{{end}}
</details>{{end}}
</div>
{{end}}
{{if .Confusions}}
<h2>Tool confusion (expected × first-turn calls)</h2>
<div id="confusion">{{range .Confusions}}
<h3><code>{{.Model}}</code></h3>
<table class="confusion"><thead><tr><th>expected \ called</th>{{range .Selected}}<th><code>{{.}}</code></th>{{end}}</tr></thead>
<tbody>{{range .Rows}}<tr><th><code>{{.Expected}}</code></th>{{range .Counts}}<td class="{{if eq .N 0}}zero{{else if .Diagonal}}diag{{else}}off{{end}}">{{.N}}</td>{{end}}</tr>{{end}}</tbody></table>
{{end}}</div>
{{end}}
{{if .Scores}}
<h2>Scores</h2>
<table id="scores"><tbody>{{range .Scores}}<tr><td><code>{{.Key}}</code></td><td>{{.Value}}</td></tr>{{end}}</tbody></table>
{{end}}
{{if .Groups}}
<h2>Checks</h2>
<div id="checks">{{range .Groups}}
<h3><code>{{.Name}}</code> ({{.Tally}})</h3>
<table class="checks"><thead><tr><th>check</th><th>status</th><th>runs</th><th>message</th></tr></thead>
<tbody>{{range .Checks}}<tr><td><code>{{.ID}}</code></td><td class="{{.Class}}">{{.Status}}</td><td>{{.Runs}}</td><td>{{.Message}}{{if .Evidence}}<details><summary>evidence</summary><pre>{{.Evidence}}</pre></details>{{end}}</td></tr>{{end}}</tbody></table>
{{end}}</div>
{{end}}
{{with .Latency}}<h2>Latency</h2>{{template "chart" .}}{{end}}
{{with .Cost}}<h2>Cost</h2>{{template "chart" .}}{{end}}
</body>
</html>
{{define "chart"}}<svg class="chart" width="{{.Width}}" height="{{.Height}}" viewBox="0 0 {{.Width}} {{.Height}}" role="img" aria-label="{{.LegendA}} in {{.Unit}}">
<text x="0" y="14" fill="#57606a">{{.LegendA}}{{if .LegendB}} (dark) · {{.LegendB}} (light){{end}}, {{.Unit}}</text>
{{range .Bars}}<text x="0" y="{{.TextY}}">{{.Label}}</text>
{{if .HasB}}<rect x="{{labelX}}" y="{{.Y}}" width="{{printf "%.1f" .WB}}" height="18" fill="#addcff"></rect>{{end}}
<rect x="{{labelX}}" y="{{.Y}}" width="{{printf "%.1f" .WA}}" height="18" fill="#0969da"></rect>
<text x="{{printf "%.1f" .ValueX}}" y="{{.TextY}}">{{.ValueA}}{{if .HasB}} / {{.ValueB}}{{end}}</text>
{{end}}</svg>{{end}}`))
