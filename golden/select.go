package golden

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/mcp-eval/mcp-eval/internal/option"
	"github.com/mcp-eval/mcp-eval/report"
	"github.com/mcp-eval/mcp-eval/tasks"
)

// SelectFlags are the options that run only some golden cases and carry
// the others' verdicts from an earlier report, each declared once here.
type SelectFlags struct {
	Select      string // --select all|affected
	Sample      int    // --sample N
	RerunFailed string // --rerun-failed REPORT
}

// DefaultSample is --sample's default: a few unaffected cases run anyway,
// so that a change the selection cannot see (a server behaviour, a model
// update) still has a chance to show.
const DefaultSample = 4

// Declare declares the selection's options (model layers only).
func (f *SelectFlags) Declare(s *option.Set) {
	s.Add(option.Def{Name: "select", Help: "which golden cases run: all, or affected (the cases whose tools changed since the baseline, or are near a changed tool, plus --sample others; the rest carry the baseline's verdict)",
		Doc:     "`all`, or `affected`: only the cases whose expected or forbidden tools changed since `--baseline` (surface diff), whose tools are near a changed one (the near-duplicate lint's pairs), that are new or edited, plus a `--sample`; every other case carries the baseline's verdict, marked `carried`, and the gate does not decide it again",
		Default: "all (the Action: affected on pull_request when a baseline exists)", Layers: option.Model,
		Input: &option.Input{Doc: "all, or affected: run only the golden cases the tool surface change can affect (plus a sample) and carry the baseline's verdict for the rest. Empty: affected on pull_request when a baseline exists, all otherwise (the nightly run)."}},
		option.Enum(&f.Select, report.SelectAll, report.SelectAll, report.SelectAffected))
	s.Add(option.Def{Name: "sample", Help: "with --select affected, how many unaffected cases run anyway, drawn per expected tool and seeded by the commit: a `number` from 0 to 100000",
		Doc: "with `--select affected`: unaffected cases that run anyway, stratified by expected tool and seeded by the commit (`GITHUB_SHA`), so a re-run draws the same", Layers: option.Model,
		Input: &option.Input{Doc: "With select affected: how many unaffected golden cases run anyway, spread over the tools and seeded by the commit (default 4)."}},
		option.Int(&f.Sample, DefaultSample, 0, 100000))
	s.Add(option.Def{Name: "rerun-failed", Help: "`report` (report.json): run only its cases that failed, errored or did not finish, and carry its verdict for the rest",
		Doc: "run only the cases that failed, errored or did not finish in that report.json, and merge: the other cases carry its verdict (marked `carried`)", Layers: option.Model},
		option.String(&f.RerunFailed, ""))
}

// Selection is what a selection decided: the cases to run, the report
// entries carried from the earlier report, and why each case runs.
type Selection struct {
	Run     []*tasks.Case
	Carried []report.Case
	Record  report.Selection
}

// SelectOptions are the inputs of Select.
type SelectOptions struct {
	// Mode is report.SelectAffected or report.SelectRerunFailed.
	Mode string
	// From is the report whose verdicts are carried (the baseline, or
	// --rerun-failed's), FromName how to name it.
	From     *report.Report
	FromName string
	// Models are the run's --models; a case runs on those it RunsOn.
	Models []string
	// Changed are the tools the surface diff names; Near maps a tool to
	// the tools whose descriptions are near-duplicates of its own.
	Changed map[string]bool
	Near    map[string][]string
	// Sample and Seed draw the sample of the unaffected rest.
	Sample int
	Seed   string
	// JudgeChanged, when set, says how the judge differs from the one
	// that graded From: every case the judge grades (a rubric, a semantic
	// argument) runs again, for that reason.
	JudgeChanged string
}

