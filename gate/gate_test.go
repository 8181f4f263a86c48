package gate

import (
	"encoding/json"
	"flag"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcp-eval/mcp-eval/report"
)

var now = time.Date(2026, 9, 1, 12, 0, 0, 0, time.UTC)

const (
	m1   = "openai:gpt-4.1-mini"
	m2   = "anthropic:claude-sonnet-4-5"
	fpA  = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	fpB  = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	wfix = "w.yaml"
)

func check(id string, hard bool, st report.Status, runs, passed int) report.Check {
	group, _, _ := strings.Cut(id, "/")
	level := report.LevelMust
	if !hard {
		level = report.LevelShould
	}
	return report.Check{ID: id, Layer: report.LayerConformance, Group: group, Level: level, Hard: hard, Status: st, Runs: runs, Passed: passed}
}

func hardPass(id string) report.Check { return check(id, true, report.StatusPass, 1, 1) }
func hardFail(id string) report.Check { return check(id, true, report.StatusFail, 1, 0) }

// kase builds a case with the default floor of its kind and the status the
// golden layer would give it.
func kase(id, model, kind string, passed, runs int) report.Case {
	floor := 0.8
	if kind == "hard" {
		floor = 1
	}
	rate := float64(passed) / float64(runs)
	st := report.StatusPass
	if rate < floor-1e-9 {
		st = report.StatusFail
	}
	return report.Case{ID: id, Model: model, Kind: kind, Runs: runs, Passed: passed, PassRate: rate, Floor: floor, Status: st}
}

func conf(checks ...report.Check) *report.Report {
	return &report.Report{Layers: []string{report.LayerConformance}, Checks: checks, Server: report.Server{Fingerprint: fpA}}
}

func behav(cases ...report.Case) *report.Report {
	return &report.Report{Layers: []string{report.LayerConformance, report.LayerBehavior}, Checks: []report.Check{hardPass("discover/responds")}, Cases: cases, Server: report.Server{Fingerprint: fpA}}
}

func waiver(id, expires string) Waiver {
	w := Waiver{ID: id, Reason: "upstream bug", File: wfix, Line: 1}
	if expires != "" {
		w.Expires = date(expires)
	}
	return w
}

// outcome is the part of a Decision the item and waiver tests compare.
type outcome struct {
	Passed                                        bool
	Regressions, StillFailing, New, Fixed, Waived []string
	Stale, Expired                                []string
}

func keys(items []report.GateItem) []string {
	var out []string
	for _, it := range items {
		out = append(out, it.Key())
	}
	return out
}

func ids(ws []Waiver) []string {
	var out []string
	for _, w := range ws {
		out = append(out, w.ID)
	}
	return out
}

func summarize(d Decision) outcome {
	return outcome{
		Passed: d.Passed, Regressions: keys(d.Regressions), StillFailing: keys(d.StillFailing),
		New: keys(d.New), Fixed: keys(d.Fixed), Waived: keys(d.Waived),
		Stale: ids(d.StaleWaivers), Expired: ids(d.ExpiredWaivers),
	}
}

// containsAll reports the wanted substrings that no line of got contains.
func missing(got, want []string) []string {
	var out []string
	for _, w := range want {
		if !slices.ContainsFunc(got, func(g string) bool { return strings.Contains(g, w) }) {
			out = append(out, w)
		}
	}
	return out
}

