package golden

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/mcp-eval/mcp-eval/agent"
	clippkg "github.com/mcp-eval/mcp-eval/internal/clip"
	"github.com/mcp-eval/mcp-eval/internal/stats"
	"github.com/mcp-eval/mcp-eval/judge"
	"github.com/mcp-eval/mcp-eval/report"
	"github.com/mcp-eval/mcp-eval/tasks"
)

// Score keys this package fills (DESIGN.md "Score keys"). A key whose
// population is empty (no negative case, no chain, no rubric…) is left out
// rather than reported as 0 or 1.
const (
	KeyPassRate            = report.ScoreBehaviorPassRate
	KeySelectionAccuracy   = report.ScoreSelectionAccuracy
	KeyFalseActivationRate = report.ScoreFalseActivationRate
	KeyArgumentAccuracy    = report.ScoreArgumentAccuracy
	KeySequenceAccuracy    = report.ScoreSequenceAccuracy
	KeyTaskCompletion      = report.ScoreTaskCompletion
	// KeyAnswerAccuracy is the share of runs whose final answer passed
	// the case's expect_answer.
	KeyAnswerAccuracy = report.ScoreAnswerAccuracy
)

// NoTool stands for "no tool" in the confusion matrix: the expectation of a
// negative case, or a run that called nothing.
const NoTool = "none"

// maxListed bounds report.Case Failures and Errors.
const maxListed = 5

// ScoreOptions are the judges scoring may use.
type ScoreOptions struct {
	// Judge grades runs of cases with a rubric. Without one, such runs are
	// errored: a rubric that nobody checks must not pass.
	Judge judge.Grader
	// Similar decides arg_match semantic. Without one, semantic matching
	// falls back to TokenSimilarity and the case says so.
	Similar tasks.SimilarityJudge
	// NoJudge, when set, says why there is no judge on purpose
	// (--judge-model none): cases with a rubric are then skipped with this
	// reason instead of erroring.
	NoJudge string
}

// RunScore is one run of one case, scored.
type RunScore struct {
	// Run is the 1-based index of the transcript.
	Run int
	// Errored runs (the model call failed, or a judge did) are left out of
	// every rate; Error says why.
	Errored bool
	Error   string
	// Selection follows DESIGN.md: the first call names expect_tool; no
	// call at all for a negative case; every step's tool called for a chain.
	Selection bool
	// FirstTool is the tool of the first call ("" when there was none);
	// FirstTurn the tools of every call of the first assistant turn that
	// called tools, in the model's order (parallel calls). SelectedTool is
	// the accepted tool the selection found ("" when it found none).
	FirstTool    string
	FirstTurn    []string
	SelectedTool string
	// Forbidden lists the forbid_tools the run called.
	Forbidden []string
	// Arguments is nil when not checked: the case checks no argument, or
	// the selection was wrong.
	Arguments *bool
	// Sequence is nil unless the case is a chain: whether the expected
	// tools are a subsequence of the calls.
	Sequence *bool
	// Answer is nil unless the case has expect_answer.
	Answer *bool
	// Judge is nil unless the case has a rubric.
	Judge       *bool
	JudgeReason string
	// SemanticFallback: a semantic match used TokenSimilarity.
	SemanticFallback bool
	// Passed: every part that applies passed.
	Passed bool
	// Reasons say why the run failed.
	Reasons []string
}

// CaseScore is one case on one model: every run scored and the report
// entry.
type CaseScore struct {
	Case  *tasks.Case
	Model string
	Runs  []RunScore
	// Report is the case's report.json entry.
	Report report.Case

	skipped bool
}

// ScoreCase scores the transcripts of the runs of c on model (the
// provider:model name the report uses). A nil transcript counts as an
// errored run. Judges are called once per run that needs them; their
// failures make the run errored. ScoreCase is safe to call concurrently
// for different cases as long as the judges are.
func ScoreCase(ctx context.Context, c *tasks.Case, model string, transcripts []*agent.Transcript, opts ScoreOptions) *CaseScore {
	if cs := skipCase(c, model, opts); cs != nil {
		return cs
	}
	cs := &CaseScore{Case: c, Model: model, Runs: make([]RunScore, len(transcripts))}
	for i, t := range transcripts {
		cs.Runs[i] = ScoreRun(ctx, c, t, opts)
		cs.Runs[i].Run = i + 1
	}
	cs.Report = cs.reportCase()
	return cs
}