// Select picks the cases of cases to run and carries the rest from
// o.From. A case runs, on every model, when any of its (case, model)
// pairs cannot be carried: absent from the report, edited since (its
// definition hash differs or was not recorded), or not finished there
// (skipped for an interrupt, or all of its runs missing). Beyond that,
// affected runs the cases whose expected, accepted, forbidden or sequence
// tools changed or are near a changed tool, and a sample of the rest;
// rerun-failed runs the cases that failed or errored.
func Select(cases []*tasks.Case, o SelectOptions) Selection {
	from := map[string]report.Case{}
	for _, c := range o.From.Cases {
		from[c.Key()] = c
	}
	var sel Selection
	sel.Record = report.Selection{Mode: o.Mode, From: o.FromName}
	if o.Mode == report.SelectAffected {
		sel.Record.Sample, sel.Record.Seed = o.Sample, o.Seed
	}
	var rest []*tasks.Case
	for _, c := range cases {
		why := mustRun(c, o, from)
		if why == "" && o.JudgeChanged != "" && judged(c) {
			why = o.JudgeChanged
		}
		if why == "" {
			switch o.Mode {
			case report.SelectAffected:
				why = affected(c, o.Changed, o.Near)
			case report.SelectRerunFailed:
				why = failedIn(c, o.Models, from)
			}
		}
		if why == "" {
			rest = append(rest, c)
			continue
		}
		sel.Run = append(sel.Run, c)
		sel.Record.Cases = append(sel.Record.Cases, report.SelectedCase{ID: c.ID, Why: why})
	}
	if o.Mode == report.SelectAffected && o.Sample > 0 {
		picked := sample(rest, o.Sample, o.Seed)
		var keep []*tasks.Case
		for _, c := range rest {
			if picked[c.ID] {
				sel.Run = append(sel.Run, c)
				sel.Record.Cases = append(sel.Record.Cases, report.SelectedCase{ID: c.ID, Why: "sample (stratum " + stratum(c) + ")"})
			} else {
				keep = append(keep, c)
			}
		}
		rest = keep
	}
	carried := carriedFrom(o.From)
	for _, c := range rest {
		for _, m := range o.Models {
			if !c.RunsOn(m) {
				continue
			}
			rc := from[report.CaseKey(c.ID, m)]
			if rc.Carried == nil {
				// A verdict carried twice keeps the run it was decided in.
				rc.Carried = carried
			}
			// Its transcripts lie in the other run's output.
			rc.Transcripts = nil
			sel.Carried = append(sel.Carried, rc)
		}
	}
	// Keep the file order of the cases that run.
	order := map[string]int{}
	for i, c := range cases {
		order[c.ID] = i
	}
	sort.SliceStable(sel.Run, func(i, j int) bool { return order[sel.Run[i].ID] < order[sel.Run[j].ID] })
	sort.SliceStable(sel.Record.Cases, func(i, j int) bool { return order[sel.Record.Cases[i].ID] < order[sel.Record.Cases[j].ID] })
	for _, c := range sel.Run {
		for _, m := range o.Models {
			if c.RunsOn(m) {
				sel.Record.Ran++
			}
		}
	}
	sel.Record.Carried = len(sel.Carried)
	return sel
}

// carriedFrom names the run of r.
func carriedFrom(r *report.Report) *report.CarriedFrom {
	return &report.CarriedFrom{RunID: r.RunID, RunURL: r.RunURL, Commit: r.Commit, StartedAt: r.StartedAt}
}

// mustRun says why a case cannot carry its verdict, "" when it can.
func mustRun(c *tasks.Case, o SelectOptions, from map[string]report.Case) string {
	def := DefinitionSHA256(c)
	for _, m := range o.Models {
		if !c.RunsOn(m) {
			continue
		}
		rc, ok := from[report.CaseKey(c.ID, m)]
		switch {
		case !ok:
			return "not in " + o.FromName + " on " + m
		case rc.DefinitionSHA256 == "":
			return "its definition is not recorded in " + o.FromName
		case rc.DefinitionSHA256 != def:
			return "edited since " + o.FromName
		case rc.Status == report.StatusSkip && rc.Skipped != "" && strings.HasPrefix(rc.Skipped, "not finished"):
			return "did not finish in " + o.FromName
		}
	}
	return ""
}

// failedIn says why a case reruns under --rerun-failed: one of its pairs
// failed or errored.
func failedIn(c *tasks.Case, models []string, from map[string]report.Case) string {
	for _, m := range models {
		if rc, ok := from[report.CaseKey(c.ID, m)]; ok && c.RunsOn(m) && (rc.Failed() || rc.Status == report.StatusError) {
			return fmt.Sprintf("%s on %s", rc.Status, m)
		}
	}
	return ""
}

