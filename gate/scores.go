package gate

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/mcp-eval/mcp-eval/internal/stats"
	"github.com/mcp-eval/mcp-eval/report"
)

// modelDriven reports whether a score comes from model runs, so that a drop
// with an unchanged server can be blamed on the model. Conformance and the
// deterministic resilience probes involve no model: a drop there with the
// same fingerprint is a real server change (the fingerprint hashes only the
// tool surface, not behavior).
func modelDriven(key string) bool {
	return strings.HasPrefix(key, report.LayerBehavior+".") ||
		strings.HasSuffix(key, "fabricationRate") || strings.HasSuffix(key, "attackSuccessRate")
}

// gatedByItems reports whether a score is only an aggregate of items the
// gate already judges one by one. conformance.passRate is hard checks passed
// over hard checks, and every hard check must pass unless waived; failing
// the score as well would make a waiver for a new hard failure useless.
func gatedByItems(key string) bool { return key == report.ScoreConformancePassRate }

// scoreCounts returns the pooled good and total counts behind a score, where
// the report holds them: conformance.passRate from the runs of the hard
// conformance checks, behavior.passRate from the non-errored runs of the
// cases. Other scores are fractions of sub-populations the report does not
// count, so they are not tested for significance.
func scoreCounts(r *report.Report, key string) (passed, total int, ok bool) {
	switch key {
	case report.ScoreConformancePassRate:
		for _, c := range r.Checks {
			if c.Layer == report.LayerConformance && c.Hard {
				p, t := checkCounts(c)
				passed, total = passed+p, total+t
			}
		}
	case report.ScoreBehaviorPassRate:
		for _, c := range r.Cases {
			p, t := caseCounts(c)
			passed, total = passed+p, total+t
		}
	default:
		return 0, 0, false
	}
	return passed, total, total > 0
}

// scoreSides are the score keys of either report, sorted, with the
// baseline's scores and recorded floors.
type scoreSides struct {
	keys                   []string
	baseScores, baseFloors map[string]float64
	// sameServer: both reports carry the same fingerprint. Without one on
	// both sides nothing says the server is the same, so no drop is blamed
	// on the model.
	sameServer bool
}

func (e *evaluator) scoreSides() scoreSides {
	var sides scoreSides
	if e.base != nil {
		sides.baseScores = e.base.Scores
		if e.base.Gate != nil {
			sides.baseFloors = e.base.Gate.Floors
		}
		sides.sameServer = e.cur.Server.Fingerprint != "" && e.cur.Server.Fingerprint == e.base.Server.Fingerprint
	}
	sides.keys = slices.Sorted(maps.Keys(e.cur.Scores))
	for k := range sides.baseScores {
		if _, ok := e.cur.Scores[k]; !ok {
			sides.keys = append(sides.keys, k)
		}
	}
	slices.Sort(sides.keys)
	return sides
}

// scoreTally collects, over all keys, what the notes after the scores say.
type scoreTally struct {
	noBase, noCur, drifted, judged []string
}

func (e *evaluator) scores() {
	sides := e.scoreSides()
	e.judgeChange = judgeChange(e.base, e.cur)
	var t scoreTally
	for _, k := range sides.keys {
		e.d.Scores = append(e.d.Scores, e.score(k, sides, &t))
	}
	e.scoreNotes(t)
}

// score compares one score with the baseline's value and floor, and
// judges what moved the wrong way.
func (e *evaluator) score(k string, sides scoreSides, t *scoreTally) report.GateScore {
	gs := report.GateScore{Key: k, Direction: report.ScoreDirection(k)}
	cv, inCur := e.cur.Scores[k]
	bv, inBase := sides.baseScores[k]
	if inCur {
		gs.Current = ptr(cv)
	}
	if inBase {
		gs.Base = ptr(bv)
	}
	switch {
	case inCur && !inBase && e.base != nil:
		t.noBase = append(t.noBase, k)
	case inBase && !inCur:
		t.noCur = append(t.noCur, k)
	}
	if e.statistical() && strings.HasPrefix(k, report.LayerBehavior+".") {
		// Judged by the statistical gate's tests, case by case and over
		// the suite: the score moving by chance is neither a drop nor
		// drift, only a delta to show.
		if inCur && inBase {
			gs.Delta = round9(cv - bv)
			e.d.Deltas[k] = gs.Delta
		}
		return gs
	}
	var problems []string
	if inCur && inBase {
		problems = append(problems, e.scoreDrop(&gs, cv, bv)...)
	}
	if f, ok := sides.baseFloors[k]; ok && inCur {
		problems = append(problems, scoreFloor(&gs, cv, f)...)
	}
	if len(problems) > 0 {
		e.attribute(&gs, sides, t)
		e.judgeScore(&gs, "Score "+k+" "+strings.Join(problems, ", and "))
	}
	return gs
}

