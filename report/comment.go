package report

import (
	"fmt"
	"io"
	"net/url"
	"sort"
	"strings"
)

// CommentMarker is the hidden HTML comment on the first line of every PR
// comment WriteComment writes. The github package finds the comment to
// update by it, so it never changes.
const CommentMarker = "<!-- mcp-eval:comment -->"

// Size limits of the PR comment. GitHub refuses a comment body longer than
// 65,536 characters; the comment is measured in bytes, which are never
// fewer than characters.
const (
	DefaultCommentMaxBytes = 60000
	commentHardLimit       = 65536
	commentMinBytes        = 2048
)

// Caps that keep the comment compact whatever the report holds.
const (
	commentListMax    = 15  // ids per list (regressions, fixed, …)
	commentReasonsMax = 10  // gate reasons
	commentScoresMax  = 20  // rows of the score table
	commentCasesMax   = 25  // rows of the case × model matrix
	commentModelsMax  = 6   // columns of the matrix
	commentIDMax      = 120 // runes of an id or model name
	commentTextMax    = 300 // runes of a reason, note or drift message
	commentURLMax     = 2048
)

// CommentOptions controls WriteComment.
type CommentOptions struct {
	// RunURL links the workflow run, whose job summary holds the full
	// report and whose artifacts hold report.json.
	RunURL string
	// BaselineURL links the run the baseline came from.
	BaselineURL string
	// MaxBytes bounds the whole comment: DefaultCommentMaxBytes when zero,
	// never more than GitHub's 65,536 nor less than 2,048.
	MaxBytes int
	// Key is the comment's key (the Action's comment-key: workflow, job and
	// matrix values), named under the verdict so that a reader of several
	// comments on one pull request knows which job each is about.
	Key string
}

// WriteComment writes the compact PR comment that the Action upserts: the
// hidden CommentMarker, the verdict, the headline scores against the
// baseline with their deltas, why the gate failed, the regressions, new and
// still-failing items, what was fixed, stale waivers, model drift, a case ×
// model matrix, and links to the run and the baseline.
//
// The comment never exceeds MaxBytes: each section is added only while it
// fits, long lists and tables are cut with "+N more", and a cut comment ends
// with a note that the full report is in the run. Text from the server, the
// models or the golden file is escaped with escapeMarkdown or shown as a
// code span; links are only ever the URLs of opts, checked to be http(s).
func WriteComment(w io.Writer, r *Report, o CommentOptions) error {
	r = normalized(r)
	max := o.MaxBytes
	switch {
	case max <= 0:
		max = DefaultCommentMaxBytes
	case max > commentHardLimit:
		max = commentHardLimit
	case max < commentMinBytes:
		max = commentMinBytes
	}
	c := commentBuilder{r: r, j: newJudge(r), runURL: linkURL(o.RunURL)}
	if r.Gate != nil && r.Gate.Baseline != "" {
		c.baseURL = linkURL(o.BaselineURL)
	}
	// The marker, the verdict, the footer and the cut note are always
	// written; links too long for a small MaxBytes are left out of them.
	prefix := CommentMarker + "\n" + c.verdict() + "\n\n" + JobLine(o.Key)
	for len(prefix)+len(c.footer())+len(c.cutNote()) > max/2 {
		if c.baseURL != "" {
			c.baseURL = ""
		} else if c.runURL != "" {
			c.runURL = ""
		} else {
			break
		}
	}
	sections := []section{c.header()}
	if l := c.selectionLine(); l != nil {
		sections = append(sections, section{head: l})
	}
	sections = append(sections, c.whatFailed())
	if r.Gate != nil && !r.Gate.Passed {
		sections = append(sections, c.reasons())
	}
	sections = append(sections, c.scores(), c.surfaceDiff(), c.drift(), c.statistics())
	sections = append(sections, c.lists()...)
	sections = append(sections, c.matrix())
	_, err := io.WriteString(w, prefix+fitSections(sections, c.footer(), c.cutNote(), max-len(prefix)))
	return err
}

