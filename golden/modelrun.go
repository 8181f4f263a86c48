package golden

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/mcp-eval/mcp-eval/agent"
	"github.com/mcp-eval/mcp-eval/engine/runs"
	"github.com/mcp-eval/mcp-eval/internal/exitcode"
	"github.com/mcp-eval/mcp-eval/internal/option"
	"github.com/mcp-eval/mcp-eval/internal/redact"
	"github.com/mcp-eval/mcp-eval/internal/stats"
	"github.com/mcp-eval/mcp-eval/judge"
	"github.com/mcp-eval/mcp-eval/llm"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/report"
	"github.com/mcp-eval/mcp-eval/tasks"
)

// RunFlags are the options of mcp-eval run that bound the model runs,
// each declared once in Declare.
type RunFlags struct {
	// ModelBudget is the wall time of all model runs (0: none);
	// ModelBudgetUSD the dollars a plan may be estimated to cost (0: none),
	// above which it is refused before any model call.
	ModelBudget    time.Duration
	ModelBudgetUSD float64
	ModelMaxTokens int
	// ModelSeed is sent as the seed of every agent request (-1: none).
	ModelSeed       int
	MaxCallsPerTurn int
	// MaxRuns bounds the runs of one soft case under the statistical gate.
	MaxRuns   int
	StubTools []string
	NoCache   bool
	CacheDir  string
	// Batch is --batch: "auto" sends first turns and judge calls to the
	// providers' batch APIs (batch.go), "never" does not.
	Batch string
	// BatchWait is how long a batch may run before what it has not
	// answered goes synchronously.
	BatchWait time.Duration
}

