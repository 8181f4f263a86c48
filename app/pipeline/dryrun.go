package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/mcp-eval/mcp-eval/app/config"
	"github.com/mcp-eval/mcp-eval/engine/describe"
	"github.com/mcp-eval/mcp-eval/gate"
	"github.com/mcp-eval/mcp-eval/internal/exitcode"
	"github.com/mcp-eval/mcp-eval/internal/redact"
	"github.com/mcp-eval/mcp-eval/internal/yamlfile"
	"github.com/mcp-eval/mcp-eval/llm"
	"github.com/mcp-eval/mcp-eval/llm/providers"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/report"
	"github.com/mcp-eval/mcp-eval/resilience"
	"github.com/mcp-eval/mcp-eval/tasks"
)

// The estimate of a dry run (and of a dollar --model-budget). Tokens are
// estimated as mcp-eval's tool-list footprint is (report.EstimateTokens:
// ⌈bytes/4⌉, OpenAI's rule of thumb for English and close to what their
// tokenizers give for JSON schemas): of the tool list (name, description,
// inputSchema of each tool, sent with every request), the system prompt
// and each user message. A run is costed as the calls its case expects:
// one for an answer without a tool, two for one tool (the call, then the
// answer after its result), n+1 for a chain of n, per turn; each call
// sends the tool list and the conversation so far, each answer is taken
// as estOutputTokens and each tool result as estResultTokens. The judge's
// calls are its prompt, the rubric and the run's conversation. What the
// server returns and how long the model talks are unknown before the run,
// so the real cost differs, typically within a factor of two.
const (
	estOutputTokens = 50
	estResultTokens = 100
	estJudgeOutput  = 100
	estMessage      = 4 // per-message framing
)

// EstimateMethod says how a dry run estimates, in the plan it prints.
const EstimateMethod = "tokens ≈ ⌈bytes/4⌉ of the tool list, system prompt and each message; per call the tool list and the conversation so far; " +
	"50 tokens per answer, 100 per tool result; calls per run as the case expects (1 without a tool, 2 with one, n+1 for a chain of n, per turn)"

// ModelEstimate is what a plan costs on one model (or the judge).
type ModelEstimate struct {
	Model        string `json:"model"`
	Runs         int    `json:"runs"`
	Calls        int    `json:"calls"`
	InputTokens  int64  `json:"inputTokens"`
	OutputTokens int64  `json:"outputTokens"`
	// BatchCalls and their tokens are the part of the above --batch auto
	// sends to the provider's batch API, priced at its batch rate.
	BatchCalls        int      `json:"batchCalls,omitempty"`
	BatchInputTokens  int64    `json:"batchInputTokens,omitempty"`
	BatchOutputTokens int64    `json:"batchOutputTokens,omitempty"`
	CostUSD           *float64 `json:"costUsd"` // nil: unknown (no price)
	Price             string   `json:"price"`   // where the price came from, or why it is unknown
}

// DryRunPlan is what `mcp-eval run --dry-run` prints.
type DryRunPlan struct {
	Golden         string          `json:"golden"`
	Server         string          `json:"server"`
	Tools          int             `json:"tools"`
	ToolListTokens int64           `json:"toolListTokens"`
	Cases          int             `json:"cases"`
	Drafts         int             `json:"drafts"`
	RunsPerCase    string          `json:"runsPerCase"`
	Runs           int             `json:"runs"`
	VariantRuns    int             `json:"variantRuns"`
	Models         []ModelEstimate `json:"models"`
	Judge          *ModelEstimate  `json:"judge,omitempty"`
	// Judges are the judges one by one when the tested models judge each
	// other (Judge is then their sum).
	Judges    []ModelEstimate `json:"judges,omitempty"`
	CostUSD   *float64        `json:"estimatedCostUsd"`
	BudgetUSD float64         `json:"budgetUsd,omitempty"`
	Method    string          `json:"method"`
	// MaxRuns is --max-runs under the statistical gate: the estimate counts
	// the first look's runs; an undecided soft case runs again up to this.
	MaxRuns int `json:"maxRunsPerCase,omitempty"`
	// JudgeNote warns, before anything is spent, that the judge is a
	// tested model; "" when it is not, or is not called.
	JudgeNote string `json:"judgeNote,omitempty"`
}

