package pipeline

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcp-eval/mcp-eval/conformance"
	"github.com/mcp-eval/mcp-eval/engine/describe"
	"github.com/mcp-eval/mcp-eval/engine/runs"
	"github.com/mcp-eval/mcp-eval/gate"
	"github.com/mcp-eval/mcp-eval/golden"
	"github.com/mcp-eval/mcp-eval/internal/exitcode"
	"github.com/mcp-eval/mcp-eval/internal/progress"
	"github.com/mcp-eval/mcp-eval/judge"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/report"
	"github.com/mcp-eval/mcp-eval/resilience"
	"github.com/mcp-eval/mcp-eval/telemetry"
)

// layerResults are what the layers found on one server description, before
// they are merged into the report.
type layerResults struct {
	conformance *conformance.Result // Layer 0; nil when it did not run
	probes      []report.Check      // Layer 2's deterministic half
	behavior    *golden.Summary     // Layer 1
	resilience  *resilience.Summary // Layer 2's model half
	models      *golden.ModelRun    // the model runs of both, for telemetry
}

// runLayers runs the selected layers against the described server and
// merges their results into one report.
func (p *RunPlan) runLayers(ctx context.Context, s *session, desc *describe.Server) (*report.Report, error) {
	var lr layerResults
	var err error
	p.surfaceDiff = p.diff(desc)
	if desc.ToolsErr == nil {
		warnUnknownSafeTools(p.cfg, desc.Tools, p.env.Stderr)
	}
	hb := progress.Of(p.env.Stderr)
	if p.has(report.LayerConformance) {
		replicas, rerr := p.replicas(s)
		if rerr != nil {
			return nil, rerr
		}
		opts := conformance.Options{
			Runs: p.cfg.Runs, Concurrency: p.cfg.Concurrency, SafeTools: p.cfg.SafeTools.Vals,
			Version: p.cfg.ProtocolVersion, Only: p.cfg.Checks.Vals, Auth: p.authChecks(s), Wire: p.wire, Listed: desc,
			Replicas: replicas, Traces: s.traces,
		}
		if hb != nil {
			opts.Progress = hb.Steps("conformance", "check runs")
		}
		lr.conformance, err = conformance.Run(ctx, s.client, opts)
		if err != nil {
			if ctx.Err() != nil {
				return nil, exitcode.New(exitcode.Failed, context.Cause(ctx).Error()+" before any check finished; no report written")
			}
			return nil, exitcode.New(exitcode.NoEval, "could not evaluate: "+err.Error())
		}
	}
	if desc.ToolsErr != nil && p.models != nil {
		return nil, exitcode.New(exitcode.Failed, "tools/list: "+desc.ToolsErr.Error())
	}
	if p.has(report.LayerResilience) {
		hb.Phase("resilience probes", 0, "")
		lr.probes = resilience.Probe(ctx, s.client, resilience.ProbeOptions{Runs: p.cfg.Runs, SafeTools: p.cfg.SafeTools.Vals, Timeout: p.cfg.Timeout})
		lr.probes = append(lr.probes, resilience.Descriptions(desc.Tools)...)
	}
	if p.models != nil {
		// The model runs print their own progress; the heartbeat fills
		// what they leave silent (a batch being waited for).
		hb.Phase("model layers", 0, "")
		if err := p.modelLayers(ctx, s, desc, &lr); err != nil {
			return nil, err
		}
	}
	r := p.merge(s.target, desc, &lr)
	if ctx.Err() != nil {
		// What finished is the report; what did not is skipped or left out.
		what := context.Cause(ctx).Error()
		if in, ok := exitcode.InterruptedBy(ctx, context.Cause(ctx)); ok {
			what = in.Name
		}
		r.Interrupted = fmt.Sprintf("%s after %.1f s: the checks and model runs that had not finished are skipped or left out", what, time.Since(p.started).Seconds())
	}
	return r, nil
}

// modelLayers runs Layer 1 and the model half of Layer 2 on the same model
// runs and judge.
func (p *RunPlan) modelLayers(ctx context.Context, s *session, desc *describe.Server, lr *layerResults) error {
	cfg := p.cfg
	var seq *golden.Sequential
	if cfg.Gate.Method == gate.MethodStatistical {
		seq = &golden.Sequential{Alpha: cfg.Gate.Alpha, MaxRuns: cfg.MaxRuns, Baseline: cfg.Baseline != ""}
	}
	mr, err := p.models.Bind(s.client, desc.Tools, golden.RunOptions{
		RunFlags: cfg.RunFlags, Runs: cfg.Runs, RunsGiven: cfg.RunsGiven(), ModelConcurrency: cfg.ModelConcurrency,
		Out: cfg.Out, Redactor: p.red, Stderr: p.env.Stderr, TTY: IsTerminal(p.env.Stderr), Sequential: seq, Cost: p.prices.Cost,
	})
	if err != nil {
		return err
	}
	if err := p.budgetCheck(s.target, desc); err != nil {
		return err
	}
	lr.models = mr
	if p.models.Behavior {
		p.selectCases(desc)
		lr.behavior = mr.Behavior(ctx)
	}
	if p.models.Resilience {
		lr.resilience, err = p.resilienceModels(ctx, mr)
	}
	return err
}