// Declare declares the model runs' options (model layers only: mcp-eval
// conformance refuses them), bound to f.
func (f *RunFlags) Declare(s *option.Set) {
	s.Add(option.Def{Name: "model-budget", Help: "`budget` of the model runs: a wall time up to 24h (10m: runs left when it is spent end as errors) and/or dollars ($2: a plan estimated to cost more is refused before any model call), e.g. 10m,$2",
		Doc:     "wall time of all model runs (`10m`): the runs left when it is spent end as `error` naming it, and the report is still written; and/or dollars (`$2`, or `10m,$2`): a run whose estimated cost (as `--dry-run` prints it) exceeds it is refused before any model call, exit 2",
		Default: "none", Layers: option.Model},
		option.Budget(&f.ModelBudget, &f.ModelBudgetUSD, 24*time.Hour, 1e6))
	s.Add(option.Def{Name: "max-runs", Help: "most runs of one soft case under the statistical gate: an undecided case runs again, look by look, up to this `number` (1 to 1000)",
		Doc:    "most runs of one soft case under `--gate statistical`: a case its first `--runs` leave undecided against its floor runs again (5, 8, 12, 18, 27, 41, 60…) until a look decides it; 60 lets a case that fell from 95 % to 50 % be caught with about 88 % power among a dozen cases at alpha 0.05, while a healthy case rarely runs more than its first five",
		Layers: option.Model,
		Input:  &option.Input{Doc: "Most runs of one soft case under the statistical gate: a case its first runs leave undecided runs again, look by look, up to this number (default 60)."}},
		option.Int(&f.MaxRuns, DefaultMaxRuns, 1, 1000))
	s.Add(option.Def{Name: "model-max-tokens", Help: "token limit of each model answer: a `number` up to 1048576 (0: the provider's default; Anthropic, which requires one, gets 1024)",
		Doc:     "token limit of each model answer (Anthropic, which requires one, otherwise gets 1024)",
		Default: "provider default", Layers: option.Model},
		option.Int(&f.ModelMaxTokens, 0, 0, 1<<20))
	s.Add(option.Def{Name: "model-seed", Help: "`number` sent as the seed of every agent request where the provider takes one (Chat Completions, Ollama); a provider without one (Anthropic) is named in a warning",
		Doc:     "seed of every agent request where the provider has such a parameter; a provider that would drop it (Anthropic) is named in a one-line warning",
		Default: "none", Layers: option.Model},
		option.Int(&f.ModelSeed, -1, -1, 1<<31-1))
	s.Add(option.Def{Name: "max-calls-per-turn", Help: "tool calls run from one model turn; the excess is answered with an error and reported: a `number` from 1 to 1000",
		Doc:    "tool calls run from one model turn; the excess is answered with an error, marked `capped` in the transcript and reported",
		Layers: option.Model},
		option.Int(&f.MaxCallsPerTurn, agent.DefaultMaxCallsPerTurn, 1, 1000))
	s.Add(option.Def{Name: "stub-tools", Help: "`tools` the behavior layer answers with a stub instead of executing them (comma list)",
		Doc: "tools the behavior layer never executes", Layers: option.Model},
		option.List(&f.StubTools, true))
	s.Add(option.Def{Name: "no-cache", Help: "bypass the result cache", Doc: "bypass the model layers' result cache (reads; calls are still recorded)", Layers: option.Model},
		option.Bool(&f.NoCache, false))
	s.Add(option.Def{Name: "batch", Help: "`mode`: auto sends the first turn of each one-message case and the judge's calls to the OpenAI Batch API and Anthropic Message Batches at half price (multi-turn stays synchronous), never does not",
		Doc:     "`auto`: the first turn of every case with one user message, and the judge's calls, go to the OpenAI Batch API and the Anthropic Message Batches API, billed at their batch price (50 %); multi-turn turns and whatever a batch has not answered within `--batch-wait` go synchronously, so scores are those of a synchronous run. For nightly runs",
		Default: "never", Layers: option.Model,
		Input: &option.Input{Doc: "auto: the first turn of each one-message case and the judge's calls go to the OpenAI and Anthropic batch APIs at half price, with the scores of a synchronous run (for nightly runs); never (the default) does not."}},
		option.Enum(&f.Batch, "never", "auto", "never"))
	s.Add(option.Def{Name: "batch-wait", Help: "how long a batch may run before the requests it has not answered are sent synchronously (the batch is cancelled): a `duration` from 1m to 24h",
		Doc:     "how long `--batch auto` waits for a batch; what it has not answered by then is cancelled and sent synchronously",
		Default: "1h", Layers: option.Model},
		option.Duration(&f.BatchWait, time.Hour, time.Minute, 24*time.Hour))
	s.Add(option.Def{Name: "cache-dir", Help: "`directory` of the model layers' result cache", Layers: option.Model},
		option.String(&f.CacheDir, runs.DefaultCacheDir))
}

// DefaultMaxRuns is --max-runs: at a dozen soft cases and alpha 0.05 a
// case that fell from 95 % to 50 % against a floor of 0.8 is caught with
// about 88 % power (stats.FloorDesign.Operating; 76 % at 40 runs), and a
// case at its true 95 % runs 6 times on average, the cap touching almost
// none of them.
const DefaultMaxRuns = 60

// RunOptions are the bounds and outputs of the model runs.
type RunOptions struct {
	RunFlags
	Runs             int  // --runs
	RunsGiven        bool // --runs was given: it overrides the golden file's runs
	ModelConcurrency int
	// Out is where transcripts/ goes ("" keeps none).
	Out string
	// Redactor masks the run's secrets in what is stored: the cache and
	// the transcripts.
	Redactor *redact.Redactor
	// Sequential is the statistical gate's design (nil: --gate fixed).
	Sequential *Sequential
	// Stderr gets progress and warnings; TTY says it is a terminal.
	Stderr io.Writer
	TTY    bool
	// BatchPoll is the wait between a batch's status reads (0: 30 s).
	BatchPoll time.Duration
	// Cost prices a model spec's usage, for the cost so far in the
	// progress line; nil shows none.
	Cost func(model string, u llm.Usage) (float64, bool)
}

