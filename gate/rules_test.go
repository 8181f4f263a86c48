package gate

import (
	"strings"
	"testing"
)

func TestRulesNameTheFlagThatDecides(t *testing.T) {
	tests := []struct {
		name     string
		p        Policy
		baseline bool
		want     []string
		not      []string
	}{
		{"defaults", Policy{MaxDrop: DefaultMaxDrop}, true,
			[]string{"only warns (--strict makes it fail)", "more than 0.02 against the baseline", "only warns, significant or not (--drift fail makes it fail)", "whether or not it is significant (p < 0.05)"},
			[]string{"--ratchet", "--perf-gate"}},
		{"strict, drift fail, significance", Policy{MaxDrop: 0.05, Strict: true, Drift: DriftFail, RequireSignificance: true, Alpha: 0.01}, true,
			[]string{"SHOULD-level ones too (--strict)", "more than 0.05", "(--drift fail)", "p < 0.01", "(--require-significance)"},
			[]string{"significant or not"}},
		{"perf limits", Policy{MaxLatencyIncrease: 0.25, Perf: PerfFail}, true,
			[]string{"above +25% or a cost increase above no limit per case run fails the gate (--perf-gate fail)"}, nil},
		{"no baseline", Policy{MaxDrop: DefaultMaxDrop}, false,
			[]string{"no baseline: scores are not compared"}, []string{"--max-drop", "--drift"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := strings.Join(tt.p.Rules(tt.baseline), "\n")
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("rules lack %q:\n%s", w, got)
				}
			}
			for _, w := range tt.not {
				if strings.Contains(got, w) {
					t.Errorf("rules mention %q:\n%s", w, got)
				}
			}
		})
	}
}
