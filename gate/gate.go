// Package gate decides whether a run passes: it compares a report with the
// report of the last green run (the baseline) under a Policy and returns a
// Decision that names regressions, still-failing, new and fixed checks and
// cases, waived failures, stale waivers, score drops with their statistical
// significance, model drift and ratcheted floors.
//
// It is pure: no I/O and no clock (the caller passes Policy.Now and the
// waiver file's bytes). It imports only the standard library, report,
// internal/stats and, to read the waiver file, gopkg.in/yaml.v3 with
// internal/yamlfile's error types and internal/suggest; it must never
// import a layer.
package gate

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcp-eval/mcp-eval/internal/stats"
	"github.com/mcp-eval/mcp-eval/report"
)

// Defaults of the policy flags.
const (
	// DefaultMaxDrop is two points: how far an aggregate score may move the
	// wrong way against the baseline.
	DefaultMaxDrop = 0.02
	// DefaultAlpha is the significance level of the Fisher exact test.
	DefaultAlpha = 0.05
)

// eps absorbs float64 rounding so that a drop of exactly --max-drop (0.95 to
// 0.93 is 0.020000000000000018 in float64) passes as the flag promises.
const eps = 1e-9

// DriftMode says what a score drop does when the server fingerprint did not
// change, so the drop likely came from the model rather than the change
// under test. It is a flag.Value (--drift warn|fail).
type DriftMode int

// Drift modes. The zero value is DriftWarn, the default.
const (
	DriftWarn DriftMode = iota // report the drop, do not fail
	DriftFail                  // fail on it like any other drop
)

var _ flag.Value = (*DriftMode)(nil)

// Method is how Layer 1 is judged (--gate statistical|fixed).
type Method int

// Methods. The zero value is MethodFixed, the seed rule, so that a Policy
// written before the statistical gate keeps its meaning; the flag's
// default is MethodStatistical.
const (
	MethodFixed       Method = iota // a case below its floor over its runs fails; drops beyond --max-drop fail
	MethodStatistical               // decisions on evidence at one false-alarm rate
)

var _ flag.Value = (*Method)(nil)

// String returns the flag spelling of the method.
func (m Method) String() string {
	if m == MethodStatistical {
		return report.GateStatistical
	}
	return report.GateFixed
}

// Set parses the flag spelling of the method.
func (m *Method) Set(s string) error {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case report.GateStatistical:
		*m = MethodStatistical
	case report.GateFixed:
		*m = MethodFixed
	default:
		return fmt.Errorf("gate %q: want statistical or fixed", s)
	}
	return nil
}

// String returns the flag spelling of the mode.
func (m DriftMode) String() string { return modeString(m, DriftFail) }

// Set parses the flag spelling of the mode.
func (m *DriftMode) Set(s string) error { return setMode(m, s, "drift mode", DriftWarn, DriftFail) }

// modeString and setMode are String and Set of the warn|fail flags
// (DriftMode, PerfMode).
func modeString[M comparable](m, fail M) string {
	if m == fail {
		return "fail"
	}
	return "warn"
}

func setMode[M comparable](m *M, s, what string, warn, fail M) error {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "warn":
		*m = warn
	case "fail":
		*m = fail
	default:
		return fmt.Errorf("%s %q: want warn or fail", what, s)
	}
	return nil
}