// ModelRun is a model plan bound to the server: its tools, a runner and a
// judge, shared by both model layers (Layer 2's variants run through Run
// too).
type ModelRun struct {
	o      RunOptions
	plan   *Plan
	tools  []mcp.Tool
	runner *runs.Runner
	// judges are the judges by lower-cased spec (none with --judge-model
	// none), each with its model through the cache, which counts its calls
	// and usage.
	judges map[string]*boundJudge
	// deadline is when --model-budget ends, set by the first run.
	deadline time.Time
	// results of every run of both layers, for telemetry.
	results []runs.Result
}

// Bind validates the golden set against the server's tools and sets up the
// runner, its cache and the judge.
func (p *Plan) Bind(server agent.Server, tools []mcp.Tool, o RunOptions) (*ModelRun, error) {
	if err := p.Suite.Validate(tools); err != nil {
		return nil, exitcode.Config(err)
	}
	// One record/replay cache for every model call, the judge's included;
	// what it writes goes through the run's redactor.
	cache := runs.NewCache(o.CacheDir)
	cache.Bypass = o.NoCache
	cache.Redactor = o.Redactor
	mr := &ModelRun{o: o, plan: p, tools: tools, judges: map[string]*boundJudge{}}
	for key, jc := range p.judges {
		if jc.provider == nil {
			continue
		}
		// Only verdicts are recorded: a malformed answer must be asked
		// again next time, not replayed.
		calls := cache.Model(jc.provider, runs.EndpointOf(jc.provider, jc.provider.Name()), 0).Accepting(judge.Usable)
		mr.judges[key] = &boundJudge{spec: jc.spec, calls: calls, judge: judge.New(calls, jc.model).WithPrompt(p.judgePrompt)}
	}
	if w := p.selfGradingWarning(); w != "" {
		fmt.Fprintf(o.Stderr, "mcp-eval: warning: %s\n", w)
	}
	for _, w := range droppedParams(p.Models, o.RunFlags) {
		fmt.Fprintf(o.Stderr, "mcp-eval: warning: %s\n", w)
	}
	providers := map[string]agent.Model{}
	for name, m := range p.providers {
		providers[name] = m
	}
	mr.runner = &runs.Runner{
		Providers:   providers,
		Server:      server,
		Concurrency: o.ModelConcurrency * len(providers),
		Cache:       cache,
		Progress:    o.Stderr,
		TTY:         o.TTY,
		Cost:        o.Cost,
	}
	return mr, nil
}

// boundJudge is one judge of the run: its spec, its model through the
// cache and the judge that asks it.
type boundJudge struct {
	spec  string
	calls *runs.CachedModel
	judge *judge.Judge
}

// JudgeInfo is the report's record of the judges, their own usage and cost
// (by cost, the price table's) included: Model when one judge graded every
// tested model, ByModel when the tested models judged each other.
func (mr *ModelRun) JudgeInfo(cost func(model string, u llm.Usage) (float64, bool)) *report.JudgeInfo {
	p := mr.plan
	info := &report.JudgeInfo{Model: p.JudgeSpec(), PromptSHA256: p.judgePrompt.SHA256, PromptFile: p.judgePrompt.File,
		Disabled: p.JudgeOff(), Default: p.judgeDefault}
	if info.Model == "" && !info.Disabled {
		info.ByModel = map[string]string{}
		for _, m := range p.Models {
			info.ByModel[m] = p.JudgeOf(m)
		}
	}
	if p.selfGradingWarning() != "" {
		// Only when the judge grades something: a judge that is never
		// asked flatters nobody.
		info.SelfGraded = p.selfGraded
	}
	if len(mr.judges) == 0 {
		return info
	}
	var total float64
	priced := true
	for _, spec := range p.judgeSpecs() {
		bj := mr.judges[strings.ToLower(spec)]
		if bj == nil {
			continue
		}
		u := bj.calls.Usage()
		info.Calls += bj.calls.Misses()
		info.InputTokens += u.InputTokens
		info.OutputTokens += u.OutputTokens
		// Each judge at its own price; one unknown leaves the sum unknown.
		if usd, ok := cost(bj.spec, u); ok {
			total += usd
		} else if bj.calls.Misses() > 0 {
			priced = false
		}
	}
	if priced {
		info.CostUSD = &total
	}
	return info
}