// DryRun is `mcp-eval run --dry-run`: the run's plan and its server, no
// model. It validates the golden file against the live server (every tool
// it names exists, expected arguments validate against their tool's
// inputSchema, rubric cases have a judge), every error with its FILE:LINE
// (exit 2), then prints the plan (cases × runs × models, the judge's
// calls) and its estimated cost per model, and refuses, exit 2, a plan
// estimated above a dollar --model-budget. No key is needed and no model
// endpoint is contacted.
func DryRun(ctx context.Context, cfg *config.Config, env Env) (err error) {
	red, err := cfg.Redactor(env.Getenv)
	if err != nil {
		return err
	}
	defer func() { err = red.Error(err) }()
	errw := red.Writer(env.Stderr)
	defer errw.Flush()
	env.Stderr = errw
	outw := red.Writer(env.Stdout)
	defer outw.Flush()
	plan, err := DryRunPlanOf(ctx, cfg, env, red)
	if err != nil {
		return err
	}
	if cfg.Format == "json" {
		b, _ := json.MarshalIndent(plan, "", "  ")
		fmt.Fprintf(outw, "%s\n", b)
	} else {
		WriteDryRun(outw, plan)
	}
	return plan.BudgetError()
}

// DryRunPlanOf makes the plan of a dry run: connect, describe, validate,
// estimate.
func DryRunPlanOf(ctx context.Context, cfg *config.Config, env Env, red *redact.Redactor) (*DryRunPlan, error) {
	p, err := Plan(ctx, cfg, env, red)
	if err != nil {
		return nil, err
	}
	defer p.endExport(ctx)
	suite := (*tasks.Suite)(nil)
	cases := []*tasks.Case(nil)
	if p.models != nil {
		suite, cases = p.models.Suite, p.models.Cases
	} else {
		// No model layer (no --models): the golden file is still checked
		// against the server, and the plan counts its runs.
		if suite, err = tasks.Load(cfg.Golden); err != nil {
			return nil, exitcode.Config(err)
		}
		cases = suite.Cases
	}
	s, err := p.connect(ctx)
	if err != nil {
		return nil, err
	}
	defer s.close()
	desc := describe.Describe(ctx, s.client)
	if desc.ToolsErr != nil {
		return nil, exitcode.New(exitcode.NoEval, "tools/list: "+desc.ToolsErr.Error())
	}
	if err := p.validateForRun(suite, cases, desc.Tools); err != nil {
		return nil, err
	}
	return p.estimate(s.target, desc, suite, cases)
}

// validateForRun is every check of the golden file a run makes, and those
// a dry run adds, with all errors together: the tools against the server
// (tasks.Suite.Validate), the judge for rubric cases, and the resilience
// variants' payloads and tools.
func (p *RunPlan) validateForRun(suite *tasks.Suite, cases []*tasks.Case, tools []mcp.Tool) error {
	var errs yamlfile.Errors
	add := func(err error) {
		var ye yamlfile.Errors
		var e *yamlfile.Error
		switch {
		case err == nil:
		case errors.As(err, &ye):
			errs = append(errs, ye...)
		case errors.As(err, &e):
			errs = append(errs, e)
		default:
			errs = append(errs, &yamlfile.Error{File: suite.File, Line: 1, Msg: err.Error()})
		}
	}
	add(suite.Validate(tools))
	judgeOff := p.models == nil || p.models.JudgeOff()
	for _, c := range cases {
		if c.Rubric != "" && judgeOff {
			why := "--judge-model none turns the judge off"
			if p.models == nil {
				why = "no --models names a model to judge with"
			}
			errs = append(errs, &yamlfile.Error{File: suite.File, Line: c.Line, Msg: fmt.Sprintf("case %q: rubric: %s, so the case would be skipped (give --judge-model provider:model)", c.ID, why)})
		}
	}
	if p.models != nil && p.models.Resilience {
		_, err := resilience.NewPlan(cases, tools, p.payloads)
		add(err)
	}
	if len(errs) == 0 {
		return nil
	}
	slices.SortStableFunc(errs, func(a, b *yamlfile.Error) int { return a.Line - b.Line })
	return exitcode.Config(errs)
}

