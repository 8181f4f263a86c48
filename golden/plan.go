package golden

import (
	"context"
	"errors"
	"fmt"
	"slices"
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
	JudgeModel       string // --judge-model: provider:model, none, or "" for the tested models judging each other
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
	s.Add(option.Def{Name: "judge-model", Help: "`provider:model` that grades rubrics and semantic arguments, or none (default: each of --models is graded by the next one, the last by the first; a single model grades itself, with a warning)",
		Doc: "grades rubrics and semantic arguments for every model; `none` for no judge. Without it each tested model is graded by the next one in `--models` (the last by the first), so none grades its own runs; a single tested model grades itself, with a warning", Default: "next of --models", Layers: option.Model,
		Input: &option.Input{Doc: "provider:model that grades rubrics and semantic arguments, or none; without it each of models is graded by the next one (the last by the first), and a single model grades its own runs (a warning says so)."}},
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
	// judgeOf is each tested model's judge (lower-cased model spec →
	// judge spec); empty with --judge-model none.
	judgeOf map[string]string
	// judges are the judges' own clients, one per judge spec (lower-cased),
	// outside telemetry.
	judges       map[string]*judgeClient
	judgePrompt  *judge.Prompt
	selfGraded   []string // tested models that are their own judge
	judgeDefault bool     // no --judge-model: the tested models judge each other
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

// judgeClient is one judge: its spec, model name and own client.
type judgeClient struct {
	spec, model string
	provider    llm.Provider // nil in a dry run
}

// addJudge chooses each tested model's judge and creates the judges'
// clients. An explicit --judge-model grades every model. Without one, a
// model never grades its own runs when another is tested: model i is
// judged by model i+1 of --models (the last by the first), a fixed
// rotation so that a rerun uses the same judges. A single tested model
// then judges itself, said loudly (selfGradingWarning).
func (p *Plan) addJudge(o PlanOptions) error {
	p.judgeOf, p.judges = map[string]string{}, map[string]*judgeClient{}
	spec := strings.TrimSpace(o.JudgeModel)
	if strings.EqualFold(spec, JudgeNone) {
		return nil
	}
	p.judgeDefault = spec == ""
	for i, m := range p.Models {
		j := spec
		if p.judgeDefault {
			j = p.Models[(i+1)%len(p.Models)]
		}
		p.judgeOf[strings.ToLower(m)] = j
		if strings.EqualFold(m, j) {
			p.selfGraded = append(p.selfGraded, m)
		}
	}
	for _, m := range p.Models {
		if err := p.addJudgeClient(o, p.judgeOf[strings.ToLower(m)]); err != nil {
			return err
		}
	}
	return nil
}

// addJudgeClient creates the client of the judge spec, once per spec.
func (p *Plan) addJudgeClient(o PlanOptions, spec string) error {
	key := strings.ToLower(spec)
	if _, ok := p.judges[key]; ok {
		return nil
	}
	def, model, err := providers.Parse(spec)
	if err != nil {
		return exitcode.Usagef("--judge-model %q: %v (or none for no judge)", spec, err)
	}
	jc := &judgeClient{spec: spec, model: model}
	p.judges[key] = jc
	if o.DryRun {
		return nil
	}
	// The judge gets a client of its own with no telemetry observer, so
	// its tokens and cost are reported apart from the tested models' even
	// when it is one of them.
	flagName := "--judge-model"
	if p.judgeDefault {
		flagName = "--models (as a judge)"
	}
	jc.provider, err = newProvider(def.Name, spec, flagName, o.Getenv, o.clientOptions()...)
	return err
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
	if p.judgeDefault {
		return fmt.Sprintf("the judge %s is also the only tested model (no --judge-model was given, and with one model in --models it judges itself): it grades its own runs, which flatters it; add a second model to --models or set --judge-model (or --judge-model none)", p.selfGraded[0])
	}
	return fmt.Sprintf("the judge %s is also a tested model (--judge-model is %s): it grades its own runs, which flatters it; set --judge-model to another model, or --judge-model none", p.selfGraded[0], p.selfGraded[0])
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
	for _, spec := range p.judgeSpecs() {
		add(spec, p.judges[strings.ToLower(spec)].provider)
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

// JudgeSpec is the judge's provider:model when one judge grades every
// tested model, "" with --judge-model none or when the tested models judge
// each other (JudgeOf then names each one's).
func (p *Plan) JudgeSpec() string {
	specs := p.judgeSpecs()
	if len(specs) == 1 {
		return specs[0]
	}
	return ""
}

// JudgeOff says that no judge is used (--judge-model none).
func (p *Plan) JudgeOff() bool { return len(p.judgeOf) == 0 }

// JudgeOf is the provider:model that grades model's runs, "" with
// --judge-model none.
func (p *Plan) JudgeOf(model string) string { return p.judgeOf[strings.ToLower(model)] }

// JudgeText names the judges: the one judge, or which judged which
// ("b graded a, a graded b", by tested model in sorted order, as the
// report's JudgeInfo.Judges says it); "" with --judge-model none.
func (p *Plan) JudgeText() string {
	if s := p.JudgeSpec(); s != "" || p.JudgeOff() {
		return s
	}
	models := slices.Sorted(slices.Values(p.Models))
	parts := make([]string, len(models))
	for i, m := range models {
		parts[i] = p.JudgeOf(m) + " graded " + m
	}
	return strings.Join(parts, ", ")
}

// judgeSpecs are the distinct judges, in --models order of what they grade.
func (p *Plan) judgeSpecs() []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range p.Models {
		j := p.JudgeOf(m)
		if k := strings.ToLower(j); j != "" && !seen[k] {
			seen[k] = true
			out = append(out, j)
		}
	}
	return out
}

// JudgeTested says, before any model is called, that a judge is one of
// the tested models grading its own runs, and whether it is so by default
// (no --judge-model, one tested model).
func (p *Plan) JudgeTested() (tested, byDefault bool) {
	return len(p.selfGraded) > 0, len(p.selfGraded) > 0 && p.judgeDefault
}

// JudgePrompt is the judge's prompt (the built-in one or --judge-prompt's).
func (p *Plan) JudgePrompt() *judge.Prompt { return p.judgePrompt }