// JudgeFor is the judge of model's runs, nil with --judge-model none.
func (mr *ModelRun) JudgeFor(model string) *judge.Judge {
	if bj := mr.judges[strings.ToLower(mr.plan.JudgeOf(model))]; bj != nil {
		return bj.judge
	}
	return nil
}

// Tools are the server's tools the runs offer the models.
func (mr *ModelRun) Tools() []mcp.Tool { return mr.tools }

// Results are the runs of both model layers so far, for telemetry.
func (mr *ModelRun) Results() []runs.Result { return mr.results }

// RunsOf is how often a case runs: --runs when given, else the golden file's.
func (mr *ModelRun) RunsOf(c *tasks.Case) int {
	if mr.o.RunsGiven {
		return mr.o.Runs
	}
	return c.RunsOr(mr.o.Runs)
}

// Sequential is the statistical gate's design that Layer 1's runs follow
// (RunOptions.Sequential; nil is --gate fixed: every case runs its runs
// once). A soft case whose first runs leave it undecided against its
// floor gets more, look by look (stats.Looks up to MaxRuns), and stops as
// soon as a look decides it; the floor test's level is its share of Alpha
// (stats.SplitAlpha over the soft cases and models, with or without a
// Baseline to compare with).
type Sequential struct {
	Alpha    float64
	MaxRuns  int
	Baseline bool
}

// caseRuns is one case on one model while it runs: its design, the
// transcripts and scores so far, and whether it is still undecided.
type caseRuns struct {
	c      *tasks.Case
	model  string
	looks  []int
	design stats.FloorDesign
	soft   bool
	trs    []*agent.Transcript
	scores []RunScore
	look   int // 0-based index of the last look run
	open   bool
}

