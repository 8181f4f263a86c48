package action

import (
	"strings"
	"testing"

	"github.com/mcp-eval/mcp-eval/app/config"
	"github.com/mcp-eval/mcp-eval/github"
	"github.com/mcp-eval/mcp-eval/report"
)

// TestDefaultSelect: a pull request with a baseline selects the affected
// cases unless the select input says otherwise; a push or schedule, or a
// run without baseline, runs them all.
func TestDefaultSelect(t *testing.T) {
	pr := github.Event{Name: "pull_request", PullRequest: &github.PullRequest{Number: 3}}
	push := github.Event{Name: "push"}
	behavior := []string{report.LayerConformance, report.LayerBehavior}
	tests := []struct {
		name     string
		ev       github.Event
		baseline string
		flags    []string
		layers   []string
		want     string
	}{
		{"pull request with baseline", pr, "base.json", nil, behavior, report.SelectAffected},
		{"pull request without baseline", pr, "", nil, behavior, report.SelectAll},
		{"pull request, select all given", pr, "base.json", []string{"--select=all"}, behavior, report.SelectAll},
		{"pull request, conformance only", pr, "base.json", nil, []string{report.LayerConformance}, report.SelectAll},
		{"push", push, "base.json", nil, behavior, report.SelectAll},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := config.Parse("action", append([]string{"--server-url=http://127.0.0.1:1"}, tt.flags...), func(string) string { return "" })
			if err != nil {
				t.Fatal(err)
			}
			cfg.Baseline = tt.baseline
			a := &action{ev: tt.ev, sel: github.Selection{Layers: tt.layers}}
			a.defaultSelect(cfg)
			if cfg.Select != tt.want {
				t.Errorf("select %s, want %s", cfg.Select, tt.want)
			}
			if noted := len(a.notes) > 0 && strings.Contains(a.notes[0].md, "select: affected"); noted != (tt.want == report.SelectAffected) {
				t.Errorf("notes %v", a.notes)
			}
		})
	}
}
