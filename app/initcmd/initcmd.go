// Package initcmd is `mcp-eval init`: it connects to a server as `mcp-eval
// run` does, reads its tools, and writes what a repository needs to start
// evaluating it: mcp-eval.yaml with the server settings it was given, a
// draft golden file (a case per tool whose expected arguments validate
// against its inputSchema, a negative case, a case per near-duplicate pair
// the lint flags; every case draft: true), and a GitHub Actions workflow
// chosen by the server's kind. Nothing that exists is replaced without
// --force; with --models the prompts are drafted by that model, through
// the model-call cache, and priced. It is an orchestrator like
// app/pipeline, which it drives to connect; no layer imports it.
package initcmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/mcp-eval/mcp-eval/app/config"
	"github.com/mcp-eval/mcp-eval/app/pipeline"
	"github.com/mcp-eval/mcp-eval/engine/runs"
	"github.com/mcp-eval/mcp-eval/internal/exitcode"
	"github.com/mcp-eval/mcp-eval/llm"
	"github.com/mcp-eval/mcp-eval/llm/providers"
	"github.com/mcp-eval/mcp-eval/tasks"
	"github.com/mcp-eval/mcp-eval/telemetry"
)

// Run is mcp-eval init once its flags are parsed.
func Run(ctx context.Context, cfg *config.Config, o *config.InitOptions, env pipeline.Env) (err error) {
	red, err := cfg.Redactor(env.Getenv)
	if err != nil {
		return err
	}
	defer func() { err = red.Error(err) }()
	stdout := red.Writer(env.Stdout)
	defer stdout.Flush()
	errw := red.Writer(env.Stderr)
	defer errw.Flush()
	env.Stderr = errw

	files := []string{cfg.ConfigPath, cfg.Golden, o.Workflow}
	if !o.Force {
		var exist []string
		for _, f := range files {
			if _, err := os.Lstat(f); err == nil {
				exist = append(exist, f)
			}
		}
		if len(exist) > 0 {
			return exitcode.Configf("%s already exist%s: nothing was written (--force replaces them)", strings.Join(exist, ", "), map[bool]string{true: "s"}[len(exist) == 1])
		}
	}
	// The model's client first, before the server starts: a missing key
	// or an unknown provider is exit 2 in a second.
	var model *drafter
	if cfg.Models != "" {
		if model, err = newDrafter(ctx, cfg, env); err != nil {
			return err
		}
	}
	// server.log goes to a temporary directory: init leaves only its
	// three files behind.
	tmp, err := os.MkdirTemp("", "mcp-eval-init-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	run := *cfg
	run.Out = tmp
	desc, target, closeServer, err := pipeline.Describe(ctx, &run, env, red)
	if err != nil {
		return err
	}
	defer closeServer()
	if desc.ToolsErr != nil {
		return exitcode.New(exitcode.NoEval, "tools/list: "+desc.ToolsErr.Error())
	}
	cases := draftCases(desc.Tools)
	drafted := ""
	if model != nil {
		model.draft(ctx, cases)
		drafted = ", prompts by " + cfg.Models
	}
	stubs := stubTools(desc.Tools)
	golden, err := goldenFile(target, len(desc.Tools), cases, drafted, stubs)
	if err != nil {
		return err
	}
	// What init writes must load, and check, as the golden file it is.
	suite, err := tasks.Parse(golden, cfg.Golden)
	if err == nil {
		err = suite.Validate(desc.Tools)
	}
	if err != nil {
		return fmt.Errorf("init drafted a golden file that does not check against the server (a bug; please report it): %w", err)
	}
	conf, err := configFile(cfg, cfg.Golden)
	if err != nil {
		return err
	}
	kind := kindOf(cfg)
	contents := [][]byte{conf, golden, []byte(workflowFile(cfg, target, kind))}
	for i, f := range files {
		if err := write(f, contents[i]); err != nil {
			return exitcode.Configf("%s: %v", f, err)
		}
	}
	pairs := 0
	for _, c := range cases {
		if len(c.Forbid) > 0 {
			pairs++
		}
	}
	fmt.Fprintf(stdout, "mcp-eval init: %s serves %d tools\n", target, len(desc.Tools))
	fmt.Fprintf(stdout, "wrote %s (the server settings)\n", cfg.ConfigPath)
	fmt.Fprintf(stdout, "wrote %s (%d draft cases: %d tools, 1 negative, %d near-duplicate pairs to tell apart; all draft: true)\n",
		cfg.Golden, len(cases), len(desc.Tools), pairs)
	fmt.Fprintf(stdout, "wrote %s (%s)\n", o.Workflow, kind.Why)
	if kind.Outside != "" {
		fmt.Fprintf(stdout, "note: %s is outside this repository, so a runner does not have it: the workflow's \"Install the server\" step stops the job until you make it install it\n", kind.Outside)
	}
	if len(stubs) > 0 {
		fmt.Fprintf(stdout, "note: %s %s not marked readOnlyHint: true, so the drafts stub %s (defaults: stub_results): no draft executes %s\n",
			strings.Join(stubs, ", "), map[bool]string{true: "is", false: "are"}[len(stubs) == 1], map[bool]string{true: "it", false: "them"}[len(stubs) == 1], map[bool]string{true: "it", false: "them"}[len(stubs) == 1])
	}
	if model != nil {
		fmt.Fprintln(stdout, model.summary())
	}
	next := "mcp-eval run --dry-run --models ollama:qwen2.5:7b,openai:gpt-4.1-mini"
	if cfg.Models != "" {
		next = "mcp-eval run --dry-run"
	}
	fmt.Fprintf(stdout, "next: edit the drafts in %s, then check and price them without a model:\n  %s\n", cfg.Golden, next)
	return nil
}

// write writes a file, its directory made as needed.
func write(path string, b []byte) error {
	if dir := filepath.Dir(path); dir != "." {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	return os.WriteFile(path, b, 0o644)
}

// drafter asks a model for the cases' prompts, through the model-call
// cache (a second init asks it nothing), and prices what it asked.
type drafter struct {
	spec  string
	model string
	cm    *runs.CachedModel
	cache *runs.Cache
	mu    sync.Mutex
	errs  []string
	n     int
}

func newDrafter(ctx context.Context, cfg *config.Config, env pipeline.Env) (*drafter, error) {
	def, model, err := providers.Parse(cfg.Models)
	if err != nil {
		return nil, exitcode.Usagef("--models: %v", err)
	}
	p, err := providers.New(def.Name, env.Getenv, llm.WithTimeout(cfg.ModelTimeout), llm.WithConcurrency(4))
	if err != nil {
		var ee *llm.EnvError
		if errors.As(err, &ee) {
			return nil, exitcode.Configf("--models %s: %v", cfg.Models, err)
		}
		return nil, exitcode.Usagef("--models %s: %v", cfg.Models, err)
	}
	if pr, ok := p.(llm.Prober); ok {
		if err := pr.Probe(ctx, model); err != nil {
			var pe *llm.ProbeError
			if errors.As(err, &pe) && pe.Unreachable() {
				return nil, exitcode.New(exitcode.NoEval, err.Error())
			}
			return nil, exitcode.Configf("%v", err)
		}
	}
	cache := runs.NewCache(cfg.CacheDir)
	cache.Bypass = cfg.NoCache
	return &drafter{spec: cfg.Models, model: model, cache: cache, cm: cache.Model(p, runs.EndpointOf(p, def.Name), 0)}, nil
}

// draft replaces each case's template prompt with the model's; a case
// whose request fails keeps its template, and the summary says how many.
func (d *drafter) draft(ctx context.Context, cases []*draftCase) {
	zero := 0.0
	var wg sync.WaitGroup
	for _, c := range cases {
		if c.ask == "" {
			continue
		}
		wg.Go(func() {
			resp, err := d.cm.Complete(ctx, llm.Request{Model: d.model, Temperature: &zero, MaxTokens: 200, Messages: []llm.Message{
				{Role: llm.RoleSystem, Content: "You write test prompts for the tools of an MCP server: what a real user would type."},
				{Role: llm.RoleUser, Content: c.ask},
			}})
			d.mu.Lock()
			defer d.mu.Unlock()
			d.n++
			if err != nil {
				d.errs = append(d.errs, err.Error())
				return
			}
			if p := cleanPrompt(resp.Message.Content); p != "" {
				c.Prompt = p
			}
		})
	}
	wg.Wait()
	_ = d.cache.Flush()
}

// cleanPrompt is the model's answer as a prompt: one line, quotes
// dropped; "" when it is empty or too long to be a user's request.
func cleanPrompt(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	s = strings.Trim(s, "\"'`“”")
	if s == "" || len(s) > 500 {
		return ""
	}
	return s
}

// summary says what the drafting cost: calls, the cache's share, tokens
// and dollars.
func (d *drafter) summary() string {
	u := d.cm.Usage()
	cost := "unknown (no price)"
	if usd, ok := telemetry.BuiltinPrices().Cost(d.spec, u); ok {
		cost = fmt.Sprintf("$%.4f", usd)
	}
	s := fmt.Sprintf("drafted the prompts with %s: %d calls (%d answered from the cache), %d tokens in, %d out, %s",
		d.spec, d.n, d.cm.Hits(), u.InputTokens, u.OutputTokens, cost)
	if len(d.errs) > 0 {
		s += fmt.Sprintf("; %d failed and keep their template prompt (first: %s)", len(d.errs), d.errs[0])
	}
	return s
}