// attribute marks a model-driven score that moved on an unchanged server
// as drift, and tallies it as the judge's or the model's.
func (e *evaluator) attribute(gs *report.GateScore, sides scoreSides, t *scoreTally) {
	if !sides.sameServer || !modelDriven(gs.Key) {
		return
	}
	gs.Drift = true
	if e.judgeChange != "" && judgeDriven(gs.Key) {
		t.judged = append(t.judged, gs.Key)
	} else {
		t.drifted = append(t.drifted, gs.Key)
	}
}

// scoreDrop records the delta of a score present on both sides, and says
// so when it moved the wrong way by more than --max-drop.
func (e *evaluator) scoreDrop(gs *report.GateScore, cv, bv float64) []string {
	lower := gs.Direction == report.DirectionLower
	gs.Delta = round9(cv - bv)
	e.d.Deltas[gs.Key] = gs.Delta
	worse := bv - cv
	if lower {
		worse = -worse
	}
	if worse > eps {
		e.scoreSignificance(gs)
	}
	if worse <= e.p.MaxDrop+eps {
		return nil
	}
	gs.Drop = true
	verb := "fell"
	if lower {
		verb = "rose"
	}
	return []string{fmt.Sprintf("%s from %s to %s (%s), more than the allowed %s",
		verb, fmtNum(bv), fmtNum(cv), fmtSigned(gs.Delta), fmtNum(e.p.MaxDrop))}
}

// scoreFloor says when a score broke the floor (or ceiling) a ratcheted
// baseline recorded.
func scoreFloor(gs *report.GateScore, cv, f float64) []string {
	gs.Floor = ptr(f)
	switch lower := gs.Direction == report.DirectionLower; {
	case lower && cv > f+eps:
		gs.BelowFloor = true
		return []string{fmt.Sprintf("is %s, above its recorded ceiling of %s", fmtNum(cv), fmtNum(f))}
	case !lower && cv < f-eps:
		gs.BelowFloor = true
		return []string{fmt.Sprintf("is %s, below its recorded floor of %s", fmtNum(cv), fmtNum(f))}
	}
	return nil
}

// scoreNotes writes the notes about the scores as a whole: those without a
// side, and the drops blamed on the judge or on model drift.
func (e *evaluator) scoreNotes(t scoreTally) {
	if len(t.noBase) > 0 {
		e.note("No baseline value for %s: reported, not gated on a drop.", strings.Join(t.noBase, ", "))
	}
	if len(t.noCur) > 0 {
		e.note("Not measured in this run, though in the baseline: %s; not gated.", strings.Join(t.noCur, ", "))
	}
	var msgs []string
	if len(t.judged) > 0 {
		msgs = append(msgs, fmt.Sprintf("The judge changed since the baseline (%s), and the judge-graded %s moved the wrong way beyond what is allowed: judge changed, not model drift or your change.", e.judgeChange, strings.Join(t.judged, ", ")))
	}
	if len(t.drifted) > 0 {
		msgs = append(msgs, fmt.Sprintf("The server fingerprint is unchanged, yet %s moved the wrong way beyond what is allowed: likely model drift, not your change.", strings.Join(t.drifted, ", ")))
	}
	if len(msgs) > 0 {
		e.d.Drift = true
		e.d.DriftMessage = strings.Join(msgs, " ")
	}
}

