package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mcp-eval/mcp-eval/agent"
	"github.com/mcp-eval/mcp-eval/golden"
	"github.com/mcp-eval/mcp-eval/internal/redact"
	"github.com/mcp-eval/mcp-eval/internal/runs"
	"github.com/mcp-eval/mcp-eval/judge"
	"github.com/mcp-eval/mcp-eval/llm"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/report"
	"github.com/mcp-eval/mcp-eval/resilience"
	"github.com/mcp-eval/mcp-eval/tasks"
	"github.com/mcp-eval/mcp-eval/telemetry"
)

// modelPlan is what the model layers (behavior, and the model half of
// resilience) need, checked before any network call: a bad golden or
// payload file, or a missing API key, is exit 2, not a half-run.
type modelPlan struct {
	behavior, resilience bool
	suite                *tasks.Suite
	cases                []*tasks.Case
	models               []string // provider:model specs, in --models order
	providers            map[string]llm.Provider
	judgeSpec            string // "" with --judge-model none
	judgeModel           string
	judgeProvider        llm.Provider // the judge's own client, outside telemetry
	judgePrompt          *judge.Prompt
	selfGraded           []string // tested models that are the judge
	judgeDefault         bool     // no --judge-model: the first model judges
	payloads             *resilience.PayloadSet
}

// JudgeNone is the --judge-model value that turns the judge off.
const JudgeNone = "none"

// planModels returns nil when no model layer runs: behavior was not asked
// for, and resilience runs only its deterministic probes without --models.
func planModels(cfg *Config, layers []string, getenv func(string) string, obs llm.Observer) (*modelPlan, error) {
	mp := &modelPlan{
		behavior:   slices.Contains(layers, report.LayerBehavior),
		resilience: slices.Contains(layers, report.LayerResilience) && strings.TrimSpace(cfg.Models) != "",
		providers:  map[string]llm.Provider{},
	}
	if !mp.behavior && !mp.resilience {
		return nil, nil
	}
	if strings.TrimSpace(cfg.Models) == "" {
		return nil, usagef("--layers behavior needs --models, e.g. --models openai:gpt-4.1-mini")
	}
	suite, err := tasks.Load(cfg.Golden)
	if err != nil {
		return nil, &configError{err.Error()}
	}
	mp.suite, mp.cases = suite, suite.Cases
	if cfg.Shard != "" {
		i, n, err := parseShard(cfg.Shard)
		if err != nil {
			return nil, err
		}
		mp.cases = suite.Shard(i, n)
	}
	if mp.resilience {
		mp.payloads = resilience.Builtin()
		if cfg.Payloads != "" {
			if mp.payloads, err = resilience.LoadPayloads(cfg.Payloads); err != nil {
				return nil, &configError{err.Error()}
			}
		}
	}
	opts := []llm.Option{llm.WithConcurrency(cfg.ModelConcurrency), llm.WithTimeout(cfg.ModelTimeout)}
	if obs != nil {
		opts = append(opts, llm.WithObserver(obs))
	}
	addProvider := func(spec, flagName string) (string, error) {
		name, model, err := llm.ParseSpec(spec)
		if err != nil {
			return "", usagef("%s %q: %v", flagName, spec, err)
		}
		if _, ok := mp.providers[name]; !ok {
			p, err := llm.New(name, getenv, opts...)
			if err != nil {
				var ee *llm.EnvError
				if errors.As(err, &ee) {
					return "", &configError{fmt.Sprintf("%s %s: %v", flagName, spec, err)}
				}
				return "", usagef("%s %q: %v", flagName, spec, err)
			}
			mp.providers[name] = p
		}
		return model, nil
	}
	for _, spec := range strings.Split(cfg.Models, ",") {
		if spec = strings.TrimSpace(spec); spec == "" {
			continue
		}
		if _, err := addProvider(spec, "--models"); err != nil {
			return nil, err
		}
		mp.models = append(mp.models, spec)
	}
	if err := suite.CheckModels(mp.models); err != nil {
		return nil, &configError{err.Error()}
	}
	mp.judgePrompt = judge.DefaultPrompt()
	if cfg.JudgePrompt != "" {
		if mp.judgePrompt, err = judge.LoadPrompt(cfg.JudgePrompt); err != nil {
			return nil, &configError{err.Error()}
		}
	}
	mp.judgeSpec = strings.TrimSpace(cfg.JudgeModel)
	if strings.EqualFold(mp.judgeSpec, JudgeNone) {
		mp.judgeSpec = ""
		return mp, nil
	}
	if mp.judgeSpec == "" {
		// The default judge is the first tested model: convenient, and
		// said loudly below, since a model then grades its own runs.
		mp.judgeSpec, mp.judgeDefault = mp.models[0], true
	}
	name, model, err := llm.ParseSpec(mp.judgeSpec)
	if err != nil {
		return nil, usagef("--judge-model %q: %v (or none for no judge)", mp.judgeSpec, err)
	}
	mp.judgeModel = model
	// The judge gets a client of its own with no telemetry observer, so
	// its tokens and cost are reported apart from the tested models' even
	// when it is one of them.
	jp, err := llm.New(name, getenv, llm.WithConcurrency(cfg.ModelConcurrency), llm.WithTimeout(cfg.ModelTimeout))
	if err != nil {
		var ee *llm.EnvError
		if errors.As(err, &ee) {
			return nil, &configError{fmt.Sprintf("--judge-model %s: %v", mp.judgeSpec, err)}
		}
		return nil, usagef("--judge-model %q: %v", mp.judgeSpec, err)
	}
	mp.judgeProvider = jp
	for _, m := range mp.models {
		if strings.EqualFold(m, mp.judgeSpec) {
			mp.selfGraded = append(mp.selfGraded, m)
		}
	}
	return mp, nil
}