// skipCase is the score of a case that cannot be scored under opts, nil
// for one that can: a rubric nobody grades (--judge-model none) must
// neither pass nor fail, so the case is skipped without runs, counted in no
// score and by no gate.
func skipCase(c *tasks.Case, model string, opts ScoreOptions) *CaseScore {
	if c.Rubric == "" || opts.NoJudge == "" {
		return nil
	}
	return skippedCase(c, model, "the case has a rubric and "+opts.NoJudge)
}

// skippedCase is the score of a case that has no runs to score, for the
// reason given.
func skippedCase(c *tasks.Case, model, reason string) *CaseScore {
	cs := &CaseScore{Case: c, Model: model, skipped: true}
	cs.Report = cs.reportCase()
	cs.Report.Status = report.StatusSkip
	cs.Report.Skipped = reason
	return cs
}

// ScoreRun scores one run. Run is left 0 for the caller to set.
func ScoreRun(ctx context.Context, c *tasks.Case, t *agent.Transcript, opts ScoreOptions) RunScore {
	var r RunScore
	if reason := t.Failure(); reason != "" {
		r.Errored, r.Error = true, reason
		return r
	}
	if len(c.Turns) > 0 {
		return scoreTurns(ctx, c, t, opts)
	}
	names := t.Selected()
	if len(names) > 0 {
		r.FirstTool = names[0]
	}
	r.FirstTurn = firstTurn(t.Calls)
	switch {
	case c.Negative:
		r.scoreNegative(names)
	case c.Chain():
		r.scoreChain(c, names)
	default:
		r.scoreSelection(c, t.Final)
	}
	for _, f := range c.ForbidTools {
		if slices.Contains(names, f) {
			r.Forbidden = append(r.Forbidden, f)
			r.reason("called %s, which the case forbids", f)
		}
	}

	if r.Selection && c.ChecksArgs() {
		ok, err := r.checkArgs(ctx, c, t, opts.Similar)
		if err != nil {
			return RunScore{Errored: true, Error: err.Error(), FirstTool: r.FirstTool}
		}
		r.Arguments = &ok
	}

	if c.Answer != nil {
		why := c.Answer.Check(t.Final)
		ok := len(why) == 0
		r.Answer = &ok
		for _, w := range why {
			r.reason("%s", w)
		}
	}

	return r.finish(ctx, c, t, opts)
}

// scoreNegative: a negative case selects right when it calls no tool.
func (r *RunScore) scoreNegative(names []string) {
	r.Selection = len(names) == 0
	if !r.Selection {
		r.reason("called %s, want no tool call", strings.Join(dedupe(names), ", "))
	}
}

// scoreChain: a chain selects right when every step's tool was called, and
// is in sequence when the steps are a subsequence of the calls.
func (r *RunScore) scoreChain(c *tasks.Case, names []string) {
	want := sequenceTools(c)
	var missing []string
	for _, w := range dedupe(want) {
		if !slices.Contains(names, w) {
			missing = append(missing, w)
		}
	}
	r.Selection = len(missing) == 0
	if !r.Selection {
		r.reason("chain: never called %s", strings.Join(missing, ", "))
	}
	inOrder := isSubsequence(want, names)
	r.Sequence = &inOrder
	if !inOrder && r.Selection {
		r.reason("chain: want the order %s, calls were %s", strings.Join(want, " → "), strings.Join(names, " → "))
	}
}