// estimate prices the plan on the described server's tools.
func (p *RunPlan) estimate(target mcp.Target, desc *describe.Server, suite *tasks.Suite, cases []*tasks.Case) (*DryRunPlan, error) {
	cfg := p.cfg
	toolTokens := int64(0)
	for _, t := range desc.Tools {
		toolTokens += report.EstimateTokens(report.ToolBytes(t.Name, t.Description, t.InputSchema))
	}
	plan := &DryRunPlan{Golden: suite.File, Server: target.String(), Tools: len(desc.Tools), ToolListTokens: toolTokens,
		Cases: len(cases), Drafts: tasks.Drafts(cases), BudgetUSD: cfg.ModelBudgetUSD, Method: EstimateMethod, RunsPerCase: runsText(cfg, cases)}
	if cfg.Gate.Method == gate.MethodStatistical {
		plan.MaxRuns = cfg.MaxRuns
	}
	runsOf := func(c *tasks.Case) int {
		if cfg.RunsGiven() {
			return cfg.Runs
		}
		return c.RunsOr(cfg.Runs)
	}
	var models []string
	if p.models != nil {
		models = p.models.Models
	}
	est := p.newEstimator(models, toolTokens)
	for _, c := range cases {
		n := runsOf(c)
		if len(models) == 0 {
			plan.Runs += n
			continue
		}
		for _, m := range models {
			if c.RunsOn(m) && (p.models == nil || p.models.Behavior) {
				plan.Runs += n
				est.add(c, m, n, false)
			}
		}
	}
	if p.models != nil && p.models.Resilience {
		if rp, err := resilience.NewPlan(cases, desc.Tools, p.payloads); err == nil {
			est.batch = false // --batch auto batches Layer 1's calls only
			for _, v := range rp.Variants {
				n := runsOf(v.Case)
				for _, m := range models {
					plan.VariantRuns += n
					est.add(v.Case, m, n, v.Fault != nil)
				}
			}
		}
	}
	p.price(plan, models, est)
	return plan, nil
}

// estimator adds up the estimated calls and tokens of a plan's runs, per
// model and for the judge.
type estimator struct {
	toolTokens int64
	maxOut     int
	byModel    map[string]*ModelEstimate
	// judges are the judges' estimates by provider:model (none without a
	// judge), and judgeOf names each tested model's judge.
	judges                   map[string]*ModelEstimate
	judgeOf                  func(model string) string
	judgeGrade, judgeSimilar int64 // the judge prompt's two parts, in tokens
	// batch: --batch auto; batches says which models' providers have a
	// batch API (llm.Def.Batch).
	batch bool
}

// batches reports whether --batch auto sends model's calls to a batch API.
func (e *estimator) batches(model string) bool {
	if !e.batch {
		return false
	}
	def, _, err := providers.Parse(model)
	return err == nil && def.Batch
}

func (p *RunPlan) newEstimator(models []string, toolTokens int64) *estimator {
	e := &estimator{toolTokens: toolTokens, maxOut: p.cfg.ModelMaxTokens, byModel: map[string]*ModelEstimate{}, judges: map[string]*ModelEstimate{},
		batch: p.cfg.Batch == "auto"}
	if p.models != nil && !p.models.JudgeOff() {
		e.judgeOf = p.models.JudgeOf
		for _, m := range models {
			if j := p.models.JudgeOf(m); e.judges[j] == nil {
				e.judges[j] = &ModelEstimate{Model: j}
			}
		}
		jp := p.models.JudgePrompt()
		e.judgeGrade, e.judgeSimilar = tokensOf(jp.Grade), tokensOf(jp.Similar)
	}
	for _, m := range models {
		e.byModel[m] = &ModelEstimate{Model: m}
	}
	return e
}

