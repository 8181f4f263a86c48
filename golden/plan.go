package golden

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcp-eval/mcp-eval/internal/exitcode"
	"github.com/mcp-eval/mcp-eval/internal/option"
	"github.com/mcp-eval/mcp-eval/judge"
	"github.com/mcp-eval/mcp-eval/llm"
	"github.com/mcp-eval/mcp-eval/llm/providers"
	"github.com/mcp-eval/mcp-eval/tasks"
)

// JudgeNone is the --judge-model value that turns the judge off.
const JudgeNone = "none"

// PlanFlags are the options of mcp-eval run that the model plan reads,
// each declared once in Declare.
type PlanFlags struct {
	Golden           string // --golden
	Models           string // --models, a comma list of provider:model
	Shard            string // --shard i/n
	JudgeModel       string // --judge-model: provider:model, none, or "" for the first model
	JudgePrompt      string // --judge-prompt
	ModelTimeout     time.Duration
	ModelConcurrency int
	// ModelRetryBudget bounds the retries of one model call, waits included.
	ModelRetryBudget time.Duration
}

// Declare declares the model plan's options (model layers only: mcp-eval
// conformance refuses them), bound to f.
func (f *PlanFlags) Declare(s *option.Set) {
	s.Add(option.Def{Name: "models", Help: "comma `list` of provider:model (behavior layer); providers: " + strings.Join(providers.Names(), ", "),
		Doc:    "`provider:model` list for the behavior layer (providers: " + strings.Join(providers.Names(), ", ") + "; see [Model providers](#model-providers))",
		Layers: option.Model,
		Input:  &option.Input{List: true, Doc: "Comma list of provider:model for the behavior layer, e.g. openai:gpt-4.1-mini,anthropic:claude-sonnet-4-5. Keys come from the environment (OPENAI_API_KEY, ANTHROPIC_API_KEY…); local servers (ollama:, llamacpp:, vllm:, lmstudio:) need none. Without models, auto runs conformance only."}},
		option.String(&f.Models, ""))
	s.Add(option.Def{Name: "golden", Help: "golden task `file` (behavior layer)", Doc: "the golden task file", Layers: option.Model,
		Input: &option.Input{Doc: "Golden task file for the behavior layer."}},
		option.String(&f.Golden, "golden/tasks.yaml"))
	s.Add(option.Def{Name: "shard", Help: "`i/n`: run the i-th of n shards of the golden set", Layers: option.Model,
		Input: &option.Input{Doc: "i/n: run the i-th of n shards of the golden set (join the reports with mcp-eval merge)."}},
		option.String(&f.Shard, ""))
	s.Add(option.Def{Name: "judge-model", Help: "`provider:model` that grades rubrics and semantic arguments, or none (default: the first of --models, with a self-grading warning)",
		Doc: "grades rubrics and semantic arguments; `none` for no judge", Default: "first model (warned)", Layers: option.Model,
		Input: &option.Input{Doc: "provider:model that grades rubrics and semantic arguments, or none; without it the first of models grades its own runs (a warning says so)."}},
		option.String(&f.JudgeModel, ""))
	s.Add(option.Def{Name: "judge-prompt", Help: "`file` with the judge's === grade === and === similar === prompts (default: the built-in judge/judge_prompt.txt); its hash is recorded",
		Doc: "the judge's prompts (`=== grade ===`, `=== similar ===`); the hash is recorded", Default: "built-in", Layers: option.Model},
		option.String(&f.JudgePrompt, ""))
	s.Add(option.Def{Name: "model-timeout", Help: "deadline of each request to a model provider (retries have their own budget, --model-retry-budget): a `duration` from 1s to 1h",
		Doc:    "deadline of each request to a model provider; retries of one call share `--model-retry-budget`, and a `Retry-After` over 60 s ends the call with the provider's message",
		Layers: option.Model},
		option.Duration(&f.ModelTimeout, 60*time.Second, time.Second, time.Hour))
	s.Add(option.Def{Name: "model-concurrency", Help: "model requests in flight at once per provider: a `number` from 1 to 256",
		Doc:    "model requests in flight per provider (typical provider limits; `--concurrency` is for checks)",
		Layers: option.Model},
		// Typical provider rate limits (a few requests in flight per key on
		// new accounts) rather than the checks' concurrency.
		option.Int(&f.ModelConcurrency, 4, 1, 256))
	s.Add(option.Def{Name: "model-retry-budget", Help: "time one model call may spend on retries after its first attempt, waits included: a `duration` from 1s to 1h",
		Doc:    "time one model call may spend retrying (429s, 5xx, timeouts) after its first attempt, waits included; a retry that would not fit ends the call with the provider's last error",
		Layers: option.Model},
		option.Duration(&f.ModelRetryBudget, llm.DefaultRetryBudget, time.Second, time.Hour))
}