// scoreSelection: an expect_tool case selects right when an accepted tool
// is among the first tool-calling turn's calls (selection: first, when it
// is the very first call).
func (r *RunScore) scoreSelection(c *tasks.Case, final string) {
	candidates := r.FirstTurn
	if c.Selection == tasks.SelectFirst && r.FirstTool != "" {
		candidates = []string{r.FirstTool}
	}
	for _, name := range candidates {
		if slices.Contains(c.AcceptTools, name) {
			r.Selection, r.SelectedTool = true, name
			break
		}
	}
	want := wantTools(c.AcceptTools)
	switch {
	case r.Selection:
	case r.FirstTool == "" && textCall(final, c.AcceptTools) != "":
		// The model printed a call instead of making one (a chat template
		// or tool-call parser the server lacks): it is reported, never
		// taken for a call.
		r.reason("model did not call a tool: it wrote %s as text (%q), which the server did not return as a tool call; want %s",
			textCall(final, c.AcceptTools), clippkg.Runes(strings.TrimSpace(final), 80), want)
	case r.FirstTool == "":
		r.reason("called no tool, want %s", want)
	case c.Selection == tasks.SelectFirst && len(r.FirstTurn) > 1 && slices.ContainsFunc(r.FirstTurn, func(n string) bool { return slices.Contains(c.AcceptTools, n) }):
		r.reason("wrong tool first: called %s first (then %s in the same turn), want %s first (selection: first)", r.FirstTool, strings.Join(r.FirstTurn[1:], ", "), want)
	case len(r.FirstTurn) > 1:
		r.reason("wrong tool: called %s instead of %s", strings.Join(r.FirstTurn, " and "), want)
	default:
		r.reason("wrong tool: called %s instead of %s", r.FirstTool, want)
	}
}

// callMarkers are what models print around a tool call written as text
// when the server does not parse it (Hermes/Qwen <tool_call>, Mistral
// [TOOL_CALLS], Llama <|python_tag|>, <function=…>, JSON with "name").
var callMarkers = []string{"<tool_call>", "[TOOL_CALLS]", "<|python_tag|>", "<function=", `"name"`, `"function"`, `"arguments"`, `"parameters"`}

// textCall returns the tool of tools that final writes out as a call
// rather than making one: the name with a call marker, or followed by an
// argument list or object ("get_weather(city=…)", "get_weather {…}");
// "" when the text merely mentions it or is no call.
func textCall(final string, tools []string) string {
	for _, name := range tools {
		i := strings.Index(final, name)
		if i < 0 {
			continue
		}
		for _, m := range callMarkers {
			if strings.Contains(final, m) {
				return name
			}
		}
		rest := strings.TrimLeft(final[i+len(name):], " \t\"'`:")
		if strings.HasPrefix(rest, "(") || strings.HasPrefix(rest, "{") {
			return name
		}
	}
	return ""
}

// firstTurn returns the tools of the calls of the first model turn that
// called any, in order.
func firstTurn(calls []agent.Call) []string {
	if len(calls) == 0 {
		return nil
	}
	turn := calls[0].Turn
	var out []string
	for _, c := range calls {
		if c.Turn == turn {
			out = append(out, c.Name)
		}
	}
	return out
}

// wantTools names the acceptable tools for a reason.
func wantTools(tools []string) string {
	if len(tools) == 1 {
		return tools[0]
	}
	return "one of " + strings.Join(tools, ", ")
}

// finish grades the rubric, if the case has one, and decides the run: it
// passes when it selected right, called nothing forbidden, and every check
// that applies (arguments, sequence, answer, judge) holds. A judge that
// cannot grade makes the run errored, not failed.
func (r RunScore) finish(ctx context.Context, c *tasks.Case, t *agent.Transcript, opts ScoreOptions) RunScore {
	if c.Rubric != "" {
		if opts.Judge == nil {
			return RunScore{Errored: true, Error: errNoJudge.Error(), FirstTool: r.FirstTool}
		}
		pass, reason, err := opts.Judge.Grade(ctx, c.Rubric, t)
		if err != nil {
			return RunScore{Errored: true, Error: "judge: " + err.Error(), FirstTool: r.FirstTool}
		}
		r.Judge, r.JudgeReason = &pass, reason
		if !pass {
			r.reason("judge: %s", cmp.Or(reason, "rubric not met"))
		}
	}
	r.Passed = r.Selection && len(r.Forbidden) == 0 && isTrueOrNil(r.Arguments) && isTrueOrNil(r.Sequence) &&
		isTrueOrNil(r.Answer) && isTrueOrNil(r.Judge)
	if t.Refusal != "" && !r.Passed {
		// The refusal explains the rest (no tool called, an empty answer).
		r.Reasons = append([]string{"the model refused: " + clippkg.Runes(t.Refusal, 200)}, r.Reasons...)
	}
	return r
}