// selfGradingWarning says that a model grades its own runs, or "".
func (mp *modelPlan) selfGradingWarning() string {
	if len(mp.selfGraded) == 0 || !mp.suite.NeedsJudge() && !mp.suite.HasSemantic() {
		return ""
	}
	how := "--judge-model is " + mp.judgeSpec
	if mp.judgeDefault {
		how = "no --judge-model was given, so the first of --models judges"
	}
	return fmt.Sprintf("the judge %s is also a tested model (%s): it grades its own runs, which flatters it; set --judge-model to another model, or --judge-model none", mp.judgeSpec, how)
}

// judgeInfo is the report's record of the judge, its own usage and cost
// included.
func (mr *modelRun) judgeInfo(prices *telemetry.Prices) *report.JudgeInfo {
	mp := mr.plan
	info := &report.JudgeInfo{Model: mp.judgeSpec, PromptSHA256: mp.judgePrompt.SHA256, PromptFile: mp.judgePrompt.File,
		Disabled: mp.judgeSpec == ""}
	if mp.selfGradingWarning() != "" {
		// Only when the judge grades something: a judge that is never
		// asked flatters nobody.
		info.SelfGraded = mp.selfGraded
	}
	if mr.judgeCalls != nil {
		u := mr.judgeCalls.Usage()
		info.Calls, info.InputTokens, info.OutputTokens = mr.judgeCalls.Misses(), u.InputTokens, u.OutputTokens
		if cost, ok := prices.Cost(mp.judgeSpec, u); ok {
			info.CostUSD = &cost
		}
	}
	return info
}

// parseShard parses --shard i/n (1-based).
func parseShard(s string) (int, int, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return 0, 0, usagef("--shard %q: want i/n with 1 ≤ i ≤ n, e.g. 2/4", s)
	}
	return i, n, nil
}

// modelRun is a model plan bound to the server: its tools, a runner and a
// judge, shared by both model layers.
type modelRun struct {
	cfg    *Config
	plan   *modelPlan
	tools  []mcp.Tool
	runner *runs.Runner
	judge  *judge.Judge // nil with --judge-model none
	// judgeCalls is the judge's model through the cache; it counts the
	// judge's calls and usage.
	judgeCalls *runs.CachedModel
	stderr     io.Writer
	red        *redact.Redactor
	// deadline is when --model-budget ends, set by the first run.
	deadline time.Time
	// results of every run of both layers, for telemetry.
	results []runs.Result
}