// clientOptions are the options of every model client, the judge's too.
func (f *PlanFlags) clientOptions() []llm.Option {
	return []llm.Option{llm.WithConcurrency(f.ModelConcurrency), llm.WithTimeout(f.ModelTimeout), llm.WithRetryBudget(f.ModelRetryBudget)}
}

// PlanOptions are what the model layers take from the run's configuration.
type PlanOptions struct {
	PlanFlags
	// Behavior is Layer 1; Resilience the model half of Layer 2, which runs
	// the golden cases' variants on the same models with the same judge.
	Behavior, Resilience bool
	Getenv               func(string) string
	// Observer sees every HTTP attempt of the tested models (telemetry);
	// the judge's client has none, so its usage is reported apart.
	Observer llm.Observer
	// DryRun (--dry-run) checks the model specs and reads the golden file
	// and the judge's prompt, but makes no client: no key is needed.
	DryRun bool
}

// Plan is what the model layers need, checked before any network call: a
// bad golden file or a missing API key is exit 2, not a half-run.
type Plan struct {
	Behavior, Resilience bool
	Golden               string       // the golden file's path, for messages
	Suite                *tasks.Suite // the golden set
	Cases                []*tasks.Case
	Models               []string // provider:model specs, in --models order
	providers            map[string]llm.Provider
	judgeSpec            string // "" with --judge-model none
	judgeModel           string
	judgeProvider        llm.Provider // the judge's own client, outside telemetry
	judgePrompt          *judge.Prompt
	selfGraded           []string // tested models that are the judge
	judgeDefault         bool     // no --judge-model: the first model judges
	// selected are the cases Layer 1 runs when a selection was made
	// (Restrict); nil runs Cases.
	selected []*tasks.Case
}

// NewPlan reads the golden set, the providers and the judge. It returns nil
// when no model layer runs: behavior was not asked for, and resilience runs
// only its deterministic probes without --models.
func NewPlan(o PlanOptions) (*Plan, error) {
	p := &Plan{Behavior: o.Behavior, Resilience: o.Resilience, Golden: o.Golden, providers: map[string]llm.Provider{}}
	if !p.Behavior && !p.Resilience {
		return nil, nil
	}
	if strings.TrimSpace(o.Models) == "" {
		return nil, exitcode.Usagef("--layers behavior needs --models, e.g. --models openai:gpt-4.1-mini")
	}
	// Every problem is found before any is reported: a bad golden file and
	// a missing key are both named in one go.
	var errs []error
	suite, err := tasks.Load(o.Golden)
	if err != nil {
		errs = append(errs, exitcode.Config(err))
	} else {
		p.Suite, p.Cases = suite, suite.Cases
	}
	if o.Shard != "" {
		if i, n, err := parseShard(o.Shard); err != nil {
			errs = append(errs, err)
		} else if suite != nil {
			p.Cases = suite.Shard(i, n)
		}
	}
	p.judgePrompt = judge.DefaultPrompt()
	if o.JudgePrompt != "" {
		if p.judgePrompt, err = judge.LoadPrompt(o.JudgePrompt); err != nil {
			errs = append(errs, exitcode.Config(err))
		}
	}
	// The judge's client is made once the models' are: with a provider's
	// key missing, the judge's would name it a second time.
	if err := p.addModels(o); err != nil {
		errs = append(errs, err)
	} else {
		if suite != nil {
			if err := suite.CheckModels(p.Models); err != nil {
				errs = append(errs, exitcode.Config(err))
			}
		}
		if err := p.addJudge(o); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return p, nil
}

// addModels creates one client per provider of --models.
func (p *Plan) addModels(o PlanOptions) error {
	opts := o.clientOptions()
	if o.Observer != nil {
		opts = append(opts, llm.WithObserver(o.Observer))
	}
	for _, spec := range strings.Split(o.Models, ",") {
		if spec = strings.TrimSpace(spec); spec == "" {
			continue
		}
		def, _, err := providers.Parse(spec)
		if err != nil {
			return exitcode.Usagef("--models %q: %v", spec, err)
		}
		if _, ok := p.providers[def.Name]; !ok && !o.DryRun {
			if p.providers[def.Name], err = newProvider(def.Name, spec, "--models", o.Getenv, opts...); err != nil {
				return err
			}
		}
		p.Models = append(p.Models, spec)
	}
	return nil
}

// addJudge creates the judge's client.
func (p *Plan) addJudge(o PlanOptions) error {
	p.judgeSpec = strings.TrimSpace(o.JudgeModel)
	if strings.EqualFold(p.judgeSpec, JudgeNone) {
		p.judgeSpec = ""
		return nil
	}
	if p.judgeSpec == "" {
		// The default judge is the first tested model: convenient, and
		// said loudly (selfGradingWarning), since a model then grades its
		// own runs.
		p.judgeSpec, p.judgeDefault = p.Models[0], true
	}
	def, model, err := providers.Parse(p.judgeSpec)
	if err != nil {
		return exitcode.Usagef("--judge-model %q: %v (or none for no judge)", p.judgeSpec, err)
	}
	p.judgeModel = model
	if o.DryRun {
		return nil
	}
	// The judge gets a client of its own with no telemetry observer, so
	// its tokens and cost are reported apart from the tested models' even
	// when it is one of them.
	if p.judgeProvider, err = newProvider(def.Name, p.judgeSpec, "--judge-model", o.Getenv, o.clientOptions()...); err != nil {
		return err
	}
	for _, m := range p.Models {
		if strings.EqualFold(m, p.judgeSpec) {
			p.selfGraded = append(p.selfGraded, m)
		}
	}
	return nil
}

// newProvider is llm.New with its error as the exit code wants it: a
// missing key is a configuration error, a bad spec a usage error.
func newProvider(name, spec, flagName string, getenv func(string) string, opts ...llm.Option) (llm.Provider, error) {
	p, err := providers.New(name, getenv, opts...)
	if err != nil {
		var ee *llm.EnvError
		if errors.As(err, &ee) {
			return nil, exitcode.Configf("%s %s: %v", flagName, spec, err)
		}
		return nil, exitcode.Usagef("%s %q: %v", flagName, spec, err)
	}
	return p, nil
}

// selfGradingWarning says that a model grades its own runs, or "".
func (p *Plan) selfGradingWarning() string {
	if len(p.selfGraded) == 0 || !p.Suite.NeedsJudge() && !p.Suite.HasSemantic() {
		return ""
	}
	how := "--judge-model is " + p.judgeSpec
	if p.judgeDefault {
		how = "no --judge-model was given, so the first of --models judges"
	}
	return fmt.Sprintf("the judge %s is also a tested model (%s): it grades its own runs, which flatters it; set --judge-model to another model, or --judge-model none", p.judgeSpec, how)
}

// parseShard parses --shard i/n (1-based).
func parseShard(s string) (int, int, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return 0, 0, exitcode.Usagef("--shard %q: want i/n with 1 ≤ i ≤ n, e.g. 2/4", s)
	}
	return i, n, nil
}

