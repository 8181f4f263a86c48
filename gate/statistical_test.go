package gate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mcp-eval/mcp-eval/internal/stats"
	"github.com/mcp-eval/mcp-eval/report"
)

// outcomes builds a soft case from its runs in order ("ppfpp").
func outcomes(id, model, runs string, looks []int) report.Case {
	c := report.Case{ID: id, Model: model, Kind: "soft", Floor: 0.8, Runs: len(runs)}
	for _, r := range runs {
		o := "fail"
		if r == 'p' {
			o = "pass"
			c.Passed++
		}
		c.RunOutcomes = append(c.RunOutcomes, o)
	}
	c.PassRate = float64(c.Passed) / float64(c.Runs)
	c.Status = report.StatusPass
	if c.PassRate < c.Floor {
		c.Status = report.StatusFail
	}
	c.Decision = &report.CaseDecision{Looks: looks}
	return c
}

func lc(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

// twelve is twelve soft cases of five runs, one look, all passing but the
// fourth, whose runs are odd.
func twelve(odd string) *report.Report {
	var cs []report.Case
	for i := range 12 {
		runs := "ppppp"
		if i == 3 {
			runs = odd
		}
		cs = append(cs, outcomes(fmt.Sprintf("c%02d", i), m1, runs, []int{5}))
	}
	return behav(cs...)
}

func statPolicy() Policy {
	return Policy{Method: MethodStatistical, Alpha: 0.05, MaxDrop: DefaultMaxDrop, Now: now}
}

// TestStatisticalByHand: twelve soft cases of five runs, one look each, no
// baseline: each floor test gets 0.05/12 = 0.004167. 3 of 5 has p =
// P(X ≤ 3 | 5, 0.8) = 0.26272 and passes (the fixed rule fails it); 1 of
// 5 has p = 0.00672, still above the level, and passes; 0 of 5 has p =
// 0.00032 and fails.
func TestStatisticalByHand(t *testing.T) {
	t.Parallel()
	build := twelve
	for _, tt := range []struct {
		runs       string
		pass       bool
		p          float64
		fixedFails bool
	}{
		{"ppfpf", true, 0.26272, true},
		{"pffff", true, 0.00672, true},
		{"fffff", false, 0.00032, true},
		{"ppppf", true, 0.67232, false},
	} {
		r := build(tt.runs)
		d := Evaluate(r, nil, statPolicy())
		if d.Passed != tt.pass {
			t.Errorf("%s: passed %v, want %v; reasons %v", tt.runs, d.Passed, tt.pass, d.Reasons)
		}
		c := d.Cases[3]
		if c.Decision == nil || c.Decision.PValue == nil || math.Abs(*c.Decision.PValue-tt.p) > 1e-9 {
			t.Fatalf("%s: decision %+v, want p = %v", tt.runs, c.Decision, tt.p)
		}
		if math.Abs(c.Decision.Alpha-0.05/12) > 1e-15 || math.Abs(d.Statistics.FloorLevel-0.05/12) > 1e-15 {
			t.Errorf("%s: level %v / %v, want 0.05/12", tt.runs, c.Decision.Alpha, d.Statistics.FloorLevel)
		}
		if fd := Evaluate(r, nil, Policy{MaxDrop: DefaultMaxDrop, Now: now}); fd.Passed == tt.fixedFails {
			t.Errorf("%s: --gate fixed passed %v, want %v", tt.runs, fd.Passed, !tt.fixedFails)
		}
	}
}

// TestStatisticalBaselineByHand: with a baseline, half of alpha goes to
// the suite test and each of 12 cases gets 0.025/12, split between its
// floor test and its comparison: 0.00104 each. A case at 5/5 in the
// baseline and 2/5 now: the comparison's p = C(7,2)·C(3,3)/C(10,5) =
// 21/252 (Fisher, one-sided), within noise; its floor test p = P(X ≤ 2 |
// 5, 0.8) = 0.05792, no failure either. 0 of 5 fails the floor test
// (0.00032 ≤ 0.00104).
func TestStatisticalBaselineByHand(t *testing.T) {
	t.Parallel()
	build := twelve
	base := build("ppppp")
	d := Evaluate(build("pffpf"), base, statPolicy())
	if !d.Passed {
		t.Fatalf("2 of 5 against 5 of 5 failed: %v", d.Reasons)
	}
	st := d.Statistics
	if math.Abs(st.FloorLevel-0.025/24) > 1e-15 || math.Abs(st.BaseLevel-0.025/24) > 1e-15 || math.Abs(st.SuiteLevel-0.025) > 1e-15 {
		t.Errorf("levels %v %v %v", st.FloorLevel, st.BaseLevel, st.SuiteLevel)
	}
	if len(st.WithinNoise) != 1 || math.Abs(*st.WithinNoise[0].PValue-21.0/252) > 1e-12 {
		t.Errorf("within noise: %+v, want one case at p = 21/252", st.WithinNoise)
	}
	// The suite, both runs of one design: every run pooled, 60 of 60
	// against 57 of 60, Fisher's p = C(57,57)·C(3,3)… = P(X ≤ 57) with K =
	// 117 of N = 120: C(117,57)·C(3,3)/C(120,60) = 0.1171.
	want := math.Exp(lc(117, 57) + lc(3, 3) - lc(120, 60))
	if len(st.Suite) != 1 || math.Abs(st.Suite[0].PValue-want) > 1e-12 || st.Suite[0].Significant || st.Suite[0].Method != report.SuitePooled {
		t.Errorf("suite: %+v, want p = %v", st.Suite, want)
	}
	if d := Evaluate(build("fffff"), base, statPolicy()); d.Passed {
		t.Error("0 of 5 passed its floor test")
	}
}

// TestStatisticalSuiteDrop: every case falling from 5/5 to 3/5 is no
// failure alone, but the suite test sees it: 60 of 60 against 36 of 60,
// pooled (one design), p far below 0.025.
func TestStatisticalSuiteDrop(t *testing.T) {
	t.Parallel()
	var base, cur []report.Case
	for i := range 12 {
		base = append(base, outcomes(fmt.Sprintf("c%02d", i), m1, "ppppp", []int{5}))
		cur = append(cur, outcomes(fmt.Sprintf("c%02d", i), m1, "pfpfp", []int{5}))
	}
	b, c := behav(base...), behav(cur...)
	c.Server.Fingerprint = fpB
	d := Evaluate(c, b, statPolicy())
	if d.Passed || len(d.Statistics.Suite) != 1 || !d.Statistics.Suite[0].Significant {
		t.Fatalf("a drop over every case passed: %+v %v", d.Statistics.Suite, d.Reasons)
	}
	if !strings.Contains(strings.Join(d.Reasons, "\n"), "pooled Fisher exact test") {
		t.Errorf("reasons: %v", d.Reasons)
	}
	// The same drop on an unchanged server is model drift: a note under
	// --drift warn, a failure under --drift fail.
	c.Server.Fingerprint = fpA
	if d := Evaluate(c, b, statPolicy()); !d.Passed || !d.Drift {
		t.Errorf("drift warn: passed %v drift %v %v", d.Passed, d.Drift, d.Reasons)
	}
	p := statPolicy()
	p.Drift = DriftFail
	if d := Evaluate(c, b, p); d.Passed {
		t.Error("drift fail passed a significant suite drop")
	}
}

// TestStatisticalIncomplete: a case the budget left undecided is
// incomplete, not a regression, and fails the run with its own reason.
func TestStatisticalIncomplete(t *testing.T) {
	t.Parallel()
	looks := stats.Looks(5, 60)
	c := outcomes("c00", m1, "ppfpf", looks)
	c.Decision.Stopped = "the model budget (--model-budget 1m) was spent"
	d := Evaluate(behav(c, outcomes("c01", m1, "ppppp", looks)), nil, statPolicy())
	if d.Passed || len(d.Statistics.Incomplete) != 1 || d.Cases[0].Decision.Verdict != report.VerdictIncomplete {
		t.Fatalf("passed %v incomplete %v decision %+v", d.Passed, d.Statistics.Incomplete, d.Cases[0].Decision)
	}
	if len(d.Reasons) != 1 || !strings.Contains(d.Reasons[0], "incomplete") || len(d.Regressions)+len(d.New) != 0 {
		t.Errorf("reasons %v regressions %v new %v", d.Reasons, d.Regressions, d.New)
	}
}

// simulate runs a golden set through the sequential design as the golden
// layer does: each case's runs drawn at its true rate, look by look, until
// a look decides it.
func simulate(rng *rand.Rand, rates []float64, baseline bool, fingerprint string) *report.Report {
	looks := stats.Looks(5, 60)
	level := stats.SplitAlpha(0.05, len(rates), 1, baseline).Floor
	var cs []report.Case
	for i, p := range rates {
		d := stats.NewFloorDesign(0.8, looks, level)
		var runs strings.Builder
		passed, n := 0, 0
		for k, look := range looks {
			for ; n < look; n++ {
				if rng.Float64() < p {
					passed++
					runs.WriteByte('p')
				} else {
					runs.WriteByte('f')
				}
			}
			if d.Decide(k, passed, n) != stats.Undecided {
				break
			}
		}
		c := outcomes(fmt.Sprintf("c%02d", i), m1, runs.String(), looks)
		c.Decision = nil
		c.Decide(looks, level, "")
		cs = append(cs, c)
	}
	r := behav(cs...)
	r.Server.Fingerprint = fingerprint
	return r
}

func rates(n int, p float64) []float64 {
	r := make([]float64, n)
	for i := range r {
		r[i] = p
	}
	return r
}

// TestStatisticalGateSimulated checks the gate's error rates empirically
// with a fixed seed: A/A runs (12 soft cases at 95 %, baseline and current
// from the same model; a harmless change only moves the fingerprint) fail
// at most alpha = 0.05 of the time within the binomial band, even counting
// drift as failure; a single case falling to 50 % and every case falling to
// 80 % are each caught at least 80 % of the time; A/A runs cost at most
// 1.3 times five fixed runs.
func TestStatisticalGateSimulated(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(26, 2026))
	p := statPolicy()
	p.Drift = DriftFail
	trial := func(cur []float64, fp string) (failed bool, runs int) {
		base := simulate(rng, rates(12, 0.95), true, fpA)
		c := simulate(rng, cur, true, fp)
		for _, k := range c.Cases {
			runs += k.Runs
		}
		return !Evaluate(c, base, p).Passed, runs
	}
	const aaTrials, powerTrials = 2000, 300
	fails, runs := 0, 0
	for i := range aaTrials {
		fp := fpA
		if i%2 == 1 {
			fp = fpB // the harmless rewording: the fingerprint moves
		}
		f, n := trial(rates(12, 0.95), fp)
		runs += n
		if f {
			fails++
		}
	}
	rate := float64(fails) / aaTrials
	if band := 0.05 + 3*math.Sqrt(0.05*0.95/aaTrials); rate > band {
		t.Errorf("A/A false alarms %v, above alpha's band %v", rate, band)
	}
	if cost := float64(runs) / aaTrials / 60; cost > 1.3 {
		t.Errorf("A/A runs cost %.3f× five fixed runs, want ≤ 1.3", cost)
	}
	one := rates(12, 0.95)
	one[7] = 0.5
	for name, cur := range map[string][]float64{"one case 95→50": one, "every case 95→80": rates(12, 0.8)} {
		caught := 0
		for range powerTrials {
			if f, _ := trial(cur, fpB); f {
				caught++
			}
		}
		if got := float64(caught) / powerTrials; got < 0.8 {
			t.Errorf("%s: caught %v of trials, want ≥ 0.8", name, got)
		}
	}
	t.Logf("A/A false alarms %.4f, cost %.3f×", rate, float64(runs)/aaTrials/60)
}

// TestSuiteNullRates: the pooled suite test's false-alarm rate stays
// within its level when both sides run one sequential design, with equal
// and with unequal case rates (the case where pooling could mislead),
// checked by simulation with a fixed seed.
func TestSuiteNullRates(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 8))
	mixed := []float64{0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 0.97, 0.99, 1, 1, 0.55}
	const trials = 1000
	p := statPolicy()
	p.Drift = DriftFail
	for name, rs := range map[string][]float64{"mixed": mixed, "all 95": rates(12, 0.95), "all 80": rates(12, 0.8)} {
		fails := 0
		for range trials {
			b, c := simulate(rng, rs, true, fpA), simulate(rng, rs, true, fpB)
			d := Evaluate(c, b, p)
			if s := d.Statistics.Suite; len(s) == 1 && s[0].Significant {
				fails++
			}
		}
		level := stats.SplitAlpha(0.05, 12, 1, true).Suite
		if got := float64(fails) / trials; got > level+3*math.Sqrt(level*(1-level)/trials) {
			t.Errorf("%s: suite false alarms %v, above the level %v", name, got, level)
		}
	}
}