// prepare lists the server's tools, validates the golden set against
// them, and sets up the runner, its cache and the judge.
func (mp *modelPlan) prepare(ctx context.Context, cfg *Config, client *mcp.Client, tools []mcp.Tool, stderr io.Writer, red *redact.Redactor) (*modelRun, error) {
	if err := mp.suite.Validate(tools); err != nil {
		return nil, &configError{err.Error()}
	}
	// One record/replay cache for every model call, the judge's included;
	// what it writes goes through the run's redactor.
	cache := runs.NewCache(cfg.CacheDir)
	cache.Bypass = cfg.NoCache
	cache.Redactor = red
	var jd *judge.Judge
	var judgeCalls *runs.CachedModel
	if mp.judgeProvider != nil {
		judgeCalls = cache.Model(mp.judgeProvider, runs.EndpointOf(mp.judgeProvider, mp.judgeProvider.Name()), 0)
		jd = judge.New(judgeCalls, mp.judgeModel).WithPrompt(mp.judgePrompt)
	}
	if w := mp.selfGradingWarning(); w != "" {
		fmt.Fprintf(stderr, "mcp-eval: warning: %s\n", w)
	}
	providers := map[string]agent.Model{}
	for name, p := range mp.providers {
		providers[name] = p
	}
	return &modelRun{cfg: cfg, plan: mp, tools: tools, judge: jd, judgeCalls: judgeCalls, stderr: stderr, red: red, runner: &runs.Runner{
		Providers:   providers,
		Server:      client,
		Concurrency: cfg.ModelConcurrency * len(providers),
		Cache:       cache,
		Progress:    stderr,
		TTY:         isTerminal(stderr),
	}}, nil
}

// runs is how often a case runs: --runs when given, else the golden file's.
func (mr *modelRun) runs(c *tasks.Case) int {
	if mr.cfg.runsSet {
		return mr.cfg.Runs
	}
	return c.RunsOr(mr.cfg.Runs)
}

// behavior runs the golden set on every model and scores it (Layer 1).
func (mr *modelRun) behavior(ctx context.Context) *golden.Summary {
	stub := mr.cfg.StubTools.vals
	var jobs []runs.Job
	for _, c := range mr.plan.cases {
		for _, spec := range mr.plan.models {
			if !c.RunsOn(spec) {
				continue
			}
			_, model, _ := llm.ParseSpec(spec)
			for i := 0; i < mr.runs(c); i++ {
				task := c.Task(mr.tools, model)
				for _, name := range stub {
					if task.Stubs == nil {
						task.Stubs = map[string]json.RawMessage{}
					}
					if _, ok := task.Stubs[name]; !ok {
						task.Stubs[name] = json.RawMessage(`"stubbed by mcp-eval (--stub-tools): the call was not executed"`)
					}
				}
				jobs = append(jobs, runs.Job{CaseID: c.ID, Model: spec, Run: i, Task: task})
			}
		}
	}
	results := mr.run(ctx, jobs)
	mr.results = append(mr.results, results...)
	mr.warnWrites(results)

	byCase := map[string]*tasks.Case{}
	for _, c := range mr.plan.cases {
		byCase[c.ID] = c
	}
	type key struct{ id, model string }
	grouped := map[key][]*agent.Transcript{}
	var order []key
	for _, r := range results {
		k := key{r.Job.CaseID, r.Job.Model}
		if _, ok := grouped[k]; !ok {
			order = append(order, k)
		}
		grouped[k] = append(grouped[k], r.Transcript)
	}
	opts := mr.scoreOptions()
	var scored []*golden.CaseScore
	for _, k := range order {
		cs := golden.ScoreCase(ctx, byCase[k.id], k.model, grouped[k], opts)
		mr.keepTranscripts(cs, grouped[k])
		scored = append(scored, cs)
	}
	mr.flushCache() // the judge's answers
	return golden.Summarize(scored)
}

// maxTranscriptBytes bounds one transcript file; a run whose record is
// larger (a server answering megabytes, many turns) is cut with a note.
const maxTranscriptBytes = 4 << 20

// keepTranscripts writes the transcripts of a case's failed and errored
// runs (every run when the case is flaky, so passes and failures can be
// compared) under --out/transcripts/, through the run's redactor, and
// lists them in the case's report entry. A write failure is a warning: the
// report matters more.
func (mr *modelRun) keepTranscripts(cs *golden.CaseScore, trs []*agent.Transcript) {
	if mr.cfg.Out == "" || cs.Report.Status == report.StatusSkip {
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
			Transcript *agent.Transcript `json:"transcript"`
		}{cs.Case.ID, cs.Model, r.Run, status, r.Reasons, r.Error, trs[i]}
		b, err := json.MarshalIndent(rec, "", "  ")
		if err != nil {
			continue
		}
		if len(b) > maxTranscriptBytes {
			b, _ = json.MarshalIndent(map[string]any{"case": rec.Case, "model": rec.Model, "run": rec.Run, "status": status,
				"reasons": rec.Reasons, "error": rec.Error, "note": fmt.Sprintf("the transcript is %d bytes, more than the %d kept", len(b), maxTranscriptBytes)}, "", "  ")
		}
		rel := filepath.ToSlash(filepath.Join(dir, fmt.Sprintf("run-%d.json", r.Run)))
		path := filepath.Join(mr.cfg.Out, filepath.FromSlash(rel))
		err = os.MkdirAll(filepath.Dir(path), 0o755)
		if err == nil {
			err = os.WriteFile(path, mr.red.Bytes(b), 0o644)
		}
		if err != nil {
			fmt.Fprintf(mr.stderr, "mcp-eval: warning: could not write %s: %v\n", path, err)
			continue
		}
		cs.Report.Transcripts = append(cs.Report.Transcripts, rel)
	}
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