// Policy is what the gate enforces. The zero value allows no score drop at
// all (MaxDrop 0); callers start from DefaultMaxDrop.
type Policy struct {
	// Method is how Layer 1 cases and behavior scores are judged.
	Method Method
	// MaxDrop is how far an aggregate score may move the wrong way against
	// the baseline (a fraction: 0.02 is two points).
	MaxDrop float64
	// Strict makes failures of non-hard (SHOULD-level) checks fail the gate.
	Strict bool
	// Drift decides whether drops with an unchanged server fingerprint fail.
	Drift DriftMode
	// RequireSignificance makes only statistically significant score drops
	// fail; the others are reported.
	RequireSignificance bool
	// Alpha is the significance level (under MethodStatistical the run's
	// false-alarm rate over every test together); zero means DefaultAlpha.
	Alpha float64
	// Ratchet records tighter floors from this run's scores in the Decision,
	// so the next run gates on them.
	Ratchet bool
	// Waivers accept known failures; see ParseWaivers.
	Waivers []Waiver
	// Now decides which waivers have expired; the gate reads no clock. At
	// the zero time no waiver has expired.
	Now time.Time
	// MaxLatencyIncrease and MaxCostIncrease bound the relative increase
	// of p95 latency per tool and per model, and of cost per case run,
	// against the baseline's telemetry (0.25 allows +25%); 0 sets no
	// bound. Perf decides what exceeding them does. See perf.go.
	MaxLatencyIncrease float64
	MaxCostIncrease    float64
	Perf               PerfMode
}

// Validate reports a policy the gate cannot apply meaningfully, for the
// caller to turn into a usage error before any work.
func (p Policy) Validate() error {
	var errs []error
	if p.MaxDrop < 0 || p.MaxDrop > 1 {
		errs = append(errs, fmt.Errorf("max-drop %v: want a fraction between 0 and 1 (0.02 is two points)", p.MaxDrop))
	}
	if p.Alpha < 0 || p.Alpha >= 1 {
		errs = append(errs, fmt.Errorf("alpha %v: want a level between 0 and 1, such as 0.05", p.Alpha))
	}
	if p.Drift != DriftWarn && p.Drift != DriftFail {
		errs = append(errs, fmt.Errorf("drift mode %d: want warn or fail", p.Drift))
	}
	errs = append(errs, p.validatePerf()...)
	return errors.Join(errs...)
}

// Decision is the outcome of Evaluate. Lists are sorted (checks by id, cases
// by id then model, scores by key) so that renderings are deterministic.
type Decision struct {
	Passed bool
	// NoBaseline says there was no baseline: only absolute floors applied.
	NoBaseline bool
	// Reasons say why the gate failed, one actionable sentence each; empty
	// when it passed.
	Reasons []string
	// Notes are what the user should know without the gate failing on it.
	Notes []string
	// Deltas is current minus baseline for every score key in both reports.
	Deltas map[string]float64
	// Scores details every score key in either report.
	Scores []report.GateScore
	// Failing checks and cases, by their state in the baseline, and those
	// the baseline had failing that pass now.
	Regressions  []report.GateItem
	StillFailing []report.GateItem
	New          []report.GateItem
	Fixed        []report.GateItem
	// Waived are failures a waiver accepted (also listed above).
	Waived []report.GateItem
	// StaleWaivers match no failure and fail the gate; ExpiredWaivers are past
	// their date and no longer waive anything.
	StaleWaivers   []Waiver
	ExpiredWaivers []Waiver
	// Drift is set when scores fell beyond MaxDrop with an unchanged server
	// fingerprint; DriftMessage says which.
	Drift        bool
	DriftMessage string
	// Floors are the score floors the next run gates on: the baseline's,
	// tightened by this run's scores when Policy.Ratchet is set.
	Floors map[string]float64
	// Perf compares latency and cost with the baseline's telemetry.
	Perf []report.GatePerf
	// Statistics is the statistical gate's design and tests, and Cases the
	// current report's cases as it decided them (nil under MethodFixed).
	Statistics *report.GateStatistics
	Cases      []report.Case
}