// judged says the judge grades the case: a rubric, or a semantic
// argument in it or its turns.
func judged(c *tasks.Case) bool {
	if c.Rubric != "" {
		return true
	}
	checks := slices.Clone(c.Args)
	for _, s := range c.Sequence {
		checks = append(checks, s.Args...)
	}
	for _, a := range checks {
		if a.Mode == tasks.MatchSemantic {
			return true
		}
	}
	for _, t := range c.Turns {
		if judged(t) {
			return true
		}
	}
	return false
}

// Tools are the tools a case names: expected, accepted, forbidden, the
// steps of its sequence, and its turns'.
func Tools(c *tasks.Case) []string {
	var out []string
	add := func(names ...string) {
		for _, n := range names {
			if n != "" && !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	var walk func(c *tasks.Case)
	walk = func(c *tasks.Case) {
		add(c.ExpectTool)
		add(c.AcceptTools...)
		add(c.ForbidTools...)
		for _, s := range c.Sequence {
			add(s.Tool)
		}
		for _, t := range c.Turns {
			walk(t)
		}
	}
	walk(c)
	return out
}

// affected says why a case is affected by the surface change, "" when it
// is not: it names a changed tool, or a tool near one.
func affected(c *tasks.Case, changed map[string]bool, near map[string][]string) string {
	tools := Tools(c)
	for _, t := range tools {
		if changed[t] {
			return "uses changed tool " + t
		}
	}
	for _, t := range tools {
		for _, n := range near[t] {
			if changed[n] {
				return fmt.Sprintf("uses %s, near changed tool %s", t, n)
			}
		}
	}
	return ""
}

// stratum is the group a case is sampled in: its first expected tool,
// "(none)" for a negative case.
func stratum(c *tasks.Case) string {
	if t := Tools(c); len(t) > 0 && !c.Negative {
		return t[0]
	}
	return "(none)"
}

// sample draws n cases from rest, spread over the strata: each stratum's
// cases are ordered by a hash of the seed and the case id, and the strata
// (by name) give one case each in turn until n are drawn. The same seed
// draws the same cases; another commit draws others.
func sample(rest []*tasks.Case, n int, seed string) map[string]bool {
	strata := map[string][]*tasks.Case{}
	for _, c := range rest {
		s := stratum(c)
		strata[s] = append(strata[s], c)
	}
	key := func(id string) string {
		h := sha256.Sum256([]byte(seed + "\x00" + id))
		return hex.EncodeToString(h[:8])
	}
	names := make([]string, 0, len(strata))
	for s, cs := range strata {
		names = append(names, s)
		sort.SliceStable(cs, func(i, j int) bool { return key(cs[i].ID) < key(cs[j].ID) })
	}
	sort.Strings(names)
	picked := map[string]bool{}
	for round := 0; len(picked) < n; round++ {
		took := false
		for _, s := range names {
			if round < len(strata[s]) && len(picked) < n {
				picked[strata[s][round].ID] = true
				took = true
			}
		}
		if !took {
			break
		}
	}
	return picked
}

// DefinitionSHA256 hashes a case as written, without where it is written
// (file and line), so that an edited case is told from the baseline's.
func DefinitionSHA256(c *tasks.Case) string {
	cp := *c
	cp.File, cp.Line = "", 0
	b, err := json.Marshal(&cp)
	if err != nil {
		// Not expected (a case is data); an unhashable case is never
		// carried.
		return ""
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// StampDefinitions records each case's DefinitionSHA256 in the report's
// entries of the cases that ran.
func StampDefinitions(rcs []report.Case, cases []*tasks.Case) {
	byID := make(map[string]*tasks.Case, len(cases))
	for _, c := range cases {
		byID[c.ID] = c
	}
	memo := map[string]string{}
	for i := range rcs {
		c, ok := byID[rcs[i].ID]
		if !ok || rcs[i].Carried != nil {
			continue
		}
		h, done := memo[c.ID]
		if !done {
			h = DefinitionSHA256(c)
			memo[c.ID] = h
		}
		rcs[i].DefinitionSHA256 = h
	}
}

// Restrict makes Layer 1 run only cases (a selection of Cases); the model
// half of Layer 2 still runs every case's variants.
func (p *Plan) Restrict(cases []*tasks.Case) {
	p.selected = append([]*tasks.Case{}, cases...)
}

// behaviorCases are the cases Layer 1 runs.
func (p *Plan) behaviorCases() []*tasks.Case {
	if p.selected != nil {
		return p.selected
	}
	return p.Cases
}