// JobLine is the comment's "Job: `key`" paragraph, which tells the
// comments of a pull request's jobs apart ("" for no key), in every comment
// mcp-eval writes, a verdict's or a run's that could not evaluate.
func JobLine(key string) string {
	k := strings.TrimSpace(key)
	if k == "" {
		return ""
	}
	return "Job: " + codeSpan(cutRunes(oneLine(k, 0), commentIDMax*2)) + "\n\n"
}

// section is one block of the comment. head and tail are written whole or
// not at all (tail closes what head opened); rows are written in order while
// they fit, and more(n) notes the n rows that were left out, counting the
// hidden ones that a cap dropped beforehand.
type section struct {
	head, rows, tail []string
	more             func(n int) string
	hidden           int
}

func (s section) empty() bool { return len(s.head) == 0 && len(s.rows) == 0 }

// fitSections joins the sections, then the footer, within max bytes. At
// the first section that does not fit whole it keeps as many rows as fit,
// adds cut (the note that the comment is incomplete) and stops.
func fitSections(sections []section, footer, cut string, max int) string {
	var b strings.Builder
	budget := max - len(footer) - len(cut)
	size := func(lines []string) int {
		n := 0
		for _, l := range lines {
			n += len(l) + 1
		}
		return n
	}
	truncated := false
	for _, s := range sections {
		if s.empty() {
			continue
		}
		rows := s.rows
		if s.hidden > 0 {
			rows = append(rows[:len(rows):len(rows)], s.more(s.hidden))
		}
		if b.Len()+size(s.head)+size(rows)+size(s.tail) <= budget {
			writeLines(&b, s.head, rows, s.tail)
			continue
		}
		truncated = true
		// Keep the rows that fit, with room for the "N more" line.
		room := budget - b.Len() - size(s.head) - size(s.tail)
		moreLen := 0
		if s.more != nil {
			moreLen = len(s.more(len(s.rows)+s.hidden)) + 1
		}
		var keep []string
		for _, row := range s.rows {
			if size(keep)+len(row)+1+moreLen > room {
				break
			}
			keep = append(keep, row)
		}
		if len(keep) > 0 {
			if s.more != nil {
				keep = append(keep, s.more(len(s.rows)-len(keep)+s.hidden))
			}
			writeLines(&b, s.head, keep, s.tail)
		}
		break
	}
	if truncated {
		b.WriteString(cut)
	}
	b.WriteString(footer)
	return b.String()
}