// judgeDriven reports whether a score is graded by the judge model, in
// whole or in part: task completion (rubrics), and through it and semantic
// argument matches the pass rate and argument accuracy.
func judgeDriven(key string) bool {
	switch key {
	case report.ScoreTaskCompletion, report.ScoreBehaviorPassRate, report.ScoreArgumentAccuracy:
		return true
	}
	return false
}

// judgeChange says how the judge differs between the baseline and this
// run (its model or its prompt's hash), "" when it is the same or either
// side used none.
func judgeChange(base, cur *report.Report) string {
	if base == nil || base.Judge == nil || cur.Judge == nil {
		return ""
	}
	var parts []string
	if judgesDiffer(base, cur) {
		parts = append(parts, fmt.Sprintf("model %s → %s", orNone(base.Judge.Judges()), orNone(cur.Judge.Judges())))
	}
	if base.Judge.PromptSHA256 != cur.Judge.PromptSHA256 {
		parts = append(parts, fmt.Sprintf("prompt %s → %s", short(base.Judge.PromptSHA256), short(cur.Judge.PromptSHA256)))
	}
	return strings.Join(parts, ", ")
}

// judgesDiffer says that some model was graded by another judge in the
// baseline than in this run, model by model: a report from before the
// tested models graded each other names one judge for every model
// (JudgeInfo.JudgeOf).
func judgesDiffer(base, cur *report.Report) bool {
	if len(base.Judge.ByModel) == 0 && len(cur.Judge.ByModel) == 0 {
		return base.Judge.Model != cur.Judge.Model
	}
	models := map[string]bool{}
	for _, r := range []*report.Report{base, cur} {
		for m := range r.Judge.ByModel {
			models[m] = true
		}
		for _, c := range r.Cases {
			models[c.Model] = true
		}
	}
	for m := range models {
		if base.Judge.JudgeOf(m) != cur.Judge.JudgeOf(m) {
			return true
		}
	}
	return false
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// scoreSignificance runs the one-sided Fisher exact test on the counts
// behind a score, oriented so that the test always asks "did good outcomes
// become rarer".
func (e *evaluator) scoreSignificance(gs *report.GateScore) {
	bp, bt, ok1 := scoreCounts(e.base, gs.Key)
	cp, ct, ok2 := scoreCounts(e.cur, gs.Key)
	if !ok1 || !ok2 {
		return
	}
	pv := stats.FisherLower(bp, bt-bp, cp, ct-cp)
	gs.Tested, gs.PValue, gs.Significant = true, &pv, pv < e.p.Alpha
	gs.BasePassed, gs.BaseTotal, gs.Passed, gs.Total = bp, bt, cp, ct
}

// judgeScore decides whether a score that dropped or broke its floor fails
// the gate, and says why either way.
func (e *evaluator) judgeScore(gs *report.GateScore, desc string) {
	if gs.Drop {
		desc += "; " + scoreSigPhrase(gs, e.p.Alpha)
	}
	if why := e.scoreLetPass(gs); why != "" {
		e.note("%s. %s", desc, why)
		return
	}
	gs.Failed = true
	e.fail("%s. %s", desc, e.scoreAction(gs))
}

// scoreLetPass says why a score that moved the wrong way does not fail
// the gate, "" when it does.
func (e *evaluator) scoreLetPass(gs *report.GateScore) string {
	judged := e.judgeChange != "" && judgeDriven(gs.Key)
	switch {
	case gatedByItems(gs.Key):
		return "The hard checks behind it are gated one by one, so the score itself does not fail the gate."
	case e.p.RequireSignificance && !gs.BelowFloor && !gs.Significant:
		// A floor breach is not a sampling question: the floor already
		// allows --max-drop below the best level reached.
		return "--require-significance lets a drop that is not significant pass."
	case gs.Drift && e.p.Drift == DriftWarn && judged:
		return fmt.Sprintf("Judge changed since the baseline (%s): the judge, not the model or your change, likely moved it (--drift warn reports it without failing).", e.judgeChange)
	case gs.Drift && e.p.Drift == DriftWarn:
		return "The server fingerprint is unchanged: likely model drift, not your change (--drift warn reports it without failing)."
	}
	return ""
}

// scoreAction says what to do about a score that fails the gate.
func (e *evaluator) scoreAction(gs *report.GateScore) string {
	switch {
	case gs.Drift && e.judgeChange != "" && judgeDriven(gs.Key):
		return fmt.Sprintf("Judge changed since the baseline (%s): re-grade the baseline with this judge, or keep the judge; --drift warn would only report it.", e.judgeChange)
	case gs.Drift:
		return "The server fingerprint is unchanged: likely model drift, not your change; --drift fail counts it, --drift warn would only report it."
	case gs.Drop:
		return "Find the change behind it, or raise --max-drop if the drop is expected."
	}
	return "Floors recorded by --ratchet only tighten: restore the score."
}

// scoreSigPhrase says whether a drop is significant over the pooled runs.
func scoreSigPhrase(gs *report.GateScore, alpha float64) string {
	if !gs.Tested {
		return "not tested for significance (the report holds no run counts behind this score)"
	}
	return fmt.Sprintf("%s over the pooled runs (%d of %d passed in the baseline, %d of %d now)",
		sigPhrase(*gs.PValue, alpha), gs.BasePassed, gs.BaseTotal, gs.Passed, gs.Total)
}

// sigPhrase states a one-sided Fisher p-value against alpha.
func sigPhrase(p, alpha float64) string {
	switch {
	case p < 0.001 && p < alpha:
		return "significant, p < 0.001"
	case p < alpha:
		return fmt.Sprintf("significant, %s < %s", fmtP(p), fmtNum(alpha))
	}
	return fmt.Sprintf("not statistically significant, %s", fmtP(p))
}

// floors carries the baseline's floors forward (so a run without --ratchet
// does not lose them when it becomes the next baseline) and, with
// --ratchet, tightens them to this run's scores less --max-drop. Keeping the
// tolerance below the best level reached stops a slow slide of drops each
// within --max-drop, without failing the very next run on noise.
func (e *evaluator) floors() {
	var floors map[string]float64
	if e.base != nil && e.base.Gate != nil {
		floors = maps.Clone(e.base.Gate.Floors)
	}
	if e.p.Ratchet {
		if floors == nil {
			floors = map[string]float64{}
		}
		var raised []string
		for _, k := range slices.Sorted(maps.Keys(e.cur.Scores)) {
			v, lower := e.cur.Scores[k], report.LowerIsBetter(k)
			f := max(v-e.p.MaxDrop, 0)
			if lower {
				f = min(v+e.p.MaxDrop, 1)
			}
			f = round9(f)
			old, ok := floors[k]
			if ok && ((lower && f >= old-eps) || (!lower && f <= old+eps)) {
				continue
			}
			floors[k] = f
			if ok {
				raised = append(raised, fmt.Sprintf("%s %s → %s", k, fmtNum(old), fmtNum(f)))
			} else {
				raised = append(raised, fmt.Sprintf("%s %s", k, fmtNum(f)))
			}
		}
		if len(raised) > 0 {
			e.note("--ratchet recorded tighter floors for the next run (ceilings for lower-is-better scores): %s.", strings.Join(raised, ", "))
		}
	}
	if len(floors) > 0 {
		e.d.Floors = floors
	}
}

func ptr(v float64) *float64 { return &v }

// round9 drops float64 noise (0.93-0.95 = -0.020000000000000018) so that
// deltas and floors read and compare as the decimals they are.
func round9(x float64) float64 {
	r := math.Round(x*1e9) / 1e9
	if r == 0 {
		return 0 // no "-0" in report.json
	}
	return r
}

// fmtNum prints a score to at most four decimals.
func fmtNum(x float64) string {
	r := math.Round(x*1e4) / 1e4
	if r == 0 {
		r = 0
	}
	return strconv.FormatFloat(r, 'f', -1, 64)
}

// fmtSigned prints a delta with its sign.
func fmtSigned(x float64) string {
	s := fmtNum(x)
	if s != "0" && !strings.HasPrefix(s, "-") {
		s = "+" + s
	}
	return s
}

func fmtP(p float64) string {
	if p < 0.001 {
		return "p < 0.001"
	}
	return fmt.Sprintf("p = %.3g", p)
}