func TestEvaluateItems(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		cur, base *report.Report
		policy    Policy
		want      outcome
		reasons   []string // substrings that some reason must contain
		notes     []string // substrings that some note must contain
	}{
		{
			name: "all pass",
			cur:  conf(hardPass("caching/tools-list")), base: conf(hardPass("caching/tools-list")),
			want: outcome{Passed: true},
		},
		{
			name: "regression",
			cur:  conf(hardFail("caching/tools-list")), base: conf(hardPass("caching/tools-list")),
			want:    outcome{Regressions: []string{"caching/tools-list"}},
			reasons: []string{"Hard check caching/tools-list failed, passing 0 of 1 runs; it passed in the baseline: fix the server, or accept the failure with an id and a reason in .mcp-eval/waivers.yaml."},
		},
		{
			name:    "case regression over five runs is significant",
			cur:     behav(kase("weather", m1, "soft", 0, 5)),
			base:    behav(kase("weather", m1, "soft", 5, 5)),
			want:    outcome{Regressions: []string{"weather@" + m1}},
			reasons: []string{"passed 0 of 5 runs (0), below its floor of 0.8; it passed in the baseline (significant, p = 0.00397 < 0.05)"},
		},
		{
			name: "still failing",
			cur:  conf(hardFail("caching/tools-list")), base: conf(hardFail("caching/tools-list")),
			want:    outcome{StillFailing: []string{"caching/tools-list"}},
			reasons: []string{"Hard check caching/tools-list failed, passing 0 of 1 runs, as in the baseline: fix the server"},
		},
		{
			name: "fixed",
			cur:  conf(hardPass("caching/tools-list")), base: conf(hardFail("caching/tools-list")),
			want: outcome{Passed: true, Fixed: []string{"caching/tools-list"}},
		},
		{
			name: "new failure",
			cur:  conf(hardPass("discover/responds"), hardFail("caching/tools-list")), base: conf(hardPass("discover/responds")),
			want:    outcome{New: []string{"caching/tools-list"}},
			reasons: []string{"caching/tools-list failed, passing 0 of 1 runs; it is not in the baseline"},
		},
		{
			name: "error counts as a failure",
			cur:  conf(check("caching/tools-list", true, report.StatusError, 1, 0)), base: conf(hardPass("caching/tools-list")),
			want:    outcome{Regressions: []string{"caching/tools-list"}},
			reasons: []string{"Hard check caching/tools-list errored (timed out or got an unreadable answer)"},
		},
		{
			name: "an error says its own cause",
			cur:  conf(withMessage(check("caching/tools-list", true, report.StatusError, 1, 0), "the server closed the stream before its answer; 3 bytes read")), base: conf(hardPass("caching/tools-list")),
			want:    outcome{Regressions: []string{"caching/tools-list"}},
			reasons: []string{"Hard check caching/tools-list errored (the server closed the stream before its answer), passing 0 of 1 runs"},
		},
		{
			name: "not verified is not blamed on the server",
			cur:  conf(withMessage(check("auth/expired-token", true, report.StatusError, 1, 0), "not verified: a token to let expire could not be had: the assertion was presented before; give a source that yields a fresh one")), base: conf(hardPass("auth/expired-token")),
			want:    outcome{Regressions: []string{"auth/expired-token"}},
			reasons: []string{"Hard check auth/expired-token was not verified (a token to let expire could not be had: the assertion was presented before), passing 0 of 1 runs; it passed in the baseline: give the run what the check needs"},
		},
		{
			name: "skipped in the baseline",
			cur:  conf(hardFail("caching/prompts-list")), base: conf(check("caching/prompts-list", true, report.StatusSkip, 0, 0)),
			want:    outcome{New: []string{"caching/prompts-list"}},
			reasons: []string{"it was skipped in the baseline"},
		},
		{
			name:  "soft check failure warns",
			cur:   conf(check("http/get-not-allowed", false, report.StatusFail, 1, 0)),
			base:  conf(check("http/get-not-allowed", false, report.StatusPass, 1, 1)),
			want:  outcome{Passed: true, Regressions: []string{"http/get-not-allowed"}},
			notes: []string{"Check http/get-not-allowed (SHOULD) failed, passing 0 of 1 runs; it passed in the baseline: a warning only; --strict would fail the gate on it."},
		},
		{
			name:    "soft check failure fails with strict",
			cur:     conf(check("http/get-not-allowed", false, report.StatusFail, 1, 0)),
			base:    conf(check("http/get-not-allowed", false, report.StatusPass, 1, 1)),
			policy:  Policy{Strict: true},
			want:    outcome{Regressions: []string{"http/get-not-allowed"}},
			reasons: []string{"Check http/get-not-allowed (SHOULD) failed", "fix it, drop --strict, or accept the failure"},
		},
		{
			name:   "waived hard failure",
			cur:    conf(hardFail("caching/tools-list")),
			base:   conf(hardFail("caching/tools-list")),
			policy: Policy{Waivers: []Waiver{waiver("caching/tools-list", "2026-12-31")}},
			want:   outcome{Passed: true, StillFailing: []string{"caching/tools-list"}, Waived: []string{"caching/tools-list"}},
			notes:  []string{"Hard check caching/tools-list failed, passing 0 of 1 runs, as in the baseline, accepted by the waiver at w.yaml:1 until 2026-12-31 (reason: upstream bug)."},
		},
		// The old ids of report.CheckAliases, in a waiver or a baseline,
		// stand for the new ones (remove with the aliases).
		{
			name:   "alias: a waiver with the old id accepts the new id's failure",
			cur:    conf(check("jsonrpc/batch-rejected", false, report.StatusFail, 1, 0)),
			base:   conf(check("jsonrpc/batch-rejected", false, report.StatusFail, 1, 0)),
			policy: Policy{Strict: true, Waivers: []Waiver{waiver("resilience/batch", "")}},
			want:   outcome{Passed: true, StillFailing: []string{"jsonrpc/batch-rejected"}, Waived: []string{"jsonrpc/batch-rejected"}},
			notes:  []string{"The waiver at w.yaml:1 names resilience/batch, which is now jsonrpc/batch-rejected: rename the entry"},
		},
		{
			name:    "alias: a waiver with the old id is stale when the new id passes",
			cur:     conf(check("jsonrpc/batch-rejected", false, report.StatusPass, 1, 1)),
			policy:  Policy{Waivers: []Waiver{waiver("resilience/batch", "")}},
			want:    outcome{Stale: []string{"resilience/batch"}},
			reasons: []string{"The waiver for resilience/batch at w.yaml:1 is stale: resilience/batch no longer fails"},
		},
		{
			name:   "alias: a waiver with the old id is not checked when the new id's layer did not run",
			cur:    &report.Report{Layers: []string{report.LayerResilience}, Checks: []report.Check{check("resilience/burst", false, report.StatusPass, 1, 1)}},
			policy: Policy{Waivers: []Waiver{waiver("resilience/malformed-json", "")}},
			want:   outcome{Passed: true},
			notes:  []string{"The waiver for resilience/malformed-json at w.yaml:1 was not checked"},
		},
		{
			name:  "alias: a baseline with the old id compares as the new id",
			cur:   conf(check("jsonrpc/malformed-json", false, report.StatusFail, 1, 0)),
			base:  conf(check("resilience/malformed-json", false, report.StatusPass, 1, 1)),
			want:  outcome{Passed: true, Regressions: []string{"jsonrpc/malformed-json"}},
			notes: []string{"Check jsonrpc/malformed-json (SHOULD) failed, passing 0 of 1 runs; it passed in the baseline"},
		},
		{
			name: "alias: the new id in the baseline wins over the old one",
			cur:  conf(check("jsonrpc/malformed-json", false, report.StatusPass, 1, 1)),
			base: conf(check("jsonrpc/malformed-json", false, report.StatusFail, 1, 0), check("resilience/malformed-json", false, report.StatusPass, 1, 1)),
			want: outcome{Passed: true, Fixed: []string{"jsonrpc/malformed-json"}},
		},
		{
			name:    "stale waiver: the check passes now",
			cur:     conf(hardPass("caching/tools-list")),
			base:    conf(hardFail("caching/tools-list")),
			policy:  Policy{Waivers: []Waiver{waiver("caching/tools-list", "")}},
			want:    outcome{Fixed: []string{"caching/tools-list"}, Stale: []string{"caching/tools-list"}},
			reasons: []string{"The waiver for caching/tools-list at w.yaml:1 is stale: caching/tools-list no longer fails. Remove the entry"},
		},
		{
			name:    "stale waiver: names nothing in a group that ran",
			cur:     conf(hardPass("caching/tools-list")),
			base:    conf(hardPass("caching/tools-list")),
			policy:  Policy{Waivers: []Waiver{waiver("caching/tool-list", "")}},
			want:    outcome{Stale: []string{"caching/tool-list"}},
			reasons: []string{"no check or case in this run is named caching/tool-list. Remove or correct the entry."},
		},
		{
			name:   "waiver for a layer that did not run is not stale",
			cur:    conf(hardPass("caching/tools-list")),
			base:   conf(hardPass("caching/tools-list")),
			policy: Policy{Waivers: []Waiver{waiver("weather-basic@"+m1, ""), waiver("injection/tool-output", "")}},
			want:   outcome{Passed: true},
			notes:  []string{"The waiver for weather-basic@" + m1 + " at w.yaml:1 was not checked", "The waiver for injection/tool-output at w.yaml:1 was not checked"},
		},
		{
			name:    "expired waiver no longer waives",
			cur:     conf(hardFail("caching/tools-list")),
			base:    conf(hardFail("caching/tools-list")),
			policy:  Policy{Waivers: []Waiver{waiver("caching/tools-list", "2026-08-31")}},
			want:    outcome{StillFailing: []string{"caching/tools-list"}, Expired: []string{"caching/tools-list"}},
			reasons: []string{"Its waiver at w.yaml:1 expired on 2026-08-31 and no longer applies: fix the failure or renew the waiver with a later expires date."},
		},
		{
			name:   "waiver holds on its expiry day",
			cur:    conf(hardFail("caching/tools-list")),
			base:   conf(hardFail("caching/tools-list")),
			policy: Policy{Waivers: []Waiver{waiver("caching/tools-list", "2026-09-01")}},
			want:   outcome{Passed: true, StillFailing: []string{"caching/tools-list"}, Waived: []string{"caching/tools-list"}},
		},
		{
			name:    "expired waiver with nothing failing is stale",
			cur:     conf(hardPass("caching/tools-list")),
			base:    conf(hardPass("caching/tools-list")),
			policy:  Policy{Waivers: []Waiver{waiver("caching/tools-list", "2026-01-31")}},
			want:    outcome{Stale: []string{"caching/tools-list"}, Expired: []string{"caching/tools-list"}},
			reasons: []string{"no longer fails (it also expired on 2026-01-31)"},
		},
		{
			name:    "hard case below 1.0 fails",
			cur:     behav(kase("weather", m1, "hard", 4, 5)),
			base:    behav(kase("weather", m1, "hard", 5, 5)),
			want:    outcome{Regressions: []string{"weather@" + m1}},
			reasons: []string{"Hard case weather on " + m1 + " passed 4 of 5 runs (0.8), below its floor of 1; it passed in the baseline (not statistically significant, p = 0.5)"},
		},
		{
			name: "soft case at exactly 0.8 passes",
			cur:  behav(kase("weather", m1, "soft", 4, 5)),
			base: behav(kase("weather", m1, "soft", 5, 5)),
			want: outcome{Passed: true},
		},
		{
			name:    "soft case below 0.8 fails",
			cur:     behav(kase("weather", m1, "soft", 3, 5)),
			base:    behav(kase("weather", m1, "soft", 5, 5)),
			want:    outcome{Regressions: []string{"weather@" + m1}},
			reasons: []string{"Soft case weather on " + m1 + " passed 3 of 5 runs (0.6), below its floor of 0.8"},
		},
		{
			name: "case floor comes from the report",
			cur: behav(func() report.Case {
				c := kase("weather", m1, "soft", 3, 5)
				c.Floor, c.Status = 0.6, report.StatusPass
				return c
			}()),
			base: behav(kase("weather", m1, "soft", 5, 5)),
			want: outcome{Passed: true},
		},
		{
			name: "status fail is trusted even above the floor",
			cur: behav(func() report.Case {
				c := kase("weather", m1, "soft", 5, 5)
				c.Status = report.StatusFail
				return c
			}()),
			want: outcome{New: []string{"weather@" + m1}},
		},
		{
			name:    "errored case",
			cur:     behav(report.Case{ID: "weather", Model: m1, Kind: "soft", Runs: 5, Errored: 5, Floor: 0.8, Status: report.StatusError}),
			base:    behav(kase("weather", m1, "soft", 5, 5)),
			want:    outcome{Regressions: []string{"weather@" + m1}},
			reasons: []string{"Soft case weather on " + m1 + " errored on all 5 runs; it passed in the baseline"},
		},
		{
			name:    "case waiver for one model",
			cur:     behav(kase("weather", m1, "soft", 1, 5), kase("weather", m2, "soft", 1, 5)),
			base:    behav(kase("weather", m1, "soft", 1, 5), kase("weather", m2, "soft", 5, 5)),
			policy:  Policy{Waivers: []Waiver{waiver("weather@"+m1, "")}},
			want:    outcome{StillFailing: []string{"weather@" + m1}, Regressions: []string{"weather@" + m2}, Waived: []string{"weather@" + m1}},
			reasons: []string{"Soft case weather on " + m2},
		},
		{
			name:   "case waiver for every model",
			cur:    behav(kase("weather", m1, "soft", 1, 5), kase("weather", m2, "soft", 1, 5)),
			base:   behav(kase("weather", m1, "soft", 1, 5), kase("weather", m2, "soft", 5, 5)),
			policy: Policy{Waivers: []Waiver{waiver("weather", "")}},
			want:   outcome{Passed: true, StillFailing: []string{"weather@" + m1}, Regressions: []string{"weather@" + m2}, Waived: []string{"weather@" + m2, "weather@" + m1}},
		},
		{
			name:    "case waiver is stale when no model fails",
			cur:     behav(kase("weather", m1, "soft", 5, 5), kase("weather", m2, "soft", 4, 5)),
			base:    behav(kase("weather", m1, "soft", 1, 5), kase("weather", m2, "soft", 5, 5)),
			policy:  Policy{Waivers: []Waiver{waiver("weather", "")}},
			want:    outcome{Fixed: []string{"weather@" + m1}, Stale: []string{"weather"}},
			reasons: []string{"The waiver for weather at w.yaml:1 is stale: weather no longer fails."},
		},
		{
			name:    "case waiver naming an unknown case is stale when cases ran",
			cur:     behav(kase("weather", m1, "soft", 5, 5)),
			base:    behav(kase("weather", m1, "soft", 5, 5)),
			policy:  Policy{Waivers: []Waiver{waiver("wether@"+m1, "")}},
			want:    outcome{Stale: []string{"wether@" + m1}},
			reasons: []string{"no check or case in this run is named wether@" + m1},
		},
		{
			name: "fixed case",
			cur:  behav(kase("weather", m1, "soft", 5, 5)),
			base: behav(kase("weather", m1, "soft", 3, 5)),
			want: outcome{Passed: true, Fixed: []string{"weather@" + m1}},
		},
		{
			name:    "no baseline: absolute floors only",
			cur:     behav(kase("weather", m1, "hard", 4, 5)),
			want:    outcome{New: []string{"weather@" + m1}},
			reasons: []string{"Hard case weather on " + m1 + " passed 4 of 5 runs (0.8), below its floor of 1: read its transcripts"},
			notes:   []string{"No baseline report was found, so only absolute floors apply: hard checks must pass, hard cases must pass every run and soft cases at least 80% (each case's floor); score changes were not compared."},
		},
		{
			name:  "no baseline, all pass",
			cur:   conf(hardPass("caching/tools-list")),
			want:  outcome{Passed: true},
			notes: []string{"No baseline report was found"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := tt.policy
			p.MaxDrop, p.Now = DefaultMaxDrop, now
			d := Evaluate(tt.cur, tt.base, p)
			if diff := cmp.Diff(tt.want, summarize(d)); diff != "" {
				t.Errorf("Evaluate mismatch (-want +got):\n%s\nreasons: %q\nnotes: %q", diff, d.Reasons, d.Notes)
			}
			if d.Passed != (len(d.Reasons) == 0) {
				t.Errorf("Passed = %v with reasons %q", d.Passed, d.Reasons)
			}
			if d.NoBaseline != (tt.base == nil) {
				t.Errorf("NoBaseline = %v, want %v", d.NoBaseline, tt.base == nil)
			}
			if m := missing(d.Reasons, tt.reasons); m != nil {
				t.Errorf("no reason contains %q; reasons:\n%s", m, strings.Join(d.Reasons, "\n"))
			}
			if m := missing(d.Notes, tt.notes); m != nil {
				t.Errorf("no note contains %q; notes:\n%s", m, strings.Join(d.Notes, "\n"))
			}
		})
	}
}