// resilience runs the fault and injection variants of the golden cases
// that declare them (the model half of Layer 2) and scores fabrication and
// attack success.
func (mr *modelRun) resilience(ctx context.Context) (*resilience.Summary, error) {
	plan, err := resilience.NewPlan(mr.plan.cases, mr.tools, mr.plan.payloads)
	if err != nil {
		return nil, &configError{err.Error()}
	}
	if plan.Empty() {
		fmt.Fprintf(mr.stderr, "mcp-eval: no case in %s declares faults: or inject:, so the model half of the resilience layer had nothing to run\n", mr.cfg.Golden)
		return nil, nil
	}
	results := mr.run(ctx, plan.Jobs(mr.tools, mr.plan.models, mr.runs))
	mr.results = append(mr.results, results...)
	mr.warnWrites(results)
	ropts := resilience.ScoreOptions{}
	if mr.judge != nil {
		ropts.Judge = mr.judge
	}
	sum := plan.Score(ctx, results, ropts)
	mr.flushCache()
	return sum, nil
}

// flushCache waits for the cache's writes (the judge's answers, recorded
// after the runner returned) and warns once if one failed.
func (mr *modelRun) flushCache() {
	if err := mr.runner.Cache.Flush(); err != nil {
		fmt.Fprintf(mr.stderr, "mcp-eval: warning: could not write the model-call cache: %v\n", err)
	}
}

// scoreOptions are the judges Layer 1 scores with: none at all with
// --judge-model none (a nil *judge.Judge must not become a non-nil
// interface).
func (mr *modelRun) scoreOptions() golden.ScoreOptions {
	if mr.judge == nil {
		return golden.ScoreOptions{NoJudge: "--judge-model none turns the judge off"}
	}
	return golden.ScoreOptions{Judge: mr.judge, Similar: mr.judge}
}

// run runs jobs within what is left of --model-budget: when it is spent,
// runs in flight end at their next model or tool call and the rest do not
// start, all as errored runs that say why; the report is still written.
func (mr *modelRun) run(ctx context.Context, jobs []runs.Job) []runs.Result {
	if mr.cfg.ModelBudget > 0 {
		if mr.deadline.IsZero() {
			mr.deadline = time.Now().Add(mr.cfg.ModelBudget)
		}
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadlineCause(ctx, mr.deadline,
			fmt.Errorf("the model budget (--model-budget %s) was spent", mr.cfg.ModelBudget))
		defer cancel()
	}
	for i := range jobs {
		jobs[i].Task.MaxCallsPerTurn = mr.cfg.MaxCallsPerTurn
		if mr.cfg.ModelMaxTokens > 0 {
			jobs[i].Task.MaxTokens = mr.cfg.ModelMaxTokens
		}
	}
	results := mr.runner.Run(ctx, jobs)
	capped, runs := 0, 0
	for _, r := range results {
		if r.Transcript != nil && r.Transcript.CappedCalls > 0 {
			capped += r.Transcript.CappedCalls
			runs++
		}
	}
	if capped > 0 {
		fmt.Fprintf(mr.stderr, "mcp-eval: warning: %d tool calls in %d runs were not run: a model turn asked for more than %d (--max-calls-per-turn); the transcripts mark them capped\n",
			capped, runs, mr.cfg.MaxCallsPerTurn)
	}
	return results
}

// warnWrites says loudly when a tool that is not read-only was really
// executed: the model layers run what the model calls unless it is stubbed.
func (mr *modelRun) warnWrites(results []runs.Result) {
	writes := runs.ExecutedWrites(results)
	names := make([]string, 0, len(writes))
	for n := range writes {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(mr.stderr, "mcp-eval: warning: %s is not marked readOnlyHint and was really executed %d times on the server; stub it with stub_results in %s or --stub-tools %s\n",
			n, writes[n], mr.cfg.Golden, n)
	}
}

func isTerminal(w io.Writer) bool {
	f, ok := fileOf(w)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
