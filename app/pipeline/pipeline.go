// Package pipeline owns the sequence of `mcp-eval run`: plan the run
// (Plan), connect to the server, describe it once (engine/describe), run
// the selected layers on that one description, merge their results into
// one report, gate it (Gate) and render it (Render). Each step is a
// function of the package that owns it: the layers (conformance, golden,
// resilience, telemetry) check and score, report renders, gate decides;
// this package only calls them in order. It also owns the report files the
// gate and merge commands read and write (ReadReport, Publish, MergeFiles).
//
// pipeline may import the layers; no layer, and neither report nor gate,
// imports it (deps_test.go).
package pipeline

import (
	"context"
	"fmt"
	"io"

	"github.com/mcp-eval/mcp-eval/app/config"
	"github.com/mcp-eval/mcp-eval/engine/describe"
	"github.com/mcp-eval/mcp-eval/internal/exitcode"
	"github.com/mcp-eval/mcp-eval/internal/redact"
	"github.com/mcp-eval/mcp-eval/report"
)

// Env is what a run gets from the program around it.
type Env struct {
	Getenv         func(string) string
	Stdout, Stderr io.Writer
	// Version is mcp-eval's, for the report and the MCP clientInfo.
	Version string
	// MaskSecret, if set, is told of each secret that arrives during the
	// run (an OAuth access token), besides the run's redactor: the Action
	// registers it with the runner's log masking.
	MaskSecret func(value string) error
	// Redactor, if set, is the run's redactor, which Evaluate then adds to
	// instead of building its own: the Action masks its comment, summary
	// and annotations with the same one, tokens learnt during the run
	// included.
	Redactor *redact.Redactor
}

// Run is `mcp-eval run` and `mcp-eval conformance` once the flags are
// parsed: Evaluate, and exit 1 when the report did not pass.
func Run(ctx context.Context, cfg *config.Config, env Env) error {
	if cfg.DryRun {
		return DryRun(ctx, cfg, env)
	}
	r, err := Evaluate(ctx, cfg, env)
	if err != nil {
		return err
	}
	if !r.Passed() {
		return exitcode.New(exitcode.Failed, "")
	}
	return nil
}

// Evaluate runs the configured layers against the server, gates the
// report, writes the outputs under --out and the report to stdout, and
// returns the report, masked. The run and action commands share it.
func Evaluate(ctx context.Context, cfg *config.Config, env Env) (_ *report.Report, err error) {
	// Every secret of the run is masked in what it prints and in the error
	// it returns, which the caller prints.
	red := env.Redactor
	if red == nil {
		if red, err = cfg.Redactor(env.Getenv); err != nil {
			return nil, err
		}
	}
	defer func() { err = red.Error(err) }()
	// What the standard library and the dependencies log (redact.Logs)
	// masks this run's secrets too, those learnt later included.
	redact.MaskLogs(red)
	errw := red.Writer(env.Stderr)
	defer errw.Flush()
	env.Stderr = errw

	// 1. Plan: everything that can be checked is checked before any
	// network call (a bad golden file or a missing key is exit 2, not a
	// half-run).
	p, err := Plan(ctx, cfg, env, red)
	if err != nil {
		return nil, err
	}
	defer p.endExport(ctx)
	// 1b. Probe each model endpoint once: a wrong base URL, key or model
	// stops here in one line, before the server starts.
	if p.models != nil {
		if err := p.models.Probe(ctx); err != nil {
			return nil, err
		}
	}
	// 2. Connect.
	s, err := p.connect(ctx)
	if err != nil {
		return nil, err
	}
	defer s.close()
	// 3. Describe the server once; 4. run the layers on that description
	// and merge their results into one report.
	desc := describe.Describe(ctx, s.client)
	r, err := p.runLayers(ctx, s, desc)
	if err != nil {
		return nil, err
	}
	// 5. Gate.
	if err := Gate(r, p.base, cfg, p.waivers); err != nil {
		return nil, err
	}
	// 6. Render, from a masked copy, which the caller (the Action's
	// comment and annotations) gets too.
	r = Mask(r, red)
	if err := Render(cfg, r, red, env); err != nil {
		return r, err
	}
	if r.Interrupted != "" {
		fmt.Fprintf(env.Stderr, "mcp-eval: interrupted by %s; the partial report of what finished is in %s\n", r.Interrupted, cfg.Out)
	}
	return r, nil
}