// Evaluate compares cur with base under p. base may be nil: then only the
// absolute floors apply (hard checks pass, cases at their floors, waivers)
// and the Decision says so. cur must not be nil. Neither report is modified.
func Evaluate(cur, base *report.Report, p Policy) Decision {
	if p.Alpha <= 0 || p.Alpha >= 1 {
		p.Alpha = DefaultAlpha
	}
	p.MaxDrop = min(max(p.MaxDrop, 0), 1)
	e := &evaluator{
		cur:  cur,
		base: base,
		p:    p,
		ws:   newWaiverSet(p.Waivers),
		d:    &Decision{Deltas: map[string]float64{}, NoBaseline: base == nil},
	}
	if base == nil {
		e.note("No baseline report was found, so only absolute floors apply: hard checks must pass, hard cases must pass every run and soft cases at least 80%% (each case's floor); score changes were not compared.")
	}
	if e.statistical() {
		e.prepareStats()
	}
	e.checks()
	e.cases()
	e.waivers()
	e.scores()
	e.floors()
	e.perf()
	if e.cur.Interrupted != "" {
		e.d.Reasons = append(e.d.Reasons, "The run was interrupted by "+e.cur.Interrupted+": a partial report cannot pass, nor serve as a baseline; run it again to the end.")
	}
	if e.stat != nil {
		e.d.Statistics, e.d.Cases = e.stat.st, e.stat.cases
		if n := len(e.stat.st.Incomplete); n > 0 {
			e.d.Reasons = append(e.d.Reasons, fmt.Sprintf("%d case(s) were left undecided when the run stopped (%s): the run is incomplete, neither passed nor regressed, and cannot serve as a baseline; give it more budget (--model-budget) or run fewer cases.", n, strings.Join(e.stat.st.Incomplete, ", ")))
		}
	}
	e.d.Passed = len(e.d.Reasons) == 0
	return *e.d
}

// Apply records the decision in r.Gate. It keeps r.Gate.Baseline if the
// caller already set it: where the baseline came from is the caller's to
// say, and report.json leaves it empty when there was none.
func (d Decision) Apply(r *report.Report) {
	var baseline string
	if r.Gate != nil && !d.NoBaseline {
		baseline = r.Gate.Baseline
	}
	// Empty, not null, in report.json: the contract shows {} and [].
	deltas := maps.Clone(d.Deltas)
	if deltas == nil {
		deltas = map[string]float64{}
	}
	g := &report.Gate{
		Passed:       d.Passed,
		Baseline:     baseline,
		Deltas:       deltas,
		Reasons:      append([]string{}, d.Reasons...),
		Notes:        slices.Clone(d.Notes),
		Scores:       slices.Clone(d.Scores),
		Regressions:  slices.Clone(d.Regressions),
		StillFailing: slices.Clone(d.StillFailing),
		New:          slices.Clone(d.New),
		Fixed:        slices.Clone(d.Fixed),
		Waived:       slices.Clone(d.Waived),
		Drift:        d.Drift,
		DriftMessage: d.DriftMessage,
		Floors:       maps.Clone(d.Floors),
		Perf:         slices.Clone(d.Perf),
		Statistics:   d.Statistics,
	}
	if d.Cases != nil {
		r.Cases = slices.Clone(d.Cases)
	}
	for _, w := range d.StaleWaivers {
		g.StaleWaivers = append(g.StaleWaivers, w.ID)
	}
	for _, w := range d.ExpiredWaivers {
		g.ExpiredWaivers = append(g.ExpiredWaivers, w.ID)
	}
	r.Gate = g
}

// evaluator carries the state of one Evaluate call.
type evaluator struct {
	cur, base *report.Report
	p         Policy
	ws        *waiverSet
	d         *Decision
	// stat is the statistical gate's state (nil under MethodFixed).
	stat *statState
	// judgeChange describes how the judge differs from the baseline's
	// ("" when it does not): drops of judge-graded scores are then named
	// "judge changed", not model drift.
	judgeChange string
}

func (e *evaluator) fail(format string, args ...any) {
	e.d.Reasons = append(e.d.Reasons, fmt.Sprintf(format, args...))
}

func (e *evaluator) note(format string, args ...any) {
	e.d.Notes = append(e.d.Notes, fmt.Sprintf(format, args...))
}

// baseState is where a failing item stood in the baseline.
type baseState int

const (
	baseAbsent  baseState = iota // not in the baseline, or no baseline
	basePassed                   // passed: this is a regression
	baseFailed                   // failed too: still failing
	baseSkipped                  // skipped or otherwise not judged
)

