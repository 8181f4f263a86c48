package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/mcp-eval/mcp-eval/agent"
	"github.com/mcp-eval/mcp-eval/golden"
	"github.com/mcp-eval/mcp-eval/internal/surface"
	"github.com/mcp-eval/mcp-eval/llm"
	"github.com/mcp-eval/mcp-eval/mcp"
)

// behaviorPlan is Layer 1 as configured, checked before any network call:
// a bad golden file or a missing API key is exit 2, not a half-run.
type behaviorPlan struct {
	suite      *golden.Suite
	cases      []*golden.Case
	models     []string // provider:model specs, in --models order
	providers  map[string]llm.Provider
	judgeSpec  string
	judgeModel string
}

func planBehavior(cfg *Config, getenv func(string) string) (*behaviorPlan, error) {
	if strings.TrimSpace(cfg.Models) == "" {
		return nil, usagef("--layers behavior needs --models, e.g. --models openai:gpt-4.1-mini")
	}
	suite, err := golden.Load(cfg.Golden)
	if err != nil {
		return nil, &configError{err.Error()}
	}
	bp := &behaviorPlan{suite: suite, providers: map[string]llm.Provider{}}
	bp.cases = suite.Cases
	if cfg.Shard != "" {
		i, n, err := parseShard(cfg.Shard)
		if err != nil {
			return nil, err
		}
		bp.cases = suite.Shard(i, n)
	}
	addProvider := func(spec, flagName string) (string, error) {
		name, model, err := llm.ParseSpec(spec)
		if err != nil {
			return "", usagef("%s %q: %v", flagName, spec, err)
		}
		if _, ok := bp.providers[name]; !ok {
			p, err := llm.New(name, getenv, llm.WithConcurrency(cfg.Concurrency))
			if err != nil {
				var ee *llm.EnvError
				if errors.As(err, &ee) {
					return "", &configError{fmt.Sprintf("%s %s: %v", flagName, spec, err)}
				}
				return "", usagef("%s %q: %v", flagName, spec, err)
			}
			bp.providers[name] = p
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
		bp.models = append(bp.models, spec)
	}
	bp.judgeSpec = cfg.JudgeModel
	if bp.judgeSpec == "" {
		bp.judgeSpec = bp.models[0]
	}
	if bp.judgeModel, err = addProvider(bp.judgeSpec, "--judge-model"); err != nil {
		return nil, err
	}
	return bp, nil
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

// runBehavior runs the golden set on every model against the server and
// scores it. It returns the summary to apply to the report and the raw
// tools list (for the report's surface when conformance did not run).
func runBehavior(ctx context.Context, cfg *Config, bp *behaviorPlan, client *mcp.Client, stderr io.Writer) (*golden.Summary, []mcp.Tool, error) {
	tools, err := client.ListTools(ctx)
	if err != nil {
		return nil, nil, &exitError{1, "behavior layer: tools/list: " + err.Error()}
	}
	if err := bp.suite.Validate(tools); err != nil {
		return nil, nil, &configError{err.Error()}
	}
	raws := make([]json.RawMessage, len(tools))
	for i, t := range tools {
		raws[i] = t.Raw
	}
	fingerprint, _ := surface.Compute(raws, nil, nil)

	stub := map[string]bool{}
	for _, t := range cfg.StubTools.vals {
		stub[t] = true
	}
	var jobs []golden.Job
	for _, c := range bp.cases {
		runs := cfg.Runs
		if !cfg.runsSet {
			runs = c.RunsOr(cfg.Runs)
		}
		for _, spec := range bp.models {
			_, model, _ := llm.ParseSpec(spec)
			for i := 0; i < runs; i++ {
				task := c.Task(tools, model)
				for name := range stub {
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

	judgeProvider, _, _ := llm.ParseSpec(bp.judgeSpec)
	judge := &golden.JudgeCache{
		Judge:  golden.NewModelJudge(bp.providers[judgeProvider], bp.judgeModel),
		Dir:    cfg.CacheDir,
		Model:  bp.judgeSpec,
		Bypass: cfg.NoCache,
	}
	cache := golden.NewCache(cfg.CacheDir, fingerprint, golden.JudgePromptSHA256())
	cache.Bypass = cfg.NoCache
	providers := map[string]agent.Model{}
	for name, p := range bp.providers {
		providers[name] = p
	}
	runner := &golden.Runner{
		Providers:   providers,
		Server:      client,
		Concurrency: cfg.Concurrency * len(providers),
		Cache:       cache,
		Progress:    stderr,
		TTY:         isTerminal(stderr),
	}
	results := runner.Run(ctx, jobs)

	// Layer 1 executes what the model calls unless a case stubs it; say so
	// loudly when that touched a tool that is not read-only.
	writes := golden.ExecutedWrites(results)
	names := make([]string, 0, len(writes))
	for n := range writes {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(stderr, "mcp-eval: warning: %s is not marked readOnlyHint and was really executed %d times on the server; stub it with stub_results in %s or --stub-tools %s\n",
			n, writes[n], cfg.Golden, n)
	}

	byCase := map[string]*golden.Case{}
	for _, c := range bp.cases {
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
	opts := golden.ScoreOptions{Judge: judge, Similar: judge}
	var scored []*golden.CaseScore
	for _, k := range order {
		scored = append(scored, golden.ScoreCase(ctx, byCase[k.id], k.model, grouped[k], opts))
	}
	return golden.Summarize(scored), tools, nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