// scored returns a report with only scores, the behavior layer and a
// fingerprint.
func scored(fp string, scores map[string]float64) *report.Report {
	return &report.Report{
		Layers: []string{report.LayerConformance, report.LayerBehavior},
		Server: report.Server{Fingerprint: fp}, Scores: scores,
	}
}

// pooled returns a behavior report whose behavior.passRate rests on n soft
// cases of five runs, each passing the given number of runs.
func pooled(fp string, n, passed int) *report.Report {
	r := scored(fp, map[string]float64{"behavior.passRate": float64(passed) / 5})
	for i := range n {
		r.Cases = append(r.Cases, kase("case-"+string(rune('a'+i%26))+strings.Repeat("x", i/26), m1, "soft", passed, 5))
	}
	return r
}

func TestEvaluateScores(t *testing.T) {
	t.Parallel()
	type scoreWant struct {
		Drop, BelowFloor, Failed, Drift, Tested, Significant bool
	}
	tests := []struct {
		name      string
		cur, base *report.Report
		policy    Policy
		passed    bool
		drift     bool
		deltas    map[string]float64
		score     string // key whose GateScore is compared with want
		want      scoreWant
		reasons   []string
		notes     []string
	}{
		{
			name:   "drop of exactly max-drop passes",
			cur:    scored(fpB, map[string]float64{"behavior.selectionAccuracy": 0.93}),
			base:   scored(fpA, map[string]float64{"behavior.selectionAccuracy": 0.95}),
			passed: true,
			deltas: map[string]float64{"behavior.selectionAccuracy": -0.02},
			score:  "behavior.selectionAccuracy",
		},
		{
			name:    "drop just beyond max-drop fails",
			cur:     scored(fpB, map[string]float64{"behavior.selectionAccuracy": 0.929}),
			base:    scored(fpA, map[string]float64{"behavior.selectionAccuracy": 0.95}),
			deltas:  map[string]float64{"behavior.selectionAccuracy": -0.021},
			score:   "behavior.selectionAccuracy",
			want:    scoreWant{Drop: true, Failed: true},
			reasons: []string{"Score behavior.selectionAccuracy fell from 0.95 to 0.929 (-0.021), more than the allowed 0.02; not tested for significance (the report holds no run counts behind this score). Find the change behind it, or raise --max-drop if the drop is expected."},
		},
		{
			name:   "a larger max-drop allows more",
			cur:    scored(fpB, map[string]float64{"behavior.selectionAccuracy": 0.86}),
			base:   scored(fpA, map[string]float64{"behavior.selectionAccuracy": 0.95}),
			policy: Policy{MaxDrop: 0.1},
			passed: true,
			deltas: map[string]float64{"behavior.selectionAccuracy": -0.09},
		},
		{
			name:   "improvement passes",
			cur:    scored(fpB, map[string]float64{"behavior.selectionAccuracy": 1}),
			base:   scored(fpA, map[string]float64{"behavior.selectionAccuracy": 0.5}),
			passed: true,
			deltas: map[string]float64{"behavior.selectionAccuracy": 0.5},
		},
		{
			name:   "lower is better: a rise of exactly max-drop passes",
			cur:    scored(fpB, map[string]float64{"behavior.falseActivationRate": 0.07}),
			base:   scored(fpA, map[string]float64{"behavior.falseActivationRate": 0.05}),
			passed: true,
			deltas: map[string]float64{"behavior.falseActivationRate": 0.02},
		},
		{
			name:    "lower is better: a larger rise fails",
			cur:     scored(fpB, map[string]float64{"behavior.falseActivationRate": 0.08}),
			base:    scored(fpA, map[string]float64{"behavior.falseActivationRate": 0.05}),
			deltas:  map[string]float64{"behavior.falseActivationRate": 0.03},
			score:   "behavior.falseActivationRate",
			want:    scoreWant{Drop: true, Failed: true},
			reasons: []string{"Score behavior.falseActivationRate rose from 0.05 to 0.08 (+0.03), more than the allowed 0.02"},
		},
		{
			name: "lower is better: a fall is an improvement",
			cur: scored(fpB, map[string]float64{
				"behavior.falseActivationRate": 0, "resilience.fabricationRate": 0.1, "resilience.attackSuccessRate": 0,
			}),
			base: scored(fpA, map[string]float64{
				"behavior.falseActivationRate": 0.5, "resilience.fabricationRate": 0.3, "resilience.attackSuccessRate": 0.2,
			}),
			passed: true,
			deltas: map[string]float64{"behavior.falseActivationRate": -0.5, "resilience.fabricationRate": -0.2, "resilience.attackSuccessRate": -0.2},
		},
		{
			name:    "lower is better for every such key",
			cur:     scored(fpB, map[string]float64{"resilience.fabricationRate": 0.1, "resilience.attackSuccessRate": 0.1}),
			base:    scored(fpA, map[string]float64{"resilience.fabricationRate": 0, "resilience.attackSuccessRate": 0}),
			deltas:  map[string]float64{"resilience.fabricationRate": 0.1, "resilience.attackSuccessRate": 0.1},
			reasons: []string{"Score resilience.fabricationRate rose", "Score resilience.attackSuccessRate rose"},
		},
		{
			name:   "missing on either side is reported, not failed",
			cur:    scored(fpB, map[string]float64{"behavior.taskCompletion": 0.1}),
			base:   scored(fpA, map[string]float64{"behavior.sequenceAccuracy": 0.9}),
			passed: true,
			deltas: map[string]float64{},
			notes:  []string{"No baseline value for behavior.taskCompletion: reported, not gated on a drop.", "Not measured in this run, though in the baseline: behavior.sequenceAccuracy; not gated."},
		},
		{
			name:   "no baseline compares no scores",
			cur:    scored(fpB, map[string]float64{"behavior.selectionAccuracy": 0.1}),
			passed: true,
			deltas: map[string]float64{},
			score:  "behavior.selectionAccuracy",
		},
		{
			name: "conformance.passRate is gated through its checks",
			cur: func() *report.Report {
				r := conf(hardPass("discover/responds"), hardFail("caching/tools-list"))
				r.Scores = map[string]float64{"conformance.passRate": 0.5}
				return r
			}(),
			base: func() *report.Report {
				r := conf(hardPass("discover/responds"), hardPass("caching/tools-list"))
				r.Scores = map[string]float64{"conformance.passRate": 1}
				return r
			}(),
			policy: Policy{Waivers: []Waiver{waiver("caching/tools-list", "")}},
			passed: true,
			deltas: map[string]float64{"conformance.passRate": -0.5},
			score:  "conformance.passRate",
			want:   scoreWant{Drop: true, Tested: true},
			notes:  []string{"The hard checks behind it are gated one by one"},
		},
		{
			name:   "drift warn: same fingerprint, model score fell",
			cur:    scored(fpA, map[string]float64{"behavior.selectionAccuracy": 0.8}),
			base:   scored(fpA, map[string]float64{"behavior.selectionAccuracy": 0.95}),
			passed: true,
			drift:  true,
			deltas: map[string]float64{"behavior.selectionAccuracy": -0.15},
			score:  "behavior.selectionAccuracy",
			want:   scoreWant{Drop: true, Drift: true},
			notes:  []string{"The server fingerprint is unchanged: likely model drift, not your change (--drift warn reports it without failing)."},
		},
		{
			name:    "drift fail",
			cur:     scored(fpA, map[string]float64{"behavior.selectionAccuracy": 0.8}),
			base:    scored(fpA, map[string]float64{"behavior.selectionAccuracy": 0.95}),
			policy:  Policy{Drift: DriftFail},
			drift:   true,
			deltas:  map[string]float64{"behavior.selectionAccuracy": -0.15},
			score:   "behavior.selectionAccuracy",
			want:    scoreWant{Drop: true, Drift: true, Failed: true},
			reasons: []string{"likely model drift, not your change; --drift fail counts it"},
		},
		{
			name:   "changed fingerprint is not drift",
			cur:    scored(fpB, map[string]float64{"behavior.selectionAccuracy": 0.8}),
			base:   scored(fpA, map[string]float64{"behavior.selectionAccuracy": 0.95}),
			deltas: map[string]float64{"behavior.selectionAccuracy": -0.15},
			score:  "behavior.selectionAccuracy",
			want:   scoreWant{Drop: true, Failed: true},
		},
		{
			name:   "no fingerprint is not drift",
			cur:    scored("", map[string]float64{"behavior.selectionAccuracy": 0.8}),
			base:   scored("", map[string]float64{"behavior.selectionAccuracy": 0.95}),
			deltas: map[string]float64{"behavior.selectionAccuracy": -0.15},
		},
		{
			name:    "deterministic score with the same fingerprint is not drift",
			cur:     scored(fpA, map[string]float64{"resilience.passRate": 0.8}),
			base:    scored(fpA, map[string]float64{"resilience.passRate": 0.95}),
			deltas:  map[string]float64{"resilience.passRate": -0.15},
			score:   "resilience.passRate",
			want:    scoreWant{Drop: true, Failed: true},
			reasons: []string{"Score resilience.passRate fell"},
		},
		{
			name:    "significant drop fails",
			cur:     pooled(fpB, 20, 4),
			base:    pooled(fpA, 20, 5),
			deltas:  map[string]float64{"behavior.passRate": -0.2},
			score:   "behavior.passRate",
			want:    scoreWant{Drop: true, Failed: true, Tested: true, Significant: true},
			reasons: []string{"; significant, p < 0.001 over the pooled runs (100 of 100 passed in the baseline, 80 of 100 now)."},
		},
		{
			name:    "drop that is not significant still fails by default",
			cur:     pooled(fpB, 2, 4),
			base:    pooled(fpA, 2, 5),
			deltas:  map[string]float64{"behavior.passRate": -0.2},
			score:   "behavior.passRate",
			want:    scoreWant{Drop: true, Failed: true, Tested: true},
			reasons: []string{"; not statistically significant, p = 0.237 over the pooled runs (10 of 10 passed in the baseline, 8 of 10 now)."},
		},
		{
			name:   "require-significance passes a drop that is not significant",
			cur:    pooled(fpB, 2, 4),
			base:   pooled(fpA, 2, 5),
			policy: Policy{RequireSignificance: true},
			passed: true,
			deltas: map[string]float64{"behavior.passRate": -0.2},
			score:  "behavior.passRate",
			want:   scoreWant{Drop: true, Tested: true},
			notes:  []string{"--require-significance lets a drop that is not significant pass."},
		},
		{
			name:    "require-significance fails a significant drop",
			cur:     pooled(fpB, 20, 4),
			base:    pooled(fpA, 20, 5),
			policy:  Policy{RequireSignificance: true},
			deltas:  map[string]float64{"behavior.passRate": -0.2},
			score:   "behavior.passRate",
			want:    scoreWant{Drop: true, Failed: true, Tested: true, Significant: true},
			reasons: []string{"Score behavior.passRate fell from 1 to 0.8 (-0.2)"},
		},
		{
			name:   "require-significance passes an untested drop",
			cur:    scored(fpB, map[string]float64{"behavior.selectionAccuracy": 0.5}),
			base:   scored(fpA, map[string]float64{"behavior.selectionAccuracy": 0.95}),
			policy: Policy{RequireSignificance: true},
			passed: true,
			deltas: map[string]float64{"behavior.selectionAccuracy": -0.45},
			score:  "behavior.selectionAccuracy",
			want:   scoreWant{Drop: true},
			notes:  []string{"not tested for significance"},
		},
		{
			name:   "a looser alpha makes a drop significant",
			cur:    pooled(fpB, 2, 4),
			base:   pooled(fpA, 2, 5),
			policy: Policy{RequireSignificance: true, Alpha: 0.25},
			deltas: map[string]float64{"behavior.passRate": -0.2},
			score:  "behavior.passRate",
			want:   scoreWant{Drop: true, Failed: true, Tested: true, Significant: true},
		},
		{
			name: "below a recorded floor fails",
			cur:  scored(fpB, map[string]float64{"behavior.selectionAccuracy": 0.92}),
			base: func() *report.Report {
				r := scored(fpA, map[string]float64{"behavior.selectionAccuracy": 0.93})
				r.Gate = &report.Gate{Floors: map[string]float64{"behavior.selectionAccuracy": 0.93}}
				return r
			}(),
			deltas:  map[string]float64{"behavior.selectionAccuracy": -0.01},
			score:   "behavior.selectionAccuracy",
			want:    scoreWant{BelowFloor: true, Failed: true},
			reasons: []string{"Score behavior.selectionAccuracy is 0.92, below its recorded floor of 0.93. Floors recorded by --ratchet only tighten: restore the score."},
		},
		{
			name: "above a recorded ceiling fails",
			cur:  scored(fpB, map[string]float64{"behavior.falseActivationRate": 0.08}),
			base: func() *report.Report {
				r := scored(fpA, map[string]float64{"behavior.falseActivationRate": 0.07})
				r.Gate = &report.Gate{Floors: map[string]float64{"behavior.falseActivationRate": 0.07}}
				return r
			}(),
			deltas:  map[string]float64{"behavior.falseActivationRate": 0.01},
			reasons: []string{"Score behavior.falseActivationRate is 0.08, above its recorded ceiling of 0.07."},
		},
		{
			name: "at the recorded floor passes",
			cur:  scored(fpB, map[string]float64{"behavior.selectionAccuracy": 0.93}),
			base: func() *report.Report {
				r := scored(fpA, map[string]float64{"behavior.selectionAccuracy": 0.95})
				r.Gate = &report.Gate{Floors: map[string]float64{"behavior.selectionAccuracy": 0.93}}
				return r
			}(),
			passed: true,
			deltas: map[string]float64{"behavior.selectionAccuracy": -0.02},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := tt.policy
			p.Now = now
			if p.MaxDrop == 0 {
				p.MaxDrop = DefaultMaxDrop
			}
			d := Evaluate(tt.cur, tt.base, p)
			if d.Passed != tt.passed {
				t.Errorf("Passed = %v, want %v; reasons:\n%s", d.Passed, tt.passed, strings.Join(d.Reasons, "\n"))
			}
			if d.Drift != tt.drift {
				t.Errorf("Drift = %v, want %v", d.Drift, tt.drift)
			}
			if tt.drift && !strings.Contains(d.DriftMessage, "likely model drift, not your change") {
				t.Errorf("DriftMessage = %q, want the drift attribution", d.DriftMessage)
			}
			if tt.deltas != nil {
				if diff := cmp.Diff(tt.deltas, d.Deltas); diff != "" {
					t.Errorf("Deltas mismatch (-want +got):\n%s", diff)
				}
			}
			if tt.score != "" {
				i := slices.IndexFunc(d.Scores, func(s report.GateScore) bool { return s.Key == tt.score })
				if i < 0 {
					t.Fatalf("no GateScore for %s in %+v", tt.score, d.Scores)
				}
				s := d.Scores[i]
				got := scoreWant{Drop: s.Drop, BelowFloor: s.BelowFloor, Failed: s.Failed, Drift: s.Drift, Tested: s.Tested, Significant: s.Significant}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("GateScore %s mismatch (-want +got):\n%s", tt.score, diff)
				}
				if s.Tested != (s.PValue != nil) {
					t.Errorf("Tested = %v with PValue %v", s.Tested, s.PValue)
				}
			}
			if m := missing(d.Reasons, tt.reasons); m != nil {
				t.Errorf("no reason contains %q; reasons:\n%s", m, strings.Join(d.Reasons, "\n"))
			}
			if m := missing(d.Notes, tt.notes); m != nil {
				t.Errorf("no note contains %q; notes:\n%s", m, strings.Join(d.Notes, "\n"))
			}
		})
	}
}