func (e *evaluator) checks() {
	base := e.baseChecks()
	cur := slices.Clone(e.cur.Checks)
	slices.SortStableFunc(cur, func(a, b report.Check) int { return strings.Compare(a.ID, b.ID) })
	for _, c := range cur {
		b, inBase := base[c.ID]
		it := report.GateItem{Kind: report.ItemCheck, ID: c.ID, Hard: c.Hard, Status: c.Status, Runs: c.Runs, Passed: c.Passed}
		st := baseAbsent
		if inBase {
			it.BaseStatus, it.BaseRuns, it.BasePassed = b.Status, b.Runs, b.Passed
			st = stateOf(b.Status)
		}
		if !c.Status.Failed() {
			if st == baseFailed && c.Status == report.StatusPass {
				e.d.Fixed = append(e.d.Fixed, it)
			}
			continue
		}
		if inBase {
			itemSignificance(e, &it, b, c, checkCounts)
		}
		it.Blocking = c.Failed(e.p.Strict)
		what, action := checkFailure(c)
		e.failure(it, st, what, action, c.ID)
	}
}

// baseChecks are the baseline's checks by id. A baseline from before a
// rename holds a check under its old id (report.CheckAliases): it is
// compared as the new id, unless the baseline has that id too.
func (e *evaluator) baseChecks() map[string]report.Check {
	base := map[string]report.Check{}
	if e.base == nil {
		return base
	}
	for _, c := range e.base.Checks {
		base[c.ID] = c
	}
	for _, c := range e.base.Checks {
		if id := report.CanonicalCheckID(c.ID); id != c.ID {
			if _, ok := base[id]; !ok {
				c.ID = id
				base[id] = c
			}
		}
	}
	return base
}

// stateOf is where an item with baseline status s stood.
func stateOf(s report.Status) baseState {
	switch {
	case s == report.StatusPass:
		return basePassed
	case s.Failed():
		return baseFailed
	}
	return baseSkipped
}

// checkFailure says what went wrong with a failed or errored check, and
// what to do about it.
func checkFailure(c report.Check) (what, action string) {
	if c.Hard {
		what = "Hard check " + c.ID
	} else {
		what = fmt.Sprintf("Check %s (%s)", c.ID, cmp.Or(string(c.Level), "not hard"))
	}
	verb := "failed"
	notVerified := false
	if c.Status == report.StatusError {
		// The check's own message says why it errored: a guess ("timed
		// out") would blame the server for what was the run's own limit,
		// such as a single-use assertion that could not yield a second
		// token.
		why, nv := errorCause(c.Message)
		notVerified = nv
		switch {
		case nv:
			verb = "was not verified (" + why + ")"
		case why != "":
			verb = "errored (" + why + ")"
		default:
			verb = "errored (timed out or got an unreadable answer)"
		}
	}
	what += " " + verb
	if c.Runs > 0 {
		what += fmt.Sprintf(", passing %d of %d runs", c.Passed, c.Runs)
	}
	action = "fix the server, or accept the failure with an id and a reason in " + DefaultWaiverFile
	if !c.Hard {
		action = "fix it, drop --strict, or accept the failure with a reason in " + DefaultWaiverFile
	}
	if notVerified {
		action = "give the run what the check needs (its message says what), or accept the gap with an id and a reason in " + DefaultWaiverFile
	}
	return what, action
}

// errorCause is the first clause of an errored check's message, at most
// 120 bytes, and whether the check says it could not be verified.
func errorCause(msg string) (why string, notVerified bool) {
	msg = strings.TrimSpace(msg)
	if rest, ok := strings.CutPrefix(msg, "not verified: "); ok {
		msg, notVerified = rest, true
	}
	if i := strings.IndexAny(msg, ";\n"); i >= 0 {
		msg = msg[:i]
	}
	if len(msg) > 120 {
		cut := 120
		for cut > 0 && !utf8.RuneStart(msg[cut]) {
			cut--
		}
		msg = msg[:cut] + "…"
	}
	return strings.TrimSpace(msg), notVerified
}