// Probe checks every model's endpoint before any case runs: one request
// of its models list per model (the judge's too), in parallel, no retries
// (llm.Prober). A wrong base URL, key or model name is then one line per
// model naming the provider, the base URL, the model and the error (an
// unknown model with the server's list as a did-you-mean) in a second or
// two, not an error in every run after the retries. An endpoint that did
// not answer at all is exit 3 (could not evaluate); one that refused the
// key or the model is exit 2.
func (p *Plan) Probe(ctx context.Context) error {
	type target struct {
		spec  string
		prov  llm.Provider
		model string
	}
	var targets []target
	seen := map[string]bool{}
	add := func(spec string, prov llm.Provider) {
		_, model, _ := llm.SplitSpec(spec)
		if key := strings.ToLower(spec); prov != nil && !seen[key] {
			seen[key] = true
			targets = append(targets, target{spec, prov, model})
		}
	}
	for _, spec := range p.Models {
		def, _, _ := providers.Parse(spec)
		if def != nil {
			add(spec, p.providers[def.Name])
		}
	}
	if p.judgeProvider != nil {
		add(p.judgeSpec, p.judgeProvider)
	}
	errs := make([]error, len(targets))
	var wg sync.WaitGroup
	for i, t := range targets {
		pr, ok := t.prov.(llm.Prober)
		if !ok {
			continue
		}
		wg.Go(func() { errs[i] = pr.Probe(ctx, t.model) })
	}
	wg.Wait()
	var lines []string
	unreachable := false
	for _, err := range errs {
		if err == nil {
			continue
		}
		lines = append(lines, err.Error())
		var pe *llm.ProbeError
		if errors.As(err, &pe) && pe.Unreachable() {
			unreachable = true
		}
	}
	switch {
	case len(lines) == 0:
		return nil
	case ctx.Err() != nil:
		return exitcode.New(exitcode.Failed, "interrupted while probing the model endpoints")
	case unreachable:
		return exitcode.New(exitcode.NoEval, strings.Join(lines, "\n"))
	}
	return exitcode.Configf("%s", strings.Join(lines, "\n"))
}

// JudgeSpec is the judge's provider:model, "" with --judge-model none.
func (p *Plan) JudgeSpec() string { return p.judgeSpec }

// JudgeTested says, before any model is called, that the judge is one of
// the tested models, and whether it is so by default (no --judge-model).
func (p *Plan) JudgeTested() (tested, byDefault bool) {
	for _, m := range p.Models {
		if p.judgeSpec != "" && strings.EqualFold(m, p.judgeSpec) {
			return true, p.judgeDefault
		}
	}
	return false, false
}

// JudgePrompt is the judge's prompt (the built-in one or --judge-prompt's).
func (p *Plan) JudgePrompt() *judge.Prompt { return p.judgePrompt }