// Behavior runs the golden set on every model and scores it (Layer 1).
// Under the statistical gate (RunOptions.Sequential) undecided soft cases
// run again, look by look, until decided or at --max-runs; the runs of
// one look go out together, every case in parallel.
func (mr *ModelRun) Behavior(ctx context.Context) *Summary {
	// Which cases are skipped depends only on whether there is a judge:
	// every model has one, or none has.
	opts := mr.scoreOptions(mr.plan.Models[0])
	// A case that cannot be scored (a rubric with --judge-model none) is
	// skipped before it runs: nothing is asked of the model, billed or
	// gated.
	var skipped []*CaseScore
	var all []*caseRuns
	soft := 0
	for _, c := range mr.plan.behaviorCases() {
		for _, spec := range mr.plan.Models {
			if !c.RunsOn(spec) {
				continue
			}
			if cs := skipCase(c, spec, opts); cs != nil {
				skipped = append(skipped, cs)
				continue
			}
			cr := &caseRuns{c: c, model: spec, looks: []int{mr.RunsOf(c)}, open: true}
			if mr.o.Sequential != nil && c.Kind != tasks.KindHard {
				cr.soft = true
				cr.looks = stats.Looks(mr.RunsOf(c), max(mr.o.Sequential.MaxRuns, mr.RunsOf(c)))
				soft++
			}
			all = append(all, cr)
		}
	}
	var level float64
	if q := mr.o.Sequential; q != nil {
		// A shard's cases are judged in the merged report's family: its
		// level must not exceed the one the merged gate will use, or a case
		// this shard stopped as failed would be undecided there. Counting
		// the whole golden set's soft cases can only make it smaller.
		if mr.plan.Suite != nil && len(mr.plan.Cases) != len(mr.plan.Suite.Cases) {
			soft = max(soft, mr.plan.softItems(mr.plan.Suite.Cases, opts))
		}
		level = stats.SplitAlpha(q.Alpha, soft, len(mr.plan.Models), q.Baseline).Floor
		for _, cr := range all {
			if cr.soft {
				floor := cr.c.Floor
				if floor <= 0 {
					floor = report.SoftFloor
				}
				cr.design = stats.NewFloorDesign(floor, cr.looks, level)
			}
		}
	}

	stopped := ""
	for first := true; ; first = false {
		var jobs []runs.Job
		var owners []*caseRuns
		for _, cr := range all {
			if !cr.open {
				continue
			}
			from, to := len(cr.trs), cr.looks[cr.look]
			if !first {
				cr.look++
				from, to = cr.looks[cr.look-1], cr.looks[cr.look]
			}
			for i := from; i < to; i++ {
				jobs = append(jobs, mr.job(cr, i))
				owners = append(owners, cr)
			}
		}
		if len(jobs) == 0 {
			break
		}
		mr.prepare(jobs)
		mr.batchFirstTurns(ctx, jobs)
		results := mr.Run(ctx, jobs)
		spent := mr.o.Sequential != nil && mr.budgetSpent()
		if mr.o.Batch == "auto" {
			// The judge's calls of this look, in one batch before they
			// are scored (batch.go).
			var cs []*tasks.Case
			var models []string
			var trs []*agent.Transcript
			for i, r := range results {
				if r.Transcript != nil && r.Transcript.Failure() == "" {
					cs, models, trs = append(cs, owners[i].c), append(models, owners[i].model), append(trs, r.Transcript)
				}
			}
			mr.batchJudge(ctx, cs, models, trs)
		}
		for i, r := range results {
			cr := owners[i]
			if (ctx.Err() != nil || spent) && (r.Transcript == nil || r.Transcript.Failure() != "") {
				// Interrupted, or (under the statistical gate) out of
				// budget: a run cut short says nothing about the server
				// and is left out; the case is then decided on the runs
				// that finished, or left incomplete.
				continue
			}
			rs := ScoreRun(ctx, cr.c, r.Transcript, mr.scoreOptions(cr.model))
			rs.Run = len(cr.trs) + 1
			cr.trs = append(cr.trs, r.Transcript)
			cr.scores = append(cr.scores, rs)
		}
		if ctx.Err() != nil || spent {
			if spent && ctx.Err() == nil {
				stopped = fmt.Sprintf("the model budget (--model-budget %s) was spent", mr.o.ModelBudget)
			}
			break
		}
		for _, cr := range all {
			cr.open = cr.open && cr.soft && cr.look+1 < len(cr.looks) && cr.undecided()
		}
	}

	if ctx.Err() != nil {
		stopped = context.Cause(ctx).Error()
	}
	scored := skipped
	for _, cr := range all {
		if len(cr.trs) == 0 {
			// Only an interrupt or a spent budget leaves a case without runs.
			scored = append(scored, skippedCase(cr.c, cr.model, "not finished: "+cmp.Or(stopped, "no run finished")))
			continue
		}
		cs := &CaseScore{Case: cr.c, Model: cr.model, Runs: cr.scores}
		cs.Report = cs.reportCase()
		if mr.o.Sequential != nil {
			cs.Report.Decide(cr.looks, level, stopped)
		}
		mr.keepTranscripts(cs, cr.trs)
		scored = append(scored, cs)
	}
	mr.FlushCache() // the judge's answers
	return Summarize(scored)
}

// budgetSpent says whether --model-budget's wall time has run out.
func (mr *ModelRun) budgetSpent() bool {
	return !mr.deadline.IsZero() && !time.Now().Before(mr.deadline)
}

// softItems counts the soft case × model items of cases that would run
// (the family the statistical gate spends alpha over).
func (p *Plan) softItems(cases []*tasks.Case, opts ScoreOptions) int {
	n := 0
	for _, c := range cases {
		for _, spec := range p.Models {
			if c.Kind != tasks.KindHard && c.RunsOn(spec) && skipCase(c, spec, opts) == nil {
				n++
			}
		}
	}
	return n
}