// checkCounts returns a check's passed and judged runs. A report that did
// not record runs still judged the check once.
func checkCounts(c report.Check) (passed, total int) {
	switch {
	case c.Status == report.StatusSkip:
		return 0, 0
	case c.Runs > 0:
		return min(c.Passed, c.Runs), c.Runs
	case c.Status == report.StatusPass:
		return 1, 1
	}
	return 0, 1
}

// caseFailed is report's one rule for cases.
func caseFailed(c report.Case) bool { return c.Failed() }

// providerAdvice says what to fix when a model's runs all errored: the
// harness's side (key, base URL, model name), never the server.
func providerAdvice(model string) string {
	provider, name, _ := strings.Cut(model, ":")
	env := strings.ToUpper(provider)
	return fmt.Sprintf("this is an error of the model provider or the harness, not a finding about the server: check %s_API_KEY, %s_BASE_URL (if set) and that the model name %q exists for %s", env, env, name, provider)
}

// caseCounts returns a case's passed and non-errored runs: the pool the
// scores use (DESIGN.md: pooled over all non-errored runs).
func caseCounts(c report.Case) (passed, total int) {
	n := max(c.Runs-c.Errored, 0)
	return min(max(c.Passed, 0), n), n
}

func (e *evaluator) cases() {
	base := map[string]report.Case{}
	if e.base != nil {
		for _, c := range e.base.Cases {
			base[c.Key()] = c
		}
	}
	all := e.cur.Cases
	if e.stat != nil {
		all = e.stat.cases
	}
	cur := e.decided(all)
	slices.SortStableFunc(cur, func(a, b report.Case) int {
		return cmp.Or(strings.Compare(a.ID, b.ID), strings.Compare(a.Model, b.Model))
	})
	sameServer := e.base != nil && e.cur.Server.Fingerprint != "" && e.cur.Server.Fingerprint == e.base.Server.Fingerprint
	for _, c := range cur {
		b, inBase := base[c.Key()]
		floor := c.FloorOrDefault()
		it := report.GateItem{
			Kind: report.ItemCase, ID: c.ID, Model: c.Model, Hard: c.Hard(),
			Status: c.Status, Runs: c.Runs, Passed: c.Passed, PassRate: c.PassRate, Floor: floor,
		}
		st := baseAbsent
		if inBase {
			it.BaseStatus, it.BaseRuns, it.BasePassed = b.Status, b.Runs, b.Passed
			if caseFailed(b) {
				st = baseFailed
			} else {
				st = basePassed
			}
		}
		statCase := e.stat != nil && c.Decision != nil
		if !caseFailed(c) {
			if st == baseFailed {
				e.d.Fixed = append(e.d.Fixed, it)
			}
			if statCase && inBase && !c.Hard() {
				if bi, sig, ok := e.baseTest(c, b); ok && sig {
					e.regression(bi, c, sameServer)
				} else if ok {
					e.stat.st.WithinNoise = append(e.stat.st.WithinNoise, bi)
				}
			}
			continue
		}
		if inBase && !statCase {
			itemSignificance(e, &it, b, c, caseCounts)
		}
		// Cases are gated by their floors whatever their kind: hard ones at
		// 1.0, soft ones at 0.8 unless the golden file says otherwise.
		it.Blocking = true

		kind := "Soft"
		if it.Hard {
			kind = "Hard"
		}
		what := fmt.Sprintf("%s case %s on %s", kind, c.ID, c.Model)
		where := "its transcripts"
		if len(c.Transcripts) > 0 {
			// The folder the model layers wrote them to, beside the report.
			where += " (" + path.Dir(c.Transcripts[0]) + "/)"
		}
		action := "read " + where + " and fix the tool descriptions or the server, or accept it with a reason in " + DefaultWaiverFile
		if statCase && c.Incomplete() {
			// Its own reason, once for all, in Evaluate: not a regression.
			continue
		}
		if statCase && c.Decision.Rule == report.RuleFloor {
			what = fmt.Sprintf("%s case %s on %s %s", kind, c.ID, c.Model, c.Decision.Why)
			e.failure(it, st, what, action, c.Key(), c.ID)
			continue
		}
		if c.AllErrored() {
			// No run reached a verdict: the model provider or the judge
			// failed, which says nothing about the server.
			what += fmt.Sprintf(" errored on all %d runs", c.Runs)
			if len(c.Errors) > 0 {
				what += " (" + c.Errors[0] + ")"
			}
			action = providerAdvice(c.Model)
		} else {
			what += fmt.Sprintf(" passed %d of %d runs (%s), below its floor of %s", c.Passed, c.Runs, fmtNum(c.PassRate), fmtNum(floor))
			if c.Errored > 0 {
				what += fmt.Sprintf(" (%d errored)", c.Errored)
			}
		}
		e.failure(it, st, what, action, c.Key(), c.ID)
	}
	if e.stat != nil {
		e.suite(sameServer)
	}
}