// add counts n runs of c on model (a resilience variant when variant:
// its faults are judged), and what the judge reads of them.
func (e *estimator) add(c *tasks.Case, model string, n int, variant bool) {
	calls, in, out, conv := runEstimate(c, e.toolTokens, e.maxOut)
	m := e.byModel[model]
	m.Runs += n
	m.Calls += n * calls
	m.InputTokens += int64(n) * in
	m.OutputTokens += int64(n) * out
	if len(c.Turns) < 2 && e.batches(model) {
		// The first turn of a one-message case: its request is known
		// before the run (golden/batch.go).
		firstIn, firstOut := firstTurn(c, e.toolTokens, e.maxOut)
		m.BatchCalls += n
		m.BatchInputTokens += int64(n) * firstIn
		m.BatchOutputTokens += int64(n) * firstOut
	}
	if e.judgeOf == nil || e.judges[e.judgeOf(model)] == nil {
		return
	}
	j := e.judges[e.judgeOf(model)]
	if e.batches(j.Model) {
		defer func(calls int, in, out int64) {
			j.BatchCalls += j.Calls - calls
			j.BatchInputTokens += j.InputTokens - in
			j.BatchOutputTokens += j.OutputTokens - out
		}(j.Calls, j.InputTokens, j.OutputTokens)
	}
	if c.Rubric != "" || variant && len(c.Faults) > 0 {
		j.Calls += n
		j.InputTokens += int64(n) * (e.judgeGrade + tokensOf(c.Rubric) + conv)
		j.OutputTokens += int64(n) * estJudgeOutput
	}
	if k := semanticArgs(c); k > 0 {
		j.Calls += n * k
		j.InputTokens += int64(n*k) * (e.judgeSimilar + 2*estMessage)
		j.OutputTokens += int64(n*k) * estJudgeOutput / 5
	}
}

// judgeEstimate prices each judge's estimate (price) and returns the one
// judge's, or, when the tested models judge each other, their sum named
// "b graded a, a graded b" and priced when each of them is, with each
// judge's.
func (p *RunPlan) judgeEstimate(est *estimator, price func(*ModelEstimate)) (*ModelEstimate, []ModelEstimate) {
	specs := make([]string, 0, len(est.judges))
	for spec := range est.judges {
		specs = append(specs, spec)
	}
	slices.Sort(specs)
	for _, spec := range specs {
		price(est.judges[spec])
	}
	if len(specs) == 1 {
		return est.judges[specs[0]], nil
	}
	var each []ModelEstimate
	sum := &ModelEstimate{Model: p.models.JudgeText(), CostUSD: new(float64)}
	var prices []string
	for _, spec := range specs {
		j := est.judges[spec]
		each = append(each, *j)
		sum.Calls += j.Calls
		sum.InputTokens += j.InputTokens
		sum.OutputTokens += j.OutputTokens
		sum.BatchCalls += j.BatchCalls
		sum.BatchInputTokens += j.BatchInputTokens
		sum.BatchOutputTokens += j.BatchOutputTokens
		if j.CostUSD != nil && sum.CostUSD != nil {
			*sum.CostUSD += *j.CostUSD
		} else if j.Calls > 0 {
			sum.CostUSD = nil
		}
		if !slices.Contains(prices, j.Price) {
			prices = append(prices, j.Price)
		}
	}
	sum.Price = strings.Join(prices, "; ")
	return sum, each
}

// price costs each model's estimate and the judge's into plan, and the
// total when every one of them has a price.
func (p *RunPlan) price(plan *DryRunPlan, models []string, est *estimator) {
	total, known := 0.0, true
	price := func(e *ModelEstimate) {
		pr, ok := p.prices.Lookup(e.Model)
		u := llm.Usage{InputTokens: e.InputTokens, OutputTokens: e.OutputTokens}
		if e.BatchCalls > 0 {
			u.Batch = &llm.Usage{InputTokens: e.BatchInputTokens, OutputTokens: e.BatchOutputTokens}
		}
		usd, costed := p.prices.Cost(e.Model, u)
		switch {
		case costed:
			e.CostUSD, e.Price = &usd, pr.Source
			total += usd
		case !ok:
			e.Price, known = "no price for "+e.Model+" (a --prices file can give one)", false
		default:
			e.Price, known = pr.Source, false
		}
	}
	for _, m := range models {
		e := est.byModel[m]
		price(e)
		plan.Models = append(plan.Models, *e)
	}
	if len(est.judges) > 0 {
		plan.Judge, plan.Judges = p.judgeEstimate(est, price)
		if tested, byDefault := p.models.JudgeTested(); tested && plan.Judge.Calls > 0 {
			how, fix := "--judge-model names it", "give --judge-model another model, or none"
			if byDefault {
				how, fix = "no --judge-model was given, and --models has one model", "add a second model to --models or set --judge-model"
			}
			plan.JudgeNote = fmt.Sprintf("the judge %s is also a tested model (%s): it would grade its own runs; %s", plan.Judge.Model, how, fix)
		}
	}
	if known && len(models) > 0 {
		plan.CostUSD = &total
	}
}