func (r *RunScore) reason(format string, args ...any) {
	r.Reasons = append(r.Reasons, fmt.Sprintf(format, args...))
}

func isTrueOrNil(b *bool) bool { return b == nil || *b }

// checkArgs checks the arguments of the call each expectation is matched
// to: for a single-tool case the first call (of the expected tool, since
// the selection is right); for a chain, the k-th step naming a tool is
// matched to the k-th call of that tool, whatever the order.
func (r *RunScore) checkArgs(ctx context.Context, c *tasks.Case, t *agent.Transcript, sim tasks.SimilarityJudge) (bool, error) {
	type target struct {
		tool   string
		nth    int
		checks []*tasks.ArgCheck
	}
	var targets []target
	if c.Chain() {
		seen := map[string]int{}
		for _, st := range c.Sequence {
			n := seen[st.Tool]
			seen[st.Tool]++
			if len(st.Args) > 0 {
				targets = append(targets, target{st.Tool, n, st.Args})
			}
		}
	} else {
		// The first call of the tool the selection accepted (in the first
		// turn with calls, where selection found it).
		targets = []target{{cmp.Or(r.SelectedTool, c.ExpectTool), 0, c.Args}}
	}
	ok := true
	for _, tg := range targets {
		call := nthCall(t.Calls, tg.tool, tg.nth)
		prefix := ""
		if c.Chain() {
			prefix = fmt.Sprintf("%s call %d: ", tg.tool, tg.nth+1)
		}
		if call == nil {
			r.reason("%sno such call", prefix)
			ok = false
			continue
		}
		args, why := callArgs(call)
		if why != "" {
			r.reason("%s%s", prefix, why)
			ok = false
			continue
		}
		for _, a := range tg.checks {
			var actual json.RawMessage
			if v, present := args[a.Name]; present {
				actual = v
			}
			m, err := a.Match(ctx, actual, sim)
			if err != nil {
				return false, err
			}
			r.SemanticFallback = r.SemanticFallback || m.Fallback
			if !m.OK {
				r.reason("%s%s", prefix, m.Reason)
				ok = false
			}
		}
	}
	return ok, nil
}

func nthCall(calls []agent.Call, tool string, n int) *agent.Call {
	for i := range calls {
		if calls[i].Name == tool {
			if n == 0 {
				return &calls[i]
			}
			n--
		}
	}
	return nil
}