// itemSignificance tests whether the item's pass rate fell significantly
// from the baseline's: base and cur are the item in the baseline and now,
// counts gives the passed and judged runs of either.
func itemSignificance[T any](e *evaluator, it *report.GateItem, base, cur T, counts func(T) (passed, total int)) {
	bp, bt := counts(base)
	cp, ct := counts(cur)
	if bt == 0 || ct == 0 {
		return
	}
	pv := stats.FisherLower(bp, bt-bp, cp, ct-cp)
	it.PValue = &pv
	it.Significant = pv < e.p.Alpha
}

// failure files a failing item under its baseline state and, unless a
// waiver accepts it or it does not block, adds the reason. keys are the
// waiver ids that can name it, most specific first.
func (e *evaluator) failure(it report.GateItem, st baseState, what, action string, keys ...string) {
	valid, expired := e.ws.match(e.p.Now, keys...)
	if valid != nil {
		it.Waived, it.WaiverReason, it.WaiverFile, it.WaiverLine = true, valid.Reason, valid.File, valid.Line
	}
	switch st {
	case basePassed:
		e.d.Regressions = append(e.d.Regressions, it)
	case baseFailed:
		e.d.StillFailing = append(e.d.StillFailing, it)
	default:
		e.d.New = append(e.d.New, it)
	}
	var since string
	switch st {
	case basePassed:
		since = "; it passed in the baseline"
	case baseFailed:
		since = ", as in the baseline"
	case baseSkipped:
		since = "; it was skipped in the baseline"
	default:
		if e.base != nil {
			since = "; it is not in the baseline"
		}
	}
	// Sampling noise is a question for model-driven cases; a check is
	// deterministic and must pass, so its p-value stays in the data only.
	if it.PValue != nil && st == basePassed && it.Kind == report.ItemCase {
		since += fmt.Sprintf(" (%s)", sigPhrase(*it.PValue, e.p.Alpha))
	}
	switch {
	case it.Waived:
		e.d.Waived = append(e.d.Waived, it)
		until := ""
		if !valid.Expires.IsZero() {
			until = " until " + valid.Expires.Format(time.DateOnly)
		}
		e.note("%s%s, accepted by the waiver at %s%s (reason: %s).", what, since, valid.where(), until, strings.TrimRight(valid.Reason, "."))
	case !it.Blocking:
		e.note("%s%s: a warning only; --strict would fail the gate on it.", what, since)
	default:
		msg := fmt.Sprintf("%s%s: %s.", what, since, action)
		if expired != nil {
			e.ws.explained[expired] = true
			msg += fmt.Sprintf(" Its waiver at %s expired on %s and no longer applies: fix the failure or renew the waiver with a later expires date.",
				expired.where(), expired.Expires.Format(time.DateOnly))
		}
		e.fail("%s", msg)
	}
}

// waiverSet tracks which waivers matched a failure.
type waiverSet struct {
	ws        []Waiver
	used      []bool
	explained map[*Waiver]bool // expired waivers already named in a reason
}

