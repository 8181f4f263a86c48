package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/mcp-eval/mcp-eval/agent"
	"github.com/mcp-eval/mcp-eval/golden"
	"github.com/mcp-eval/mcp-eval/internal/redact"
	"github.com/mcp-eval/mcp-eval/llm"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/report"
	"github.com/mcp-eval/mcp-eval/resilience"
)

// modelPlan is what the model layers (behavior, and the model half of
// resilience) need, checked before any network call: a bad golden or
// payload file, or a missing API key, is exit 2, not a half-run.
type modelPlan struct {
	behavior, resilience bool
	suite                *golden.Suite
	cases                []*golden.Case
	models               []string // provider:model specs, in --models order
	providers            map[string]llm.Provider
	judgeSpec            string
	judgeModel           string
	payloads             *resilience.PayloadSet
}

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
	suite, err := golden.Load(cfg.Golden)
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
	opts := []llm.Option{llm.WithConcurrency(cfg.Concurrency)}
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
	mp.judgeSpec = cfg.JudgeModel
	if mp.judgeSpec == "" {
		mp.judgeSpec = mp.models[0]
	}
	if mp.judgeModel, err = addProvider(mp.judgeSpec, "--judge-model"); err != nil {
		return nil, err
	}
	return mp, nil
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
	runner *golden.Runner
	judge  *golden.ModelJudge
	stderr io.Writer
	// results of every run of both layers, for telemetry.
	results []golden.Result
}

// prepare lists the server's tools, validates the golden set against
// them, and sets up the runner, its cache and the judge.
func (mp *modelPlan) prepare(ctx context.Context, cfg *Config, client *mcp.Client, tools []mcp.Tool, stderr io.Writer, red *redact.Redactor) (*modelRun, error) {
	if err := mp.suite.Validate(tools); err != nil {
		return nil, &configError{err.Error()}
	}
	// One record/replay cache for every model call, the judge's included;
	// what it writes goes through the run's redactor.
	cache := golden.NewCache(cfg.CacheDir)
	cache.Bypass = cfg.NoCache
	cache.Redactor = red
	judgeProvider, _, _ := llm.ParseSpec(mp.judgeSpec)
	jp := mp.providers[judgeProvider]
	judge := golden.NewModelJudge(cache.Model(jp, golden.EndpointOf(jp, judgeProvider), 0), mp.judgeModel)
	providers := map[string]agent.Model{}
	for name, p := range mp.providers {
		providers[name] = p
	}
	return &modelRun{cfg: cfg, plan: mp, tools: tools, judge: judge, stderr: stderr, runner: &golden.Runner{
		Providers:   providers,
		Server:      client,
		Concurrency: cfg.Concurrency * len(providers),
		Cache:       cache,
		Progress:    stderr,
		TTY:         isTerminal(stderr),
	}}, nil
}

// runs is how often a case runs: --runs when given, else the golden file's.
func (mr *modelRun) runs(c *golden.Case) int {
	if mr.cfg.runsSet {
		return mr.cfg.Runs
	}
	return c.RunsOr(mr.cfg.Runs)
}

// behavior runs the golden set on every model and scores it (Layer 1).
func (mr *modelRun) behavior(ctx context.Context) *golden.Summary {
	stub := mr.cfg.StubTools.vals
	var jobs []golden.Job
	for _, c := range mr.plan.cases {
		for _, spec := range mr.plan.models {
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
				jobs = append(jobs, golden.Job{CaseID: c.ID, Model: spec, Run: i, Task: task})
			}
		}
	}
	results := mr.runner.Run(ctx, jobs)
	mr.results = append(mr.results, results...)
	mr.warnWrites(results)

	byCase := map[string]*golden.Case{}
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
	opts := golden.ScoreOptions{Judge: mr.judge, Similar: mr.judge}
	var scored []*golden.CaseScore
	for _, k := range order {
		scored = append(scored, golden.ScoreCase(ctx, byCase[k.id], k.model, grouped[k], opts))
	}
	return golden.Summarize(scored)
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
	results := mr.runner.Run(ctx, plan.Jobs(mr.tools, mr.plan.models, mr.runs))
	mr.results = append(mr.results, results...)
	mr.warnWrites(results)
	return plan.Score(ctx, results, resilience.ScoreOptions{Judge: mr.judge}), nil
}

// warnWrites says loudly when a tool that is not read-only was really
// executed: the model layers run what the model calls unless it is stubbed.
func (mr *modelRun) warnWrites(results []golden.Result) {
	writes := golden.ExecutedWrites(results)
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
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