func TestScoreDetails(t *testing.T) {
	t.Parallel()
	cur := pooled(fpB, 2, 4)
	cur.Scores["behavior.falseActivationRate"] = 0.1
	base := pooled(fpA, 2, 5)
	base.Scores["resilience.passRate"] = 1
	d := Evaluate(cur, base, Policy{MaxDrop: DefaultMaxDrop})
	pv := 43758.0 / 184756
	want := []report.GateScore{
		{Key: "behavior.falseActivationRate", Direction: "lower", Current: ptr(0.1)},
		{
			Key: "behavior.passRate", Direction: "higher", Base: ptr(1), Current: ptr(0.8), Delta: -0.2,
			Drop: true, Failed: true, Tested: true, PValue: &pv,
			BasePassed: 10, BaseTotal: 10, Passed: 8, Total: 10,
		},
		{Key: "resilience.passRate", Direction: "higher", Base: ptr(1)},
	}
	if diff := cmp.Diff(want, d.Scores, cmp.Comparer(func(a, b float64) bool { return a-b < 1e-12 && b-a < 1e-12 })); diff != "" {
		t.Errorf("Scores mismatch (-want +got):\n%s", diff)
	}
}

func TestRatchet(t *testing.T) {
	t.Parallel()
	withFloors := func(scores, floors map[string]float64) *report.Report {
		r := scored(fpA, scores)
		r.Gate = &report.Gate{Floors: floors}
		return r
	}
	tests := []struct {
		name      string
		cur, base *report.Report
		ratchet   bool
		want      map[string]float64
	}{
		{
			name:    "floors rise with a better score",
			cur:     scored(fpB, map[string]float64{"behavior.passRate": 0.97, "behavior.falseActivationRate": 0.01}),
			base:    withFloors(map[string]float64{"behavior.passRate": 0.92, "behavior.falseActivationRate": 0.05}, map[string]float64{"behavior.passRate": 0.9, "behavior.falseActivationRate": 0.1}),
			ratchet: true,
			want:    map[string]float64{"behavior.passRate": 0.95, "behavior.falseActivationRate": 0.03},
		},
		{
			name:    "floors never fall",
			cur:     scored(fpB, map[string]float64{"behavior.passRate": 0.91, "behavior.falseActivationRate": 0.09}),
			base:    withFloors(map[string]float64{"behavior.passRate": 0.92, "behavior.falseActivationRate": 0.08}, map[string]float64{"behavior.passRate": 0.9, "behavior.falseActivationRate": 0.1}),
			ratchet: true,
			want:    map[string]float64{"behavior.passRate": 0.9, "behavior.falseActivationRate": 0.1},
		},
		{
			name: "floors carry forward without --ratchet",
			cur:  scored(fpB, map[string]float64{"behavior.passRate": 1}),
			base: withFloors(map[string]float64{"behavior.passRate": 0.92}, map[string]float64{"behavior.passRate": 0.9, "resilience.passRate": 0.5}),
			want: map[string]float64{"behavior.passRate": 0.9, "resilience.passRate": 0.5},
		},
		{
			name:    "first ratchet without a baseline",
			cur:     scored(fpB, map[string]float64{"behavior.passRate": 0.01, "behavior.falseActivationRate": 0.99}),
			ratchet: true,
			want:    map[string]float64{"behavior.passRate": 0, "behavior.falseActivationRate": 1},
		},
		{
			name: "no floors without --ratchet",
			cur:  scored(fpB, map[string]float64{"behavior.passRate": 1}),
			base: scored(fpA, map[string]float64{"behavior.passRate": 1}),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := Evaluate(tt.cur, tt.base, Policy{MaxDrop: DefaultMaxDrop, Ratchet: tt.ratchet})
			if diff := cmp.Diff(tt.want, d.Floors); diff != "" {
				t.Errorf("Floors mismatch (-want +got):\n%s", diff)
			}
			r := &report.Report{}
			d.Apply(r)
			if diff := cmp.Diff(tt.want, r.Gate.Floors); diff != "" {
				t.Errorf("Apply Floors mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRatchetFloorsGateTheNextRun(t *testing.T) {
	t.Parallel()
	p := Policy{MaxDrop: DefaultMaxDrop, Ratchet: true}
	// Each run drops by less than max-drop against the last green run, but
	// the ratcheted floor stops the slide at 0.98.
	prev := scored(fpA, map[string]float64{"behavior.passRate": 1})
	Evaluate(prev, nil, p).Apply(prev)
	var passed []bool
	for i, v := range []float64{0.99, 0.98, 0.97} {
		// A new fingerprint each run: the server changed, so no drop is
		// excused as model drift.
		cur := scored(strings.Repeat(string(rune('c'+i)), 64), map[string]float64{"behavior.passRate": v})
		d := Evaluate(cur, prev, p)
		d.Apply(cur)
		passed = append(passed, d.Passed)
		if d.Passed {
			prev = cur
		}
	}
	if diff := cmp.Diff([]bool{true, true, false}, passed); diff != "" {
		t.Errorf("runs passed mismatch (-want +got):\n%s", diff)
	}
}

func TestApply(t *testing.T) {
	t.Parallel()
	cur := conf(hardFail("caching/tools-list"))
	cur.Scores = map[string]float64{"conformance.passRate": 0}
	base := conf(hardPass("caching/tools-list"))
	base.Scores = map[string]float64{"conformance.passRate": 1}
	d := Evaluate(cur, base, Policy{MaxDrop: DefaultMaxDrop, Waivers: []Waiver{waiver("other/check", "2020-01-01")}, Now: now})

	cur.Gate = &report.Gate{Baseline: "run 123 on main"}
	d.Apply(cur)
	g := cur.Gate
	if g.Baseline != "run 123 on main" || g.Passed || len(g.Reasons) != len(d.Reasons) {
		t.Errorf("Gate = %+v, want the caller's baseline and the decision", g)
	}
	if diff := cmp.Diff([]string{"caching/tools-list"}, keys(g.Regressions)); diff != "" {
		t.Errorf("Regressions mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"other/check"}, g.ExpiredWaivers); diff != "" {
		t.Errorf("ExpiredWaivers mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]float64{"conformance.passRate": -1}, g.Deltas); diff != "" {
		t.Errorf("Deltas mismatch (-want +got):\n%s", diff)
	}

	// Without a baseline, report.json still carries {} and [] and no source.
	r := conf(hardPass("caching/tools-list"))
	r.Gate = &report.Gate{Baseline: "stale value"}
	Evaluate(r, nil, Policy{}).Apply(r)
	b, err := json.Marshal(r.Gate)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"passed":true`, `"baseline":""`, `"deltas":{}`, `"reasons":[]`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("gate JSON %s lacks %s", b, want)
		}
	}
}

func TestEvaluateIsDeterministicAndPure(t *testing.T) {
	t.Parallel()
	mk := func() (*report.Report, *report.Report) {
		cur := behav(kase("b", m2, "hard", 1, 5), kase("a", m1, "soft", 1, 5), kase("a", m2, "soft", 1, 5))
		cur.Checks = []report.Check{hardFail("z/z"), hardFail("a/a"), hardPass("m/m")}
		cur.Scores = map[string]float64{"behavior.passRate": 0.2, "behavior.selectionAccuracy": 0.3, "conformance.passRate": 0.3}
		base := behav(kase("a", m1, "soft", 5, 5), kase("b", m2, "hard", 5, 5))
		base.Checks = []report.Check{hardPass("z/z"), hardPass("a/a")}
		base.Scores = map[string]float64{"behavior.passRate": 1, "behavior.selectionAccuracy": 1, "conformance.passRate": 1}
		return cur, base
	}
	cur, base := mk()
	p := Policy{MaxDrop: DefaultMaxDrop, Ratchet: true, Now: now}
	first := Evaluate(cur, base, p)
	for range 5 {
		if diff := cmp.Diff(first, Evaluate(cur, base, p)); diff != "" {
			t.Fatalf("Evaluate is not deterministic:\n%s", diff)
		}
	}
	wantCur, wantBase := mk()
	if diff := cmp.Diff(wantCur, cur); diff != "" {
		t.Errorf("Evaluate modified the current report:\n%s", diff)
	}
	if diff := cmp.Diff(wantBase, base); diff != "" {
		t.Errorf("Evaluate modified the baseline:\n%s", diff)
	}
	if diff := cmp.Diff([]string{"a/a", "z/z", "a@" + m1, "b@" + m2}, keys(first.Regressions)); diff != "" {
		t.Errorf("Regressions order mismatch (-want +got):\n%s", diff)
	}
}

func TestDriftModeFlag(t *testing.T) {
	t.Parallel()
	var m DriftMode
	if m.String() != "warn" {
		t.Errorf("zero DriftMode = %q, want warn", m)
	}
	fs := flag.NewFlagSet("gate", flag.ContinueOnError)
	fs.SetOutput(new(strings.Builder))
	fs.Var(&m, "drift", "warn or fail")
	if err := fs.Parse([]string{"--drift", "FAIL"}); err != nil || m != DriftFail || m.String() != "fail" {
		t.Errorf("--drift FAIL: mode %v, err %v; want fail", m, err)
	}
	if err := fs.Parse([]string{"--drift=warn"}); err != nil || m != DriftWarn {
		t.Errorf("--drift=warn: mode %v, err %v; want warn", m, err)
	}
	if err := fs.Parse([]string{"--drift=loud"}); err == nil || !strings.Contains(err.Error(), `drift mode "loud": want warn or fail`) {
		t.Errorf("--drift=loud: err %v, want a usage error", err)
	}
}

func TestPolicyValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		p    Policy
		want string
	}{
		{Policy{MaxDrop: DefaultMaxDrop}, ""},
		{Policy{MaxDrop: 0, Alpha: 0.01, Drift: DriftFail}, ""},
		{Policy{MaxDrop: -0.1}, "max-drop -0.1: want a fraction between 0 and 1"},
		{Policy{MaxDrop: 2}, "max-drop 2: want a fraction between 0 and 1"},
		{Policy{Alpha: 1}, "alpha 1: want a level between 0 and 1"},
		{Policy{Drift: 7}, "drift mode 7: want warn or fail"},
	}
	for _, tt := range tests {
		err := tt.p.Validate()
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%+v: Validate = %v, want nil", tt.p, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%+v: Validate = %v, want %q", tt.p, err, tt.want)
		}
	}
}

// TestJudgeSwapIsNamed: with the server unchanged, a judge-graded score
// that falls after the judge model or prompt changed is named "judge
// changed", never model drift; a score the judge does not touch keeps the
// model-drift attribution.
func TestJudgeSwapIsNamed(t *testing.T) {
	t.Parallel()
	judged := func(model, prompt string, scores map[string]float64) *report.Report {
		r := scored(fpA, scores)
		r.Judge = &report.JudgeInfo{Model: model, PromptSHA256: prompt}
		return r
	}
	sha1, sha2 := strings.Repeat("a", 64), strings.Repeat("b", 64)
	base := judged("openai:gpt-4.1", sha1, map[string]float64{"behavior.taskCompletion": 0.9, "behavior.selectionAccuracy": 0.9})
	for _, tt := range []struct {
		name, want string
		cur        *report.Report
	}{
		{"model swap", "judge changed", judged("anthropic:claude-haiku-4-5", sha1, map[string]float64{"behavior.taskCompletion": 0.5, "behavior.selectionAccuracy": 0.9})},
		{"prompt change", "prompt aaaaaaaaaaaa → bbbbbbbbbbbb", judged("openai:gpt-4.1", sha2, map[string]float64{"behavior.taskCompletion": 0.5, "behavior.selectionAccuracy": 0.9})},
	} {
		d := Evaluate(tt.cur, base, Policy{MaxDrop: DefaultMaxDrop, Now: now})
		if !d.Drift || !strings.Contains(d.DriftMessage, tt.want) || strings.Contains(d.DriftMessage, "model drift,") && !strings.Contains(d.DriftMessage, "not model drift") {
			t.Errorf("%s: drift %v message %q; want it to name the judge change (%q)", tt.name, d.Drift, d.DriftMessage, tt.want)
		}
		if !strings.Contains(strings.Join(d.Notes, "\n"), "Judge changed since the baseline") {
			t.Errorf("%s: notes %q; want the judge change named", tt.name, d.Notes)
		}
	}
	// Same judge: a drop of a score the judge does not grade is model drift.
	d := Evaluate(judged("openai:gpt-4.1", sha1, map[string]float64{"behavior.taskCompletion": 0.9, "behavior.selectionAccuracy": 0.5}), base, Policy{MaxDrop: DefaultMaxDrop, Now: now})
	if !strings.Contains(d.DriftMessage, "likely model drift") || strings.Contains(d.DriftMessage, "judge") {
		t.Errorf("same judge: %q; want model drift", d.DriftMessage)
	}
}

// withMessage is c with its message set.
func withMessage(c report.Check, msg string) report.Check { c.Message = msg; return c }

// TestJudgeChangeModelByModel: with the tested models judging each other
// (report.JudgeInfo.ByModel) the judge is compared model by model, an old
// baseline's single judge standing for every model's.
func TestJudgeChangeModelByModel(t *testing.T) {
	t.Parallel()
	sha := strings.Repeat("a", 64)
	judged := func(j report.JudgeInfo) *report.Report {
		r := scored(fpA, map[string]float64{"behavior.taskCompletion": 0.9})
		r.Cases = []report.Case{{ID: "c", Model: "openai:a"}, {ID: "c", Model: "openai:b"}}
		j.PromptSHA256 = sha
		r.Judge = &j
		return r
	}
	cross := report.JudgeInfo{ByModel: map[string]string{"openai:a": "openai:b", "openai:b": "openai:a"}}
	for _, tt := range []struct {
		name      string
		base, cur report.JudgeInfo
		want      string
	}{
		{"same cross judges", cross, cross, ""},
		{"old single judge to cross", report.JudgeInfo{Model: "openai:a"}, cross, "model openai:a → openai:b graded openai:a, openai:a graded openai:b"},
		{"cross to one judge", cross, report.JudgeInfo{Model: "openai:b"}, "model openai:b graded openai:a, openai:a graded openai:b → openai:b"},
		{"swapped cross judges", cross, report.JudgeInfo{ByModel: map[string]string{"openai:a": "openai:c", "openai:b": "openai:a"}}, "model openai:b graded openai:a, openai:a graded openai:b → openai:c graded openai:a, openai:a graded openai:b"},
	} {
		if got := judgeChange(judged(tt.base), judged(tt.cur)); got != tt.want {
			t.Errorf("%s: judge change %q; want %q", tt.name, got, tt.want)
		}
	}
}