// runEstimate is one run of c: its model calls, their input and output
// tokens, and the conversation's size at the end (what a judge reads).
func runEstimate(c *tasks.Case, toolTokens int64, maxOut int) (calls int, in, out, conv int64) {
	answer := int64(estOutputTokens)
	if maxOut > 0 {
		answer = min(answer, int64(maxOut))
	}
	conv = tokensOf(c.System)
	turns := c.Turns
	if len(turns) == 0 {
		turns = []*tasks.Case{c}
	}
	for _, t := range turns {
		conv += tokensOf(t.Prompt) + estMessage
		n := callsOf(t)
		for k := range n {
			calls++
			in += toolTokens + conv
			out += answer
			conv += answer + estMessage
			if k < n-1 {
				conv += estResultTokens + estMessage
			}
		}
	}
	return calls, in, out, conv
}

// firstTurn is the input and output tokens of the first model call of a
// run of c.
func firstTurn(c *tasks.Case, toolTokens int64, maxOut int) (in, out int64) {
	answer := int64(estOutputTokens)
	if maxOut > 0 {
		answer = min(answer, int64(maxOut))
	}
	return toolTokens + tokensOf(c.System) + tokensOf(c.Prompt) + estMessage, answer
}

// callsOf is the model calls one user message of c takes when the model
// does what it should.
func callsOf(c *tasks.Case) int {
	switch {
	case c.Chain():
		return len(c.Sequence) + 1
	case c.Negative || len(c.AcceptTools) == 0:
		return 1
	}
	return 2
}

// semanticArgs counts the arguments of c the judge compares.
func semanticArgs(c *tasks.Case) int {
	n := 0
	count := func(args []*tasks.ArgCheck) {
		for _, a := range args {
			if a.EffectiveMode() == tasks.MatchSemantic {
				n++
			}
		}
	}
	count(c.Args)
	for _, s := range c.Sequence {
		count(s.Args)
	}
	return n
}

func tokensOf(s string) int64 {
	if s == "" {
		return 0
	}
	return report.EstimateTokens(len(s))
}

// runsText says how many runs each case gets.
func runsText(cfg *config.Config, cases []*tasks.Case) string {
	if cfg.RunsGiven() {
		return fmt.Sprint(cfg.Runs)
	}
	seen := map[int]bool{}
	for _, c := range cases {
		seen[c.RunsOr(cfg.Runs)] = true
	}
	if len(seen) == 1 {
		for n := range seen {
			return fmt.Sprint(n)
		}
	}
	return "as the golden file sets"
}

// BudgetError refuses a plan estimated above the dollar budget.
func (p *DryRunPlan) BudgetError() error {
	if p.BudgetUSD <= 0 || p.CostUSD == nil || *p.CostUSD <= p.BudgetUSD {
		return nil
	}
	return exitcode.Configf("the plan's estimated cost, %s, exceeds --model-budget %s: fewer --runs, cases or models, or a larger budget",
		usdText(*p.CostUSD), usdText(p.BudgetUSD))
}

