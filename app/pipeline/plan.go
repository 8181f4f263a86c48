package pipeline

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcp-eval/mcp-eval/app/config"
	"github.com/mcp-eval/mcp-eval/conformance"
	"github.com/mcp-eval/mcp-eval/engine/wire"
	"github.com/mcp-eval/mcp-eval/gate"
	"github.com/mcp-eval/mcp-eval/golden"
	"github.com/mcp-eval/mcp-eval/internal/exitcode"
	"github.com/mcp-eval/mcp-eval/internal/redact"
	"github.com/mcp-eval/mcp-eval/llm"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/report"
	"github.com/mcp-eval/mcp-eval/resilience"
	"github.com/mcp-eval/mcp-eval/telemetry"
	"github.com/mcp-eval/mcp-eval/telemetry/otlp"
)

// RunPlan is a run checked before any network call: the layers, the
// telemetry observers, the model plan and the baseline.
type RunPlan struct {
	cfg    *config.Config
	env    Env // Stderr masked
	layers []string
	rec    *telemetry.Recorder
	exp    *otlp.Exporter
	mcpObs []mcp.Observer
	// wire validates every message the server sends, in every layer, for
	// Layer 0's jsonrpc/wire-schema; nil when Layer 0 does not run.
	wire   *wire.Recorder
	models *golden.Plan // nil when no model layer runs
	// payloads are the prompt injections of the model half of Layer 2.
	payloads *resilience.PayloadSet
	base     *report.Report
	waivers  []gate.Waiver
	prices   *telemetry.Prices
	// red masks the run's secrets in what the model layers store (the
	// cache, transcripts).
	red *redact.Redactor
	// presented are the OAuth access tokens the run obtained
	// (auth/no-token-passthrough looks for each).
	presented tokenList
	started   time.Time
	// from is the report whose verdicts a selection carries (the
	// baseline, or --rerun-failed's), fromName how to name it; selection
	// is what selectCases decided, surfaceDiff the tool surface against
	// the baseline's (select.go).
	from        *report.Report
	fromName    string
	selection   *golden.Selection
	surfaceDiff *report.SurfaceDiff
}

func (p *RunPlan) has(layer string) bool { return slices.Contains(p.layers, layer) }

// Plan reads and checks every input the run has besides the flags, before
// any network call, and reports every problem together (exit 2): the
// price table, the baseline and the waivers, the OTLP settings, the model
// plan (golden.NewPlan: the golden set, providers, judge) and the
// payloads. Telemetry observes the other layers through the mcp and llm
// observer hooks; OTLP export is on whenever OTEL_EXPORTER_OTLP_ENDPOINT
// says so.
func Plan(ctx context.Context, cfg *config.Config, env Env, red *redact.Redactor) (*RunPlan, error) {
	p := &RunPlan{cfg: cfg, env: env, layers: cfg.ResolvedLayers(), red: red, prices: telemetry.BuiltinPrices()}
	warnIgnoredHeaders(cfg, env.Stderr)
	var errs []error
	if cfg.Prices != "" {
		prices, err := telemetry.LoadPrices(cfg.Prices)
		if err != nil {
			errs = append(errs, exitcode.Config(err))
		} else {
			p.prices = prices
		}
	}
	var err error
	p.base, p.waivers, err = gateFiles(cfg.Baseline, cfg.Gate.Waivers)
	errs = append(errs, err)
	if err == nil {
		errs = append(errs, p.selectPlan())
	}
	llmObs, err := p.observers(ctx)
	errs = append(errs, err, p.planModels(llmObs))
	if err := errors.Join(errs...); err != nil {
		p.endExport(ctx)
		return nil, err
	}
	return p, nil
}

// observers sets up Layer 3's recorder and the OTLP export, and returns
// what observes the model calls.
func (p *RunPlan) observers(ctx context.Context) (llm.Observer, error) {
	var llmObs []llm.Observer
	if p.has(report.LayerConformance) && slices.ContainsFunc(conformance.RecorderCheckIDs(), func(id string) bool { return conformance.Selected(p.cfg.Checks.Vals, id) }) {
		p.wire = wire.NewRecorder()
		p.mcpObs = append(p.mcpObs, p.wire)
	}
	if p.has(report.LayerTelemetry) {
		p.rec = telemetry.New(p.prices)
		p.mcpObs, llmObs = append(p.mcpObs, p.rec), append(llmObs, p.rec)
	}
	otlpCfg, otlpOn, err := otlp.ConfigFromEnv(p.env.Getenv)
	if err != nil {
		return nil, exitcode.Config(err)
	}
	if otlpOn {
		exp, err := otlp.Start(ctx, otlpCfg, otlp.RunInfo{Version: p.env.Version, Target: p.cfg.Target(), Transport: p.cfg.Transport(),
			Layers: p.layers, Commit: p.env.Getenv("GITHUB_SHA")}, p.prices)
		if err != nil {
			fmt.Fprintf(p.env.Stderr, "mcp-eval: warning: OpenTelemetry export is off: %v\n", err)
		} else {
			// Tool-call spans come from the StartRequest hook, which also
			// puts each span's traceparent in the request's _meta so the
			// server's own spans join the trace; as an mcp observer too it
			// would record every tool call twice.
			p.exp = exp
			llmObs = append(llmObs, exp)
		}
	}
	if len(llmObs) == 0 {
		return nil, nil
	}
	return telemetry.LLMObservers(llmObs...), nil
}

// planModels plans the model layers (golden.NewPlan) and, for the model
// half of Layer 2, reads the payloads; a problem in either is reported
// with the other's.
func (p *RunPlan) planModels(obs llm.Observer) error {
	cfg := p.cfg
	resilienceModels := p.has(report.LayerResilience) && strings.TrimSpace(cfg.Models) != ""
	var errModels, errPayloads error
	p.models, errModels = golden.NewPlan(golden.PlanOptions{
		Behavior:   p.has(report.LayerBehavior),
		Resilience: resilienceModels,
		PlanFlags:  cfg.PlanFlags, Getenv: p.env.Getenv, Observer: obs, DryRun: cfg.DryRun,
	})
	if resilienceModels {
		p.payloads = resilience.Builtin()
		if cfg.Payloads != "" {
			if p.payloads, errPayloads = resilience.LoadPayloads(cfg.Payloads); errPayloads != nil {
				errPayloads = exitcode.Config(errPayloads)
			}
		}
	}
	return errors.Join(errModels, errPayloads)
}

// endExport ends the OTLP export, if any, once the run is over.
func (p *RunPlan) endExport(ctx context.Context) {
	if p.exp == nil {
		return
	}
	if err := p.exp.End(ctx, nil); err != nil {
		fmt.Fprintf(p.env.Stderr, "mcp-eval: warning: OpenTelemetry export: %v\n", err)
	}
}
