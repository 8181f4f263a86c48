package action

import (
	"slices"
	"strconv"

	"github.com/mcp-eval/mcp-eval/app/config"
	"github.com/mcp-eval/mcp-eval/github"
	"github.com/mcp-eval/mcp-eval/report"
)

// defaultSelect makes a pull request's run select the affected golden
// cases when a baseline was found and the select input was left empty: a
// PR then pays for the cases its change can affect, and the nightly run
// (schedule, push) keeps --select all.
func (a *action) defaultSelect(cfg *config.Config) {
	if cfg.Given("select") || cfg.Baseline == "" || a.ev.PullRequest == nil || cfg.RerunFailed != "" || !slices.Contains(a.sel.Layers, report.LayerBehavior) {
		return
	}
	cfg.Select = report.SelectAffected
	a.notes = append(a.notes, markdownNote("Pull request with a baseline: only the golden cases the tool surface change can affect ran (`select: affected`, plus a sample of "+strconv.Itoa(cfg.Sample)+"); the others carry the baseline's verdict. Set `select: all` to run every case."))
}

// carriedRun names, in a composed baseline that does not say (a report of
// an older mcp-eval), the run its behaviour cases came from, so that a
// carried verdict links to it.
func carriedRun(base *report.Report, bs *github.Baselines) {
	if base.RunID != "" {
		return
	}
	if d, ok := bs.From[report.LayerBehavior]; ok && d.RunID != 0 {
		base.RunID, base.RunURL = strconv.FormatInt(d.RunID, 10), d.HTMLURL
	}
}