// undecided says whether the case's runs so far leave its floor test
// undecided at its current look.
func (cr *caseRuns) undecided() bool {
	judged, passed := 0, 0
	for _, r := range cr.scores {
		if r.Errored {
			continue
		}
		judged++
		if r.Passed {
			passed++
		}
	}
	return cr.design.Decide(cr.look, passed, judged) == stats.Undecided
}

// job is run i (0-based) of a case on a model: the run index is part of
// the cache key, so each run of a look replays its own record.
func (mr *ModelRun) job(cr *caseRuns, i int) runs.Job {
	_, model, _ := llm.SplitSpec(cr.model)
	task := cr.c.Task(mr.tools, model)
	for _, name := range mr.o.StubTools {
		if task.Stubs == nil {
			task.Stubs = map[string]json.RawMessage{}
		}
		if _, ok := task.Stubs[name]; !ok {
			task.Stubs[name] = json.RawMessage(`"stubbed by mcp-eval (--stub-tools): the call was not executed"`)
		}
	}
	return runs.Job{CaseID: cr.c.ID, Model: cr.model, Run: i, Task: task}
}

// maxTranscriptBytes bounds one transcript file; a run whose record is
// larger (a server answering megabytes, many turns) is cut with a note.
const maxTranscriptBytes = 4 << 20

// keepTranscripts writes the transcripts of a case's failed and errored
// runs (every run when the case is flaky, so passes and failures can be
// compared) under --out/transcripts/, through the run's redactor, and
// lists them in the case's report entry. A write failure is a warning: the
// report matters more.
func (mr *ModelRun) keepTranscripts(cs *CaseScore, trs []*agent.Transcript) {
	if mr.o.Out == "" || cs.Report.Status == report.StatusSkip {
		return
	}
	dir := filepath.Join("transcripts", safeName(cs.Case.ID+"@"+cs.Model))
	for i, r := range cs.Runs {
		if r.Passed && !cs.Report.Flaky || i >= len(trs) || trs[i] == nil {
			continue
		}
		status := "failed"
		switch {
		case r.Errored:
			status = "errored"
		case r.Passed:
			status = "passed"
		}
		rec := struct {
			Case       string            `json:"case"`
			Model      string            `json:"model"`
			Run        int               `json:"run"`
			Status     string            `json:"status"`
			Reasons    []string          `json:"reasons,omitempty"`
			Error      string            `json:"error,omitempty"`
			Judge      string            `json:"judge,omitempty"`
			Transcript *agent.Transcript `json:"transcript"`
		}{cs.Case.ID, cs.Model, r.Run, status, r.Reasons, r.Error, judgeText(r), trs[i]}
		b, err := json.MarshalIndent(rec, "", "  ")
		if err != nil {
			continue
		}
		if len(b) > maxTranscriptBytes {
			b, _ = json.MarshalIndent(map[string]any{"case": rec.Case, "model": rec.Model, "run": rec.Run, "status": status,
				"reasons": rec.Reasons, "error": rec.Error, "note": fmt.Sprintf("the transcript is %d bytes, more than the %d kept", len(b), maxTranscriptBytes)}, "", "  ")
		}
		rel := filepath.ToSlash(filepath.Join(dir, fmt.Sprintf("run-%d.json", r.Run)))
		path := filepath.Join(mr.o.Out, filepath.FromSlash(rel))
		err = os.MkdirAll(filepath.Dir(path), 0o755)
		if err == nil {
			err = os.WriteFile(path, mr.o.Redactor.JSON(b), 0o644)
		}
		if err != nil {
			fmt.Fprintf(mr.o.Stderr, "mcp-eval: warning: could not write %s: %v\n", path, err)
			continue
		}
		cs.Report.Transcripts = append(cs.Report.Transcripts, rel)
	}
}

