package pipeline

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/mcp-eval/mcp-eval/conformance"
	"github.com/mcp-eval/mcp-eval/engine/describe"
	"github.com/mcp-eval/mcp-eval/engine/surfacediff"
	"github.com/mcp-eval/mcp-eval/golden"
	"github.com/mcp-eval/mcp-eval/internal/exitcode"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/report"
)

// selectPlan checks --select and --rerun-failed before any network call
// and reads --rerun-failed's report: affected needs a baseline to compare
// the surface with and to carry verdicts from, and the two cannot be
// combined.
func (p *RunPlan) selectPlan() error {
	cfg := p.cfg
	affected := cfg.Select == report.SelectAffected
	switch {
	case affected && cfg.RerunFailed != "":
		return exitcode.Usagef("--select affected and --rerun-failed cannot be combined: one carries the baseline's verdicts, the other the given report's")
	case affected && cfg.Baseline == "":
		return exitcode.Usagef("--select affected needs --baseline: the cases to run follow from the tool surface's change since the baseline, and the others carry its verdicts")
	case cfg.RerunFailed != "":
		r, err := ReadReport("--rerun-failed", cfg.RerunFailed)
		if err != nil {
			return err
		}
		p.from, p.fromName = r, cfg.RerunFailed
	case affected:
		p.from, p.fromName = p.base, cmp.Or(cfg.BaselineLabel, "the baseline")
	}
	return nil
}

// diff compares the tool surface with the baseline's (nil without one or
// without a change) and names the baseline in it.
func (p *RunPlan) diff(desc *describe.Server) *report.SurfaceDiff {
	if p.base == nil || p.base.Surface.Tools == nil || desc.Fingerprint == "" {
		return nil
	}
	d := surfacediff.Diff(p.base.Surface, desc.Surface)
	if d != nil {
		d.Baseline = baselineName(p.base, p.cfg.BaselineLabel)
	}
	return d
}

// baselineName names a baseline report: its label, run, or commit.
func baselineName(r *report.Report, label string) string {
	switch {
	case label != "":
		return label
	case r.RunURL != "":
		return r.RunURL
	case r.Commit != "":
		return "commit " + r.Commit
	}
	return "the baseline"
}

// selectCases makes the selection of --select affected or --rerun-failed
// (none otherwise) and restricts Layer 1 to it; mergeSelection adds the
// carried verdicts to the report.
func (p *RunPlan) selectCases(desc *describe.Server) {
	if p.from == nil || p.models == nil || !p.models.Behavior {
		return
	}
	o := golden.SelectOptions{From: p.from, FromName: p.fromName, Models: p.models.Models, JudgeChanged: p.judgeChanged()}
	if p.cfg.RerunFailed != "" {
		o.Mode = report.SelectRerunFailed
	} else {
		o.Mode, o.Sample = report.SelectAffected, p.cfg.Sample
		// Seeded by the commit, so that re-running a PR's job draws the
		// same sample and another commit draws another.
		o.Seed = p.env.Getenv("GITHUB_SHA")
		o.Changed = map[string]bool{}
		for _, t := range p.surfaceDiff.ChangedTools() {
			o.Changed[t] = true
		}
		// Near on either side: a tool that was near a changed one in the
		// baseline (its old wording) is affected as much as one near its
		// new wording.
		o.Near = map[string][]string{}
		for _, tools := range [][]mcp.Tool{desc.Tools, recordedTools(p.base.Surface)} {
			for _, pair := range conformance.NearDuplicates(tools) {
				o.Near[pair.A] = append(o.Near[pair.A], pair.B)
				o.Near[pair.B] = append(o.Near[pair.B], pair.A)
			}
		}
	}
	sel := golden.Select(p.models.Cases, o)
	p.models.Restrict(sel.Run)
	p.selection = &sel
}

// judgeChanged says how the judge differs from the one that graded the
// carried report ("" when it does not, or the report names none).
func (p *RunPlan) judgeChanged() string {
	j := p.from.Judge
	if j == nil {
		return ""
	}
	// Model by model: a report from before the tested models judged each
	// other names one judge for all of them (JudgeInfo.JudgeOf).
	for _, m := range p.models.Models {
		was, now := j.JudgeOf(m), p.models.JudgeOf(m)
		if j.Disabled {
			was = ""
		}
		if !strings.EqualFold(was, now) {
			return fmt.Sprintf("graded by the judge, which changed since %s (%s, now %s)", p.fromName, cmp.Or(j.Judges(), "none"), cmp.Or(p.models.JudgeText(), "none"))
		}
	}
	switch {
	case j.PromptSHA256 != "" && j.PromptSHA256 != p.models.JudgePrompt().SHA256:
		return "graded by the judge, whose prompt changed since " + p.fromName
	}
	return ""
}

// recordedTools are the tools a report recorded with their descriptions.
func recordedTools(s report.Surface) []mcp.Tool {
	var out []mcp.Tool
	for _, it := range s.Tools {
		if d := it.Def(); d != nil {
			out = append(out, mcp.Tool{Name: it.Name, Title: d.Title, Description: d.Description})
		}
	}
	return out
}

// mergeSelection adds the carried cases to the report, records the
// selection, and scores Layer 1 again over every case, run and carried,
// so that the scores compare with the baseline's over the same cases.
func (p *RunPlan) mergeSelection(r *report.Report) {
	if p.models != nil {
		golden.StampDefinitions(r.Cases, p.models.Cases)
	}
	if p.selection == nil {
		return
	}
	r.Cases = append(r.Cases, p.selection.Carried...)
	rec := p.selection.Record
	r.Selection = &rec
	var behavior []report.Case
	for _, c := range r.Cases {
		if c.Layer() == report.LayerBehavior {
			behavior = append(behavior, c)
		}
	}
	scores, byModel := golden.ScoresFromCases(behavior)
	for k := range r.Scores {
		if report.ScoreLayer(k) == report.LayerBehavior {
			delete(r.Scores, k)
		}
	}
	for _, m := range r.ScoresByModel {
		for k := range m {
			if report.ScoreLayer(k) == report.LayerBehavior {
				delete(m, k)
			}
		}
	}
	r.AddScores(scores, byModel)
	r.Sort()
}

// runIdentity names the CI run that writes the report, from the Actions
// environment: GITHUB_RUN_ID, and its page.
func runIdentity(getenv func(string) string) (id, url string) {
	id = getenv("GITHUB_RUN_ID")
	server, repo := strings.TrimRight(getenv("GITHUB_SERVER_URL"), "/"), getenv("GITHUB_REPOSITORY")
	if id != "" && server != "" && repo != "" {
		url = server + "/" + repo + "/actions/runs/" + id
	}
	return id, url
}