// resilienceModels runs the fault and injection variants of the golden
// cases that declare them (the model half of Layer 2) and scores
// fabrication and attack success.
func (p *RunPlan) resilienceModels(ctx context.Context, mr *golden.ModelRun) (*resilience.Summary, error) {
	plan, err := resilience.NewPlan(p.models.Cases, mr.Tools(), p.payloads)
	if err != nil {
		return nil, exitcode.Config(err)
	}
	if plan.Empty() {
		fmt.Fprintf(p.env.Stderr, "mcp-eval: no case in %s declares faults: or inject:, so the model half of the resilience layer had nothing to run\n", p.cfg.Golden)
		return nil, nil
	}
	results := mr.Run(ctx, plan.Jobs(mr.Tools(), p.models.Models, mr.RunsOf))
	if ctx.Err() != nil {
		// Interrupted: only the runs that finished are scored.
		results = runs.Finished(results)
	}
	ropts := resilience.ScoreOptions{JudgeFor: func(model string) judge.Grader {
		if j := mr.JudgeFor(model); j != nil {
			// A nil *judge.Judge must not become a non-nil interface.
			return j
		}
		return nil
	}}
	sum := plan.Score(ctx, results, ropts)
	mr.FlushCache()
	return sum, nil
}

// merge builds the one report of the run from the description and what
// each layer found.
func (p *RunPlan) merge(target mcp.Target, desc *describe.Server, lr *layerResults) *report.Report {
	p.rejudgeWire(lr.conformance)
	rejudgePassthrough(lr.conformance)
	r := buildReport(p.cfg.Strict, p.env.Version, target, desc, lr.conformance, p.layers, p.started)
	r.Commit = p.env.Getenv("GITHUB_SHA")
	r.RunID, r.RunURL = runIdentity(p.env.Getenv)
	r.SurfaceDiff = p.surfaceDiff
	if p.has(report.LayerResilience) {
		var baseSurface *report.Surface
		if p.base != nil {
			baseSurface = &p.base.Surface
		}
		r.Checks = append(r.Checks, resilience.SurfaceCheck(r.Surface, baseSurface))
		r.Checks = append(r.Checks, lr.probes...)
	}
	if lr.behavior != nil {
		lr.behavior.Apply(r, lr.models.JudgeInfo(p.prices.Cost))
		p.mergeSelection(r)
	}
	if lr.resilience != nil {
		lr.resilience.Apply(r)
		if r.Judge == nil {
			// A resilience-only run was graded by the judge too.
			r.Judge = lr.models.JudgeInfo(p.prices.Cost)
		}
	}
	p.telemetry(r, lr.models, desc.Tools)
	r.Sort()
	return r
}

// rejudgeWire judges the checks of the message recorder
// (jsonrpc/wire-schema, jsonrpc/id-echo-every-method) again now that every
// layer has run: Layer 0 judged the messages seen until it ended, the
// other layers' messages (tool calls of the model runs, the resilience
// probes) came after.
func (p *RunPlan) rejudgeWire(res *conformance.Result) {
	if p.wire == nil || res == nil {
		return
	}
	for i := range res.Checks {
		if slices.Contains(conformance.RecorderCheckIDs(), res.Checks[i].ID) && res.Checks[i].Status != report.StatusSkip {
			res.Checks[i] = conformance.RecorderCheck(res.Checks[i].ID, p.wire)
		}
	}
}

// rejudgePassthrough judges auth/no-token-passthrough again now that every
// layer has run: the model layers' tool calls, made with the run's token,
// reach the upstream of a tool that calls it only when called, after Layer
// 0 ended. The --passthrough-listener is the session's, up until the
// session closes, after the report is written.
func rejudgePassthrough(res *conformance.Result) {
	if res == nil {
		return
	}
	for i := range res.Checks {
		if c, ok := res.PassthroughCheck(res.Checks[i]); ok {
			res.Checks[i] = c
		}
	}
}

// telemetry adds Layer 3 to the report from the model runs it observed.
func (p *RunPlan) telemetry(r *report.Report, mr *golden.ModelRun, tools []mcp.Tool) {
	var runs []telemetry.Run
	if mr != nil {
		for _, x := range mr.Results() {
			// A resilience variant's job id is "<case>#<variant>~<key>";
			// its report case is the part before "~", so its tokens and
			// cost land on it.
			id, _, _ := strings.Cut(x.Job.CaseID, "~")
			runs = append(runs, telemetry.Run{Case: id, Model: x.Job.Model, Transcript: x.Transcript, Cached: x.Cached})
		}
	}
	if p.rec != nil {
		p.rec.AddRuns(runs)
		p.rec.SetToolList(tools)
		p.rec.Apply(r)
	}
	if p.exp != nil {
		p.exp.RecordRuns(runs)
	}
}

// buildReport is the report of the described server, with Layer 0's
// checks when conformance ran (res is nil otherwise).
func buildReport(strict bool, version string, target mcp.Target, desc *describe.Server, res *conformance.Result, layers []string, started time.Time) *report.Report {
	r := &report.Report{
		SchemaVersion: report.SchemaVersion,
		Tool:          report.Tool{Name: "mcp-eval", Version: version},
		StartedAt:     started.UTC().Format(time.RFC3339),
		DurationMs:    time.Since(started).Milliseconds(),
		Layers:        layers,
		Server: report.Server{
			Target: target.String(), Transport: target.Kind(), Era: string(desc.Era),
			ProtocolVersion: desc.Version, SupportedVersions: desc.Supported,
			ServerInfo: desc.ServerInfo, Capabilities: desc.Capabilities,
			Fingerprint: desc.Fingerprint,
		},
		Strict:  strict,
		Checks:  []report.Check{},
		Cases:   []report.Case{},
		Scores:  map[string]float64{},
		Surface: desc.Surface,
	}
	if res != nil {
		r.Checks, r.Server.Migration = res.Checks, res.Migration
	}
	if rate, ok := r.ConformancePassRate(); ok {
		r.Scores["conformance.passRate"] = rate
	}
	r.Sort()
	return r
}