func newWaiverSet(ws []Waiver) *waiverSet {
	return &waiverSet{ws: ws, used: make([]bool, len(ws)), explained: map[*Waiver]bool{}}
}

// match marks every waiver named by keys as used and returns the first one
// still in force, and the first expired one.
func (s *waiverSet) match(now time.Time, keys ...string) (valid, expired *Waiver) {
	for _, k := range keys {
		for i := range s.ws {
			w := &s.ws[i]
			if report.CanonicalCheckID(w.ID) != k {
				continue
			}
			s.used[i] = true
			if w.expired(now) {
				if expired == nil {
					expired = w
				}
			} else if valid == nil {
				valid = w
			}
		}
	}
	return valid, expired
}

// waivers reports expired waivers and fails on stale ones. A waiver that
// names something this run did not evaluate (a behavior case in a
// conformance-only pull-request run) is not stale: failing every such run
// would force users to delete waivers that the nightly run still needs.
func (e *evaluator) waivers() {
	s := e.ws
	for i := range s.ws {
		w := &s.ws[i]
		exp := w.expired(e.p.Now)
		if exp {
			e.d.ExpiredWaivers = append(e.d.ExpiredWaivers, *w)
		}
		expNote := ""
		if exp {
			expNote = fmt.Sprintf(" (it also expired on %s)", w.Expires.Format(time.DateOnly))
		}
		// A waiver naming a renamed check applies to its new id, and is
		// stale only if that check no longer fails.
		id := report.CanonicalCheckID(w.ID)
		if id != w.ID {
			e.note("The waiver at %s names %s, which is now %s: rename the entry (the old id is accepted until the next minor release).", w.where(), w.ID, id)
		}
		switch {
		case !s.used[i] && e.carries(id):
			e.note("The waiver for %s at %s was not checked: its case carried an earlier run's verdict (selection) and was not decided again.", w.ID, w.where())
		case s.used[i]:
			if exp && !s.explained[w] {
				e.note("The waiver for %s at %s expired on %s; another waiver covers the failure, so remove this entry.", w.ID, w.where(), w.Expires.Format(time.DateOnly))
			}
		case e.names(id):
			e.d.StaleWaivers = append(e.d.StaleWaivers, *w)
			e.fail("The waiver for %s at %s is stale: %s no longer fails%s. Remove the entry; a stale waiver fails the gate so that the list stays true.", w.ID, w.where(), w.ID, expNote)
		case e.evaluated(id):
			e.d.StaleWaivers = append(e.d.StaleWaivers, *w)
			e.fail("The waiver for %s at %s is stale: no check or case in this run is named %s%s. Remove or correct the entry.", w.ID, w.where(), w.ID, expNote)
		default:
			e.note("The waiver for %s at %s was not checked: this run did not evaluate anything that could be named %s.", w.ID, w.where(), w.ID)
		}
	}
}

// names reports whether the current report has a check or case the waiver
// id can name.
func (e *evaluator) names(id string) bool {
	for _, c := range e.cur.Checks {
		if c.ID == id {
			return true
		}
	}
	for _, c := range e.cur.Cases {
		if c.ID == id || c.Key() == id {
			return true
		}
	}
	return false
}

// evaluated reports whether this run evaluated the kind of item id looks
// like, so that an id naming nothing in it is a typo or a removed item
// rather than something another layer would judge. Check ids are
// group/check; case ids have no slash, or carry @model.
func (e *evaluator) evaluated(id string) bool {
	has := func(layer string) bool { return slices.Contains(e.cur.Layers, layer) }
	group, _, isCheck := strings.Cut(id, "/")
	if _, _, isCase := report.ParseCaseKey(id); !isCheck || isCase {
		return len(e.cur.Cases) > 0 || has(report.LayerBehavior)
	}
	for _, c := range e.cur.Checks {
		if c.Group == group || strings.HasPrefix(c.ID, group+"/") {
			return true
		}
	}
	// The group did not run: the id is wrong unless its layer was left out.
	return has(report.LayerConformance) && has(report.LayerResilience)
}