// judgeText is the judge's verdict on a run and its reason ("pass: …"),
// "" when the judge did not grade it.
func judgeText(r RunScore) string {
	if r.Judge == nil {
		return ""
	}
	verdict := "fail"
	if *r.Judge {
		verdict = "pass"
	}
	return verdict + ": " + cmp.Or(r.JudgeReason, "no reason given")
}

// safeName keeps a name usable as one path element on every system and in
// a Markdown link: letters, digits, '.', '_', '-' and '@'; anything else
// becomes '_'.
func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-', r == '@':
			return r
		}
		return '_'
	}, s)
}

// FlushCache waits for the cache's writes (the judge's answers, recorded
// after the runner returned) and warns once if one failed.
func (mr *ModelRun) FlushCache() {
	if err := mr.runner.Cache.Flush(); err != nil {
		fmt.Fprintf(mr.o.Stderr, "mcp-eval: warning: could not write the model-call cache: %v\n", err)
	}
}

// scoreOptions are the judges Layer 1 scores model's runs with: none at
// all with --judge-model none (a nil *judge.Judge must not become a
// non-nil interface).
func (mr *ModelRun) scoreOptions(model string) ScoreOptions {
	j := mr.JudgeFor(model)
	if j == nil {
		return ScoreOptions{NoJudge: "--judge-model none turns the judge off"}
	}
	return ScoreOptions{Judge: j, Similar: j}
}

// Run runs jobs within what is left of --model-budget: when it is spent,
// runs in flight end at their next model or tool call and the rest do not
// start, all as errored runs that say why; the report is still written.
// The results are kept for telemetry (Results), and a tool that is not
// read-only but was really executed is warned about.
func (mr *ModelRun) Run(ctx context.Context, jobs []runs.Job) []runs.Result {
	if mr.o.ModelBudget > 0 {
		if mr.deadline.IsZero() {
			mr.deadline = time.Now().Add(mr.o.ModelBudget)
		}
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadlineCause(ctx, mr.deadline,
			fmt.Errorf("the model budget (--model-budget %s) was spent", mr.o.ModelBudget))
		defer cancel()
	}
	mr.prepare(jobs)
	results := mr.runner.Run(ctx, jobs)
	capped, runs := 0, 0
	for _, r := range results {
		if r.Transcript != nil && r.Transcript.CappedCalls > 0 {
			capped += r.Transcript.CappedCalls
			runs++
		}
	}
	if capped > 0 {
		fmt.Fprintf(mr.o.Stderr, "mcp-eval: warning: %d tool calls in %d runs were not run: a model turn asked for more than %d (--max-calls-per-turn); the transcripts mark them capped\n",
			capped, runs, mr.o.MaxCallsPerTurn)
	}
	mr.results = append(mr.results, results...)
	mr.warnWrites(results)
	return results
}

// prepare sets the run options every job's task takes (idempotent).
func (mr *ModelRun) prepare(jobs []runs.Job) {
	for i := range jobs {
		jobs[i].Task.MaxCallsPerTurn = mr.o.MaxCallsPerTurn
		if mr.o.ModelMaxTokens > 0 {
			jobs[i].Task.MaxTokens = mr.o.ModelMaxTokens
		}
		if mr.o.ModelSeed >= 0 {
			seed := int64(mr.o.ModelSeed)
			jobs[i].Task.Seed = &seed
		}
	}
}

// warnWrites says loudly when a tool that is not read-only was really
// executed: the model layers run what the model calls unless it is stubbed.
func (mr *ModelRun) warnWrites(results []runs.Result) {
	writes := runs.ExecutedWrites(results)
	names := make([]string, 0, len(writes))
	for n := range writes {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(mr.o.Stderr, "mcp-eval: warning: %s is not marked readOnlyHint and was really executed %d times on the server; stub it with stub_results in %s or --stub-tools %s\n",
			n, writes[n], mr.plan.Golden, n)
	}
}