// callArgs decodes a call's arguments as an object; why says what is wrong
// with them otherwise.
func callArgs(c *agent.Call) (map[string]json.RawMessage, string) {
	if c.Arguments == nil {
		if c.InvalidArguments != "" {
			return nil, fmt.Sprintf("arguments are not JSON: %s", clip(c.InvalidArguments))
		}
		return map[string]json.RawMessage{}, ""
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(c.Arguments, &m); err != nil || m == nil {
		return nil, fmt.Sprintf("arguments are not a JSON object: %s", clip(string(c.Arguments)))
	}
	return m, ""
}

func sequenceTools(c *tasks.Case) []string {
	out := make([]string, len(c.Sequence))
	for i, s := range c.Sequence {
		out[i] = s.Tool
	}
	return out
}

// isSubsequence reports whether want appears in got in order, other calls
// allowed in between.
func isSubsequence(want, got []string) bool {
	i := 0
	for _, g := range got {
		if i < len(want) && g == want[i] {
			i++
		}
	}
	return i == len(want)
}

func dedupe(s []string) []string {
	var out []string
	for _, v := range s {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// frac is t's rate, nil for an empty population (a report field left out).
func frac(t stats.Tally) *float64 {
	if r, ok := t.Rate(); ok {
		return &r
	}
	return nil
}

// counts are the tallies behind every score, for one case or pooled.
type counts struct {
	pass, selection, activation, arguments, sequence, judge, answer stats.Tally
}

func (cn *counts) addRun(c *tasks.Case, r RunScore) {
	if r.Errored {
		return
	}
	cn.pass.Add(r.Passed)
	cn.selection.Add(r.Selection)
	if c.Negative {
		cn.activation.Add(!r.Selection)
	}
	if r.Arguments != nil {
		cn.arguments.Add(*r.Arguments)
	}
	if r.Sequence != nil {
		cn.sequence.Add(*r.Sequence)
	}
	if r.Judge != nil {
		cn.judge.Add(*r.Judge)
	}
	if r.Answer != nil {
		cn.answer.Add(*r.Answer)
	}
}

// byKey names the tallies by the scores they make, for stats.Pool.
func (cn counts) byKey() map[string]stats.Tally {
	return map[string]stats.Tally{
		KeyPassRate:            cn.pass,
		KeySelectionAccuracy:   cn.selection,
		KeyFalseActivationRate: cn.activation,
		KeyArgumentAccuracy:    cn.arguments,
		KeySequenceAccuracy:    cn.sequence,
		KeyTaskCompletion:      cn.judge,
		KeyAnswerAccuracy:      cn.answer,
	}
}

func (cs *CaseScore) counts() counts {
	var cn counts
	if cs.skipped {
		return cn
	}
	for _, r := range cs.Runs {
		cn.addRun(cs.Case, r)
	}
	return cn
}

func (cs *CaseScore) reportCase() report.Case {
	c := cs.Case
	cn := cs.counts()
	rc := report.Case{
		ID:        c.ID,
		Model:     cs.Model,
		Kind:      string(c.Kind),
		Runs:      len(cs.Runs),
		Passed:    cn.pass.Good,
		Errored:   len(cs.Runs) - cn.pass.Total,
		Floor:     c.Floor,
		Selection: frac(cn.selection),
		Arguments: frac(cn.arguments),
		Sequence:  frac(cn.sequence),
		Judge:     frac(cn.judge),
		Answer:    frac(cn.answer),
		Tags:      slices.Clone(c.Tags),
		Negative:  c.Negative,
		Draft:     c.Draft,
		File:      c.File,
		Line:      c.Line,
	}
	rc.PassRate, _ = cn.pass.Rate()
	rc.WilsonLow, rc.WilsonHigh = stats.Wilson(cn.pass.Good, cn.pass.Total)
	rc.Flaky = cn.pass.Total > 0 && cn.pass.Good > 0 && cn.pass.Good < cn.pass.Total
	switch {
	case cn.pass.Total == 0:
		rc.Status = report.StatusError
	case rc.PassRate >= c.Floor-1e-9:
		rc.Status = report.StatusPass
	default:
		rc.Status = report.StatusFail
	}
	for _, r := range cs.Runs {
		switch {
		case r.Errored:
			rc.RunOutcomes = append(rc.RunOutcomes, "error")
		case r.Passed:
			rc.RunOutcomes = append(rc.RunOutcomes, "pass")
		default:
			rc.RunOutcomes = append(rc.RunOutcomes, "fail")
		}
		rc.SemanticFallback = rc.SemanticFallback || r.SemanticFallback
		switch {
		case r.Errored && len(rc.Errors) < maxListed:
			rc.Errors = append(rc.Errors, fmt.Sprintf("run %d: %s", r.Run, r.Error))
		case !r.Errored && !r.Passed && len(rc.Failures) < maxListed:
			rc.Failures = append(rc.Failures, fmt.Sprintf("run %d: %s", r.Run, strings.Join(r.Reasons, "; ")))
		}
		if jt := judgeText(r); jt != "" && len(rc.JudgeReasons) < maxListed {
			rc.JudgeReasons = append(rc.JudgeReasons, fmt.Sprintf("run %d: %s", r.Run, jt))
		}
	}
	return rc
}

// Summary is Layer 1's part of report.json.
type Summary struct {
	// Cases sorted by id, then model.
	Cases []report.Case
	// Scores pools every non-errored run of every model; ScoresByModel
	// has the same keys per model.
	Scores        map[string]float64
	ScoresByModel map[string]map[string]float64
	// Confusion is the tool confusion matrix: for the non-errored runs of
	// single-tool and negative cases (chains are left out), the expected
	// tool (NoTool for a negative case) against the first tool called
	// (NoTool for none), per model. Sorted; zero cells are left out.
	Confusion []report.ConfusionCell
	// SemanticFallback: some semantic match ran without a judge.
	SemanticFallback bool
	// Rubrics: some case has a rubric, so a judge graded runs.
	Rubrics bool
}

// Summarize pools scored cases into the report's cases, scores,
// scoresByModel and confusion matrix.
func Summarize(scored []*CaseScore) *Summary {
	s := &Summary{}
	var pool stats.Pool
	cells := map[report.ConfusionCell]int{}
	for _, cs := range scored {
		s.Cases = append(s.Cases, cs.Report)
		s.SemanticFallback = s.SemanticFallback || cs.Report.SemanticFallback
		s.Rubrics = s.Rubrics || cs.Case.Rubric != ""
		pool.Add(cs.Model, cs.counts().byKey())
		// A multi-turn case stands in the matrix with its first turn.
		first := cs.Case
		if len(first.Turns) > 0 {
			first = first.Turns[0]
		}
		if first.Chain() || cs.skipped {
			continue
		}
		expected := cmp.Or(first.ExpectTool, NoTool)
		for _, r := range cs.Runs {
			if r.Errored {
				continue
			}
			// Each call of the first turn counts: a parallel call of the
			// expected tool and another is not a mix-up of the two.
			if len(r.FirstTurn) == 0 {
				cells[report.ConfusionCell{Model: cs.Model, Expected: expected, Selected: NoTool}]++
			}
			for _, name := range r.FirstTurn {
				cells[report.ConfusionCell{Model: cs.Model, Expected: expected, Selected: name}]++
			}
		}
	}
	s.Scores, s.ScoresByModel = pool.Scores()
	s.Confusion = sortedCells(cells)
	slices.SortStableFunc(s.Cases, func(a, b report.Case) int {
		return cmp.Or(cmp.Compare(a.ID, b.ID), cmp.Compare(a.Model, b.Model))
	})
	return s
}

// Apply writes the summary into r: the cases are appended (and the report
// re-sorted), the scores merged into r.Scores and r.ScoresByModel, the
// confusion matrix set, and r.Judge recorded when a judge was involved.
// ji describes the judge (nil: none, and the built-in prompt); its
// SemanticFallback is set from the summary.
func (s *Summary) Apply(r *report.Report, ji *report.JudgeInfo) {
	r.Cases = append(r.Cases, s.Cases...)
	r.AddScores(s.Scores, s.ScoresByModel)
	r.Confusion = append(r.Confusion, s.Confusion...)
	if ji != nil || s.Rubrics || s.SemanticFallback {
		info := report.JudgeInfo{PromptSHA256: judge.PromptSHA256()}
		if ji != nil {
			info = *ji
		}
		info.SemanticFallback = info.SemanticFallback || s.SemanticFallback
		r.Judge = &info
	}
	r.Sort()
}

// ScoresFromCases recomputes the pooled and per-model behavior scores from
// report cases alone, as joining shard reports (mcp-eval merge) needs. It
// gives the same numbers as Summarize, because every fraction of a case has
// a denominator that follows from the case: passRate, selection, sequence
// and judge count the non-errored runs (runs − errored); arguments counts
// the runs that selected right; false activation counts the non-errored
// runs of negative cases.
func ScoresFromCases(cases []report.Case) (scores map[string]float64, byModel map[string]map[string]float64) {
	var pool stats.Pool
	for _, c := range cases {
		n := c.Runs - c.Errored
		if n <= 0 {
			continue
		}
		share := func(f *float64, of int) stats.Tally {
			if f == nil {
				return stats.Tally{}
			}
			return stats.Tally{Good: int(math.Round(*f * float64(of))), Total: of}
		}
		var cn counts
		cn.pass = stats.Tally{Good: c.Passed, Total: n}
		cn.selection = share(c.Selection, n)
		if c.Negative {
			cn.activation = stats.Tally{Good: n - cn.selection.Good, Total: n}
		}
		cn.arguments = share(c.Arguments, cn.selection.Good)
		cn.sequence = share(c.Sequence, n)
		cn.judge = share(c.Judge, n)
		cn.answer = share(c.Answer, n)
		pool.Add(c.Model, cn.byKey())
	}
	return pool.Scores()
}

// MergeConfusion adds up the cells of several confusion matrices (the
// shards of one run) and sorts them.
func MergeConfusion(cells []report.ConfusionCell) []report.ConfusionCell {
	sum := map[report.ConfusionCell]int{}
	for _, c := range cells {
		n := c.Count
		c.Count = 0
		sum[c] += n
	}
	return sortedCells(sum)
}

func sortedCells(cells map[report.ConfusionCell]int) []report.ConfusionCell {
	var out []report.ConfusionCell
	for _, cell := range slices.SortedFunc(maps.Keys(cells), func(a, b report.ConfusionCell) int {
		return cmp.Or(cmp.Compare(a.Model, b.Model), cmp.Compare(a.Expected, b.Expected), cmp.Compare(a.Selected, b.Selected))
	}) {
		cell.Count = cells[cell]
		out = append(out, cell)
	}
	return out
}

// scoreTurns scores a multi-turn run: each turn's expectations against
// the calls and the answer that followed its user message; the run passes
// when every turn does (and the rubric, which grades the whole run). The
// first turn's selection stands for the run in the confusion matrix.
func scoreTurns(ctx context.Context, c *tasks.Case, t *agent.Transcript, opts ScoreOptions) RunScore {
	var r RunScore
	r.Selection = true
	and := func(dst **bool, v *bool) {
		if v == nil {
			return
		}
		if *dst == nil {
			b := true
			*dst = &b
		}
		**dst = **dst && *v
	}
	for i, turn := range c.Turns {
		seg := &agent.Transcript{Calls: []agent.Call{}, Stop: agent.StopFinal}
		for _, call := range t.Calls {
			if call.UserTurn == i {
				seg.Calls = append(seg.Calls, call)
			}
		}
		switch {
		case i < len(t.Finals):
			seg.Final = t.Finals[i]
		case len(t.Finals) == 0 && i == 0:
			seg.Final = t.Final
		default:
			r.reason("turn %d: the run ended (%s) before this turn was answered", i+1, t.Stop)
			r.Selection = false
			continue
		}
		tr := ScoreRun(ctx, turn, seg, ScoreOptions{Similar: opts.Similar})
		if tr.Errored {
			return RunScore{Errored: true, Error: fmt.Sprintf("turn %d: %s", i+1, tr.Error)}
		}
		if i == 0 {
			r.FirstTool, r.FirstTurn, r.SelectedTool = tr.FirstTool, tr.FirstTurn, tr.SelectedTool
		}
		r.Selection = r.Selection && tr.Selection
		r.SemanticFallback = r.SemanticFallback || tr.SemanticFallback
		r.Forbidden = append(r.Forbidden, tr.Forbidden...)
		and(&r.Arguments, tr.Arguments)
		and(&r.Sequence, tr.Sequence)
		and(&r.Answer, tr.Answer)
		for _, why := range tr.Reasons {
			r.reason("turn %d: %s", i+1, why)
		}
	}
	if t.Stop == agent.StopMaxTurns {
		r.reason("the run hit max_turns before the conversation ended")
		r.Selection = false
	}
	return r.finish(ctx, c, t, opts)
}

// errNoJudge is the error of a rubric run when no judge was configured.
var errNoJudge = errors.New("the case has a rubric but no judge model is configured (--judge-model)")

// clip shortens a value quoted in a reason to 80 runes.
func clip(s string) string { return clippkg.Runes(s, 80) }