// WriteDryRun prints the plan for a terminal.
func WriteDryRun(w io.Writer, p *DryRunPlan) {
	drafts := ""
	if p.Drafts > 0 {
		drafts = fmt.Sprintf(", %d of them drafts (draft: true)", p.Drafts)
	}
	fmt.Fprintf(w, "dry run: %s is valid against %s (%d tools): %d cases%s; no model was called\n", p.Golden, p.Server, p.Tools, p.Cases, drafts)
	if p.MaxRuns > 0 {
		defer fmt.Fprintf(w, "statistical gate: the estimate counts each case's first runs; a soft case they leave undecided runs again, up to %d runs (--max-runs): a healthy golden set costs about 1.2× the estimate, and --model-budget's wall time bounds the rest\n", p.MaxRuns)
	}
	nm := len(p.Models)
	switch {
	case nm == 0:
		fmt.Fprintf(w, "plan: %d cases × %s runs = %d runs; no --models, so nothing to price (e.g. --models ollama:qwen2.5:7b)\n", p.Cases, p.RunsPerCase, p.Runs)
		return
	default:
		fmt.Fprintf(w, "plan: %d cases × %s runs × %d %s = %d runs", p.Cases, p.RunsPerCase, nm, plural(nm, "model"), p.Runs)
		if p.VariantRuns > 0 {
			fmt.Fprintf(w, ", and %d resilience variant runs", p.VariantRuns)
		}
		calls := 0
		for _, m := range p.Models {
			calls += m.Calls
		}
		fmt.Fprintf(w, "; about %d model calls", calls)
		switch {
		case p.Judge != nil && p.Judge.Calls > 0:
			fmt.Fprintf(w, "; judge %s, about %d calls", p.Judge.Model, p.Judge.Calls)
		case p.Judge != nil:
			fmt.Fprintf(w, "; judge %s, not called (no rubric or semantic argument)", p.Judge.Model)
		default:
			fmt.Fprint(w, "; no judge")
		}
		fmt.Fprintln(w)
		if p.JudgeNote != "" {
			fmt.Fprintln(w, "warning: "+p.JudgeNote)
		}
	}
	fmt.Fprintf(w, "estimated cost (the tool list is ≈ %d tokens of every call):\n", p.ToolListTokens)
	rows := append([]ModelEstimate(nil), p.Models...)
	if p.Judge != nil && p.Judge.Calls > 0 {
		judges := p.Judges
		if len(judges) == 0 {
			judges = []ModelEstimate{*p.Judge}
		}
		for _, j := range judges {
			if j.Calls > 0 {
				j.Model = "judge " + j.Model
				rows = append(rows, j)
			}
		}
	}
	width := len("model")
	for _, r := range rows {
		width = max(width, len(r.Model))
	}
	fmt.Fprintf(w, "  %-*s %6s %7s %13s %13s  %s\n", width, "model", "runs", "calls", "input tokens", "output tokens", "cost")
	for _, r := range rows {
		runs := fmt.Sprint(r.Runs)
		if strings.HasPrefix(r.Model, "judge ") {
			runs = ""
		}
		fmt.Fprintf(w, "  %-*s %6s %7d %13d %13d  %s\n", width, r.Model, runs, r.Calls, r.InputTokens, r.OutputTokens, costText(r))
	}
	total := "unknown (a model has no price)"
	if p.CostUSD != nil {
		total = "≈ " + usdText(*p.CostUSD)
	}
	fmt.Fprintf(w, "  total %s\n", total)
	fmt.Fprintf(w, "estimate: %s\n", p.Method)
	if p.BudgetUSD > 0 && p.CostUSD != nil {
		if *p.CostUSD > p.BudgetUSD {
			fmt.Fprintf(w, "--model-budget %s: the estimate exceeds it, so a run with it would be refused\n", usdText(p.BudgetUSD))
		} else {
			fmt.Fprintf(w, "--model-budget %s: the estimate is within it\n", usdText(p.BudgetUSD))
		}
	}
}

func costText(e ModelEstimate) string {
	if e.CostUSD == nil {
		return "unknown: " + e.Price
	}
	if *e.CostUSD == 0 {
		return "$0 (" + e.Price + ")"
	}
	batch := ""
	if e.BatchCalls > 0 {
		batch = fmt.Sprintf(", %d calls at the batch price (--batch auto)", e.BatchCalls)
	}
	return "≈ " + usdText(*e.CostUSD) + " (" + e.Price + batch + ")"
}

// usdText writes dollars with the precision small amounts need.
func usdText(v float64) string {
	switch {
	case v == 0:
		return "$0"
	case v < 0.01:
		return fmt.Sprintf("$%.4f", v)
	case v < 100:
		return fmt.Sprintf("$%.2f", v)
	}
	return fmt.Sprintf("$%.0f", v)
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// budgetCheck refuses, before any model call of a real run, a plan whose
// estimate exceeds a dollar --model-budget.
func (p *RunPlan) budgetCheck(target mcp.Target, desc *describe.Server) error {
	if p.cfg.ModelBudgetUSD <= 0 || p.models == nil {
		return nil
	}
	plan, err := p.estimate(target, desc, p.models.Suite, p.models.Cases)
	if err != nil {
		return err
	}
	return plan.BudgetError()
}

// Describe connects to the configured server and describes it, running
// no layer: mcp-eval init's view of the server. close stops the server.
func Describe(ctx context.Context, cfg *config.Config, env Env, red *redact.Redactor) (desc *describe.Server, target string, close func(), err error) {
	p := &RunPlan{cfg: cfg, env: env, red: red}
	s, err := p.connect(ctx)
	if err != nil {
		return nil, "", nil, err
	}
	return describe.Describe(ctx, s.client), s.target.String(), s.close, nil
}