func writeLines(b *strings.Builder, groups ...[]string) {
	for _, g := range groups {
		for _, l := range g {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
}

type commentBuilder struct {
	r       *Report
	j       judge
	runURL  string
	baseURL string
}

func (c commentBuilder) verdict() string {
	if !c.r.Passed() {
		return "## ❌ mcp-eval failed"
	}
	return "## ✅ mcp-eval passed"
}

// header is the status line under the verdict: tallies and the baseline.
func (c commentBuilder) header() section {
	r := c.r
	checks, cases := tallies(r)
	status := []string{"**Checks:** " + checks.String(), passRateText(r)}
	if len(r.Cases) > 0 {
		status = append(status, "**Cases:** "+cases.String())
	}
	lines := []string{strings.Join(status, " · ")}
	if g := r.Gate; g != nil {
		lines = append(lines, "")
		switch {
		case g.Baseline == "":
			lines = append(lines, "No baseline was found: only the absolute floors were applied.")
		case c.baseURL != "":
			lines = append(lines, "Compared with the [baseline]("+c.baseURL+"): "+escapeMarkdown(cutRunes(g.Baseline, commentTextMax))+".")
		default:
			lines = append(lines, "Compared with the baseline: "+escapeMarkdown(cutRunes(g.Baseline, commentTextMax))+".")
		}
	}
	if r.Strict {
		lines = append(lines, "", "Run with `--strict`: warnings fail the run.")
	}
	return section{head: append(lines, "")}
}

func (c commentBuilder) reasons() section {
	g := c.r.Gate
	if len(g.Reasons) == 0 {
		return section{}
	}
	// Folded under the failed items when there are some (a sentence a
	// reason, often alike); open when they are all there is.
	s := section{head: []string{fmt.Sprintf("**Why the gate failed (%d):**", len(g.Reasons)), ""}, tail: []string{""}, more: moreItems}
	if len(failedItems(c.r, c.j)) > 0 {
		s.head = []string{fmt.Sprintf("<details><summary>Why the gate failed (%s)</summary>", plural(len(g.Reasons), "reason")), ""}
		s.tail = []string{"", "</details>", ""}
	}
	for _, reason := range g.Reasons {
		s.rows = append(s.rows, "- "+escapeMarkdown(cutRunes(reason, commentTextMax)))
	}
	capRows(&s, commentReasonsMax)
	return s
}

// capRows keeps the first n rows; the rest are counted as hidden.
func capRows(s *section, n int) {
	if len(s.rows) <= n {
		return
	}
	s.hidden += len(s.rows) - n
	s.rows = s.rows[:n:n]
}

func moreItems(n int) string { return fmt.Sprintf("- … and %d more (see the full report)", n) }

func moreRows(n int) string { return fmt.Sprintf("| … %d more rows in the full report | | | | |", n) }

// scores is the table of headline scores: the gate's comparison when there
// is one, else this run's scores alone.
func (c commentBuilder) scores() section {
	r := c.r
	var rows []GateScore
	judged := r.Gate != nil && len(r.Gate.Scores) > 0
	hasBase := r.Gate != nil && r.Gate.Baseline != ""
	switch {
	case judged:
		rows = r.Gate.Scores
	default:
		for _, k := range sortedKeys(r.Scores) {
			v := r.Scores[k]
			gs := GateScore{Key: k, Current: &v, Direction: ScoreDirection(k)}
			if r.Gate != nil {
				if d, ok := r.Gate.Deltas[k]; ok {
					base := v - d
					gs.Base, gs.Delta = &base, d
				}
			}
			rows = append(rows, gs)
		}
	}
	if len(rows) == 0 {
		return section{}
	}
	// Headline keys first, in the trend chart's order, then the rest.
	sorted := append([]GateScore(nil), rows...)
	sort.SliceStable(sorted, func(i, j int) bool { return trendRank(sorted[i].Key) < trendRank(sorted[j].Key) })
	s := section{
		head: []string{"| score | baseline | this run | Δ | |", "| --- | --- | --- | --- | --- |"},
		tail: []string{""},
		more: moreRows,
	}
	for _, gs := range sorted {
		key := codeSpan(cutRunes(gs.Key, commentIDMax))
		if gs.Direction == DirectionLower {
			key += " (lower is better)"
		}
		s.rows = append(s.rows, fmt.Sprintf("| %s | %s | %s | %s | %s |", key, optScore(gs.Base), optScore(gs.Current), deltaCell(gs), scoreVerdict(gs, judged, hasBase)))
	}
	capRows(&s, commentScoresMax)
	return s
}

// trendRank orders score keys: headline keys by their place in trendKeys,
// others after them (sort.SliceStable keeps those in key order).
func trendRank(k string) int {
	for i, t := range trendKeys {
		if t == k {
			return i
		}
	}
	return len(trendKeys)
}

// deltaCell shows the change with an arrow for its sign: ▲ up, ▼ down.
func deltaCell(s GateScore) string {
	if s.Base == nil || s.Current == nil {
		return "–"
	}
	switch d := s.Delta; {
	case d > 5e-4:
		return fmt.Sprintf("▲ %+.3f", d)
	case d < -5e-4:
		return fmt.Sprintf("▼ %+.3f", d)
	}
	return "0"
}

// scoreVerdict says, taking the score's direction into account, whether it
// got better or worse and what the gate made of it; judged says s is the
// gate's own comparison, so a worse score it did not flag stayed within the
// allowed drop; hasBase says there was a baseline, so a score it lacks is
// new.
func scoreVerdict(s GateScore, judged, hasBase bool) string {
	var words []string
	if s.Base != nil && s.Current != nil {
		worse := s.Delta < -5e-4
		better := s.Delta > 5e-4
		if s.Direction == DirectionLower {
			worse, better = better, worse
		}
		switch {
		case worse && judged && !s.Drop && !s.BelowFloor:
			words = append(words, "worse, within the allowed drop")
		case worse:
			words = append(words, "worse")
		case better:
			words = append(words, "better")
		}
	} else if s.Current == nil {
		words = append(words, "not measured")
	} else if hasBase {
		words = append(words, "new")
	}
	if notes := gateScoreNotes(s); notes != "" {
		words = append(words, notes)
	}
	mark := ""
	switch {
	case s.Failed:
		mark = "❌ "
	case s.Drop || s.BelowFloor || s.Drift:
		mark = "⚠️ "
	case len(words) > 0 && words[0] == "better":
		mark = "✅ "
	}
	return strings.TrimSpace(mark + strings.Join(words, ", "))
}

func (c commentBuilder) drift() section {
	g := c.r.Gate
	if g == nil || (!g.Drift && g.DriftMessage == "") {
		return section{}
	}
	line := "> ⚠️ **Likely model drift, not your change.**"
	if g.DriftMessage != "" {
		line += " " + escapeMarkdown(cutRunes(g.DriftMessage, commentTextMax))
	}
	return section{head: []string{line, ""}}
}

// statistics states the statistical gate's design and what it could
// detect, so that a green gate means something and a red one says how
// sure it is.
func (c commentBuilder) statistics() section {
	g := c.r.Gate
	if g == nil || g.Statistics == nil {
		return section{}
	}
	s := section{head: []string{"**How sure:**", ""}, tail: []string{""}, more: moreItems}
	for _, l := range statisticsLines(g.Statistics, 5) {
		s.rows = append(s.rows, "- "+escapeMarkdown(cutRunes(l, commentTextMax)))
	}
	return s
}

// lists names the items the gate classified, or, without a gate, the
// checks and cases that fail the run.
func (c commentBuilder) lists() []section {
	g := c.r.Gate
	if g == nil {
		var failing []listItem
		for _, ch := range c.r.Checks {
			if o := c.j.check(ch); o == outFail || o == outError {
				failing = append(failing, listItem{id: ch.ID})
			}
		}
		for _, cs := range c.r.Cases {
			if o := c.j.kase(cs); o == outFail || o == outError {
				failing = append(failing, listItem{id: cs.Key()})
			}
		}
		return []section{idList("Failing", itemList{items: failing, total: len(failing)})}
	}
	// items names gate items; in a list of failures, those that do not
	// block the gate are marked.
	// Only the items a list shows are named; the rest are counted.
	items := func(list []GateItem, failures bool) itemList {
		l := itemList{total: len(list)}
		for _, it := range list[:min(len(list), commentListMax)] {
			l.items = append(l.items, listItem{id: it.Key(), warning: failures && !it.Blocking, errored: failures && it.Status == StatusError})
		}
		return l
	}
	ids := func(list []string) itemList {
		l := itemList{total: len(list)}
		for _, id := range list[:min(len(list), commentListMax)] {
			l.items = append(l.items, listItem{id: id})
		}
		return l
	}
	return []section{
		withAdvice(idList("Regressions", items(g.Regressions, true)), ""),
		withAdvice(idList("New failures", items(g.New, true)), ""),
		withAdvice(idList("Still failing", items(g.StillFailing, true)), ""),
		withAdvice(idList("Fixed", items(g.Fixed, false)), ""),
		withAdvice(idList("Waived", items(g.Waived, false)), ""),
		withAdvice(idList("Stale waivers", ids(g.StaleWaivers)), "; they match no failure now: remove them from the waiver file"),
		withAdvice(idList("Expired waivers", ids(g.ExpiredWaivers)), "; renew or remove them"),
	}
}

// listItem is one id in a list; warning marks a failure that does not
// block the gate.
type listItem struct {
	id      string
	warning bool
	errored bool // errored, not failed: named as such
}

// itemList is the first items of a list and how long the list is.
type itemList struct {
	items []listItem
	total int
}

// idList is one line naming up to commentListMax items of l.
func idList(title string, l itemList) section {
	total := l.total
	if total == 0 {
		return section{}
	}
	shown := l.items[:min(len(l.items), commentListMax)]
	names := make([]string, len(shown))
	for i, it := range shown {
		names[i] = codeSpan(cutRunes(it.id, commentIDMax))
		switch {
		case it.errored && it.warning:
			names[i] += " (error, not blocking)"
		case it.errored:
			names[i] += " (error)"
		case it.warning:
			names[i] += " (warning)"
		}
	}
	line := fmt.Sprintf("**%s (%d):** %s", title, total, strings.Join(names, ", "))
	if n := total - len(shown); n > 0 {
		line += fmt.Sprintf(" and %d more", n)
	}
	return section{head: []string{line, ""}}
}

// withAdvice ends a list's line with fixed advice.
func withAdvice(s section, advice string) section {
	if len(s.head) > 0 {
		s.head[0] += advice
	}
	return s
}

// matrix is the case × model pass-rate table, folded, with the cases that
// did not pass first.
func (c commentBuilder) matrix() section {
	r := c.r
	if len(r.Cases) == 0 {
		return section{}
	}
	mx := newCaseMatrix(r.Cases)
	models := mx.models
	extraModels := 0
	if len(models) > commentModelsMax {
		extraModels = len(models) - commentModelsMax
		models = models[:commentModelsMax]
	}
	failing := map[string]bool{}
	for _, cs := range r.Cases {
		if o := c.j.kase(cs); o != outPass && o != outSkip {
			failing[cs.ID] = true
		}
	}
	ids := mx.ids
	sort.SliceStable(ids, func(i, j int) bool { return failing[ids[i]] && !failing[ids[j]] })
	head := []string{"case"}
	seps := []string{"---"}
	for _, mo := range models {
		head = append(head, codeSpan(cutRunes(mo, commentIDMax)))
		seps = append(seps, "---")
	}
	summary := fmt.Sprintf("Cases × models (%s, %s)", plural(len(ids), "case"), plural(len(models)+extraModels, "model"))
	s := section{
		head: []string{"<details><summary>" + summary + "</summary>", "",
			"| " + strings.Join(head, " | ") + " |", "| " + strings.Join(seps, " | ") + " |"},
		tail: []string{""},
		more: func(n int) string { return fmt.Sprintf("| … %d more cases in the full report |", n) },
	}
	for _, id := range ids {
		cells := []string{codeSpan(cutRunes(id, commentIDMax))}
		for _, mo := range models {
			cs, ok := mx.cell(id, mo)
			if !ok {
				cells = append(cells, "–")
				continue
			}
			mark, _, _ := strings.Cut(mdMarks[c.j.kase(cs)], " ")
			cell := fmt.Sprintf("%s %d/%d", mark, cs.Passed, cs.Runs)
			if f := flakyText(cs); f != "" {
				cell += " " + f
			}
			cells = append(cells, cell)
		}
		s.rows = append(s.rows, "| "+strings.Join(cells, " | ")+" |")
	}
	capRows(&s, commentCasesMax)
	if extraModels > 0 {
		s.tail = append(s.tail, fmt.Sprintf("%s more in the full report.", plural(extraModels, "model")), "")
	}
	s.tail = append(s.tail, "</details>", "")
	return s
}

// plural is "1 case", "2 cases".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func (c commentBuilder) footer() string {
	var links []string
	if c.runURL != "" {
		links = append(links, "[Full report and artifacts]("+c.runURL+")")
	}
	if c.baseURL != "" {
		links = append(links, "[baseline run]("+c.baseURL+")")
	}
	tool := "mcp-eval"
	if v := c.r.Tool.Version; v != "" {
		tool += " " + codeSpan(cutRunes(v, 40))
	}
	links = append(links, tool)
	return "---\n" + strings.Join(links, " · ") + "\n"
}

func (c commentBuilder) cutNote() string {
	where := "in summary.md and report.json of this run"
	if c.runURL != "" {
		where = "in the [run's job summary](" + c.runURL + ")"
	}
	return "_This comment was cut to stay within GitHub's size limit; the full report is " + where + "._\n\n"
}

// linkURL returns u when it is an absolute http(s) URL that is safe to put
// in a Markdown link, with parentheses and spaces percent-encoded, else "".
func linkURL(u string) string {
	if u == "" || len(u) > commentURLMax {
		return ""
	}
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" || p.User != nil {
		return ""
	}
	s := p.String()
	for _, r := range s {
		if r <= ' ' || r == 0x7f || r == '<' || r == '>' || r == '"' || r == '\\' || r == '`' || r > 0x7e {
			return ""
		}
	}
	return strings.NewReplacer("(", "%28", ")", "%29").Replace(s)
}
