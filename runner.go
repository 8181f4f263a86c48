package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcp-eval/mcp-eval/conformance"
	"github.com/mcp-eval/mcp-eval/golden"
	"github.com/mcp-eval/mcp-eval/internal/redact"
	"github.com/mcp-eval/mcp-eval/internal/surface"
	"github.com/mcp-eval/mcp-eval/llm"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/report"
	"github.com/mcp-eval/mcp-eval/resilience"
	"github.com/mcp-eval/mcp-eval/telemetry"
	"github.com/mcp-eval/mcp-eval/telemetry/otlp"
)

// runCommand is `mcp-eval run` and `mcp-eval conformance` (forced layer).
func runCommand(ctx context.Context, name string, args []string, getenv func(string) string, stdout, stderr io.Writer, forceLayer string) error {
	cfg, err := parseConfig(name, args, getenv, stderr)
	if err != nil {
		return err
	}
	if forceLayer != "" {
		cfg.Layers = forceLayer
	}
	r, err := evaluate(ctx, cfg, getenv, stdout, stderr)
	if err != nil {
		return err
	}
	if !r.Passed() {
		return &exitError{code: 1}
	}
	return nil
}

// evaluate runs the configured layers against the server, gates the
// report, writes the outputs under --out and the report to stdout, and
// returns the report. The run and action commands share it.
func evaluate(ctx context.Context, cfg *Config, getenv func(string) string, stdout, stderr io.Writer) (*report.Report, error) {
	layers := cfg.layers()
	has := func(l string) bool { return slices.Contains(layers, l) }

	// Telemetry observes the other layers through the mcp and llm observer
	// hooks; OTLP export is on whenever OTEL_EXPORTER_OTLP_ENDPOINT says so.
	prices := telemetry.BuiltinPrices()
	if cfg.Prices != "" {
		var err error
		if prices, err = telemetry.LoadPrices(cfg.Prices); err != nil {
			return nil, &configError{err.Error()}
		}
	}
	var rec *telemetry.Recorder
	var mcpObs []mcp.Observer
	var llmObs []llm.Observer
	if has(report.LayerTelemetry) {
		rec = telemetry.New(prices)
		mcpObs, llmObs = append(mcpObs, rec), append(llmObs, rec)
	}
	otlpCfg, otlpOn, err := otlp.ConfigFromEnv(getenv)
	if err != nil {
		return nil, &configError{err.Error()}
	}
	var exp *otlp.Exporter
	if otlpOn {
		exp, err = otlp.Start(ctx, otlpCfg, otlp.RunInfo{Version: toolVersion(), Target: cfg.target(), Transport: cfg.transport(),
			Layers: layers, Commit: getenv("GITHUB_SHA")}, prices)
		if err != nil {
			fmt.Fprintf(stderr, "mcp-eval: warning: OpenTelemetry export is off: %v\n", err)
		} else {
			// Tool-call spans come from the StartRequest hook below, which
			// also puts each span's traceparent in the request's _meta so the
			// server's own spans join the trace; as an mcp observer too it
			// would record every tool call twice.
			llmObs = append(llmObs, exp)
		}
	}
	var llmObserver llm.Observer
	if len(llmObs) > 0 {
		llmObserver = telemetry.LLMObservers(llmObs...)
	}
	mp, err := planModels(cfg, layers, getenv, llmObserver)
	if err != nil {
		return nil, err
	}
	var base *report.Report
	if cfg.Baseline != "" {
		if base, err = readReport("--baseline", cfg.Baseline); err != nil {
			return nil, err
		}
	}
	red, err := cfg.redactor(getenv)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return nil, &configError{fmt.Sprintf("--out: %v", err)}
	}
	logFile, err := os.Create(filepath.Join(cfg.Out, "server.log"))
	if err != nil {
		return nil, &configError{fmt.Sprintf("--out: %v", err)}
	}
	defer logFile.Close()

	started := time.Now()
	if cfg.ServerStart != "" {
		srv, err := startServer(ctx, cfg.ServerStart, cfg.ServerURL, cfg.StartTimeout, logFile)
		if err != nil {
			return nil, &exitError{3, err.Error()}
		}
		defer srv.stop()
	}

	var mcpObserver mcp.Observer
	if len(mcpObs) > 0 {
		mcpObserver = telemetry.MCPObservers(mcpObs...)
	}
	target, err := buildTarget(cfg, getenv, logFile, mcpObserver)
	if err != nil {
		return nil, err
	}
	opts := mcp.Options{
		ClientInfo: mcp.Implementation{Name: "mcp-eval", Version: toolVersion()},
		Timeout:    cfg.Timeout,
		Version:    cfg.ProtocolVersion,
	}
	if exp != nil {
		opts.StartRequest = func(ctx context.Context, method, name string) (string, func(error)) {
			if method != "tools/call" || name == "" || strings.HasPrefix(name, telemetry.ProbePrefix) {
				return "", nil
			}
			return exp.StartToolCall(ctx, name)
		}
	}
	client, err := mcp.Connect(ctx, target, opts)
	if err != nil {
		if ctx.Err() != nil {
			return nil, &exitError{3, "interrupted"}
		}
		return nil, &exitError{3, "could not reach the server: " + red.String(err.Error())}
	}
	defer client.Close()

	// Layer 0.
	res := &conformance.Result{Era: client.Era(), Version: client.Version()}
	if d := client.Discover(); d != nil {
		res.Supported = d.SupportedVersions
	}
	if has(report.LayerConformance) {
		res, err = conformance.Run(ctx, client, conformance.Options{
			Runs: cfg.Runs, Concurrency: cfg.Concurrency, SafeTools: cfg.SafeTools.vals,
			Version: cfg.ProtocolVersion, Only: cfg.Checks.vals,
		})
		if err != nil {
			return nil, &exitError{3, "could not evaluate: " + err.Error()}
		}
	}
	var tools []mcp.Tool
	if res.Tools == nil && (has(report.LayerResilience) || has(report.LayerTelemetry) || mp != nil) {
		tools, err = client.ListTools(ctx)
		if err != nil && mp != nil {
			return nil, &exitError{1, "tools/list: " + err.Error()}
		}
		for _, t := range tools {
			res.Tools = append(res.Tools, t.Raw)
		}
	} else {
		for _, raw := range res.Tools {
			var t mcp.Tool
			if json.Unmarshal(raw, &t) == nil {
				t.Raw = raw
				tools = append(tools, t)
			}
		}
	}

	// Layer 2, deterministic half: probes, poisoned descriptions, and the
	// surface against the baseline's.
	var resilienceChecks []report.Check
	if has(report.LayerResilience) {
		resilienceChecks = resilience.Probe(ctx, client, resilience.ProbeOptions{Runs: cfg.Runs, SafeTools: cfg.SafeTools.vals, Timeout: cfg.Timeout})
		resilienceChecks = append(resilienceChecks, resilience.Descriptions(tools)...)
	}

	// Layers 1 and 2 with models.
	var summary *golden.Summary
	var rsum *resilience.Summary
	var mr *modelRun
	if mp != nil {
		if mr, err = mp.prepare(ctx, cfg, client, tools, stderr, red); err != nil {
			return nil, err
		}
		if mp.behavior {
			summary = mr.behavior(ctx)
		}
		if mp.resilience {
			if rsum, err = mr.resilience(ctx); err != nil {
				return nil, err
			}
		}
	}
	if ctx.Err() != nil {
		return nil, &exitError{1, "interrupted; no report written"}
	}

	r := buildReport(cfg, target, res, layers, started)
	r.Commit = getenv("GITHUB_SHA")
	if has(report.LayerResilience) {
		var baseSurface *report.Surface
		if base != nil {
			baseSurface = &base.Surface
		}
		r.Checks = append(r.Checks, resilience.SurfaceCheck(r.Surface, baseSurface))
		r.Checks = append(r.Checks, resilienceChecks...)
	}
	if summary != nil {
		summary.Apply(r, mr.judgeInfo(prices))
	}
	if rsum != nil {
		rsum.Apply(r)
		if r.Judge == nil {
			// A resilience-only run was graded by the judge too.
			r.Judge = mr.judgeInfo(prices)
		}
	}
	// Layer 3.
	var runs []telemetry.Run
	if mr != nil {
		for _, x := range mr.results {
			// A resilience variant's job id is "<case>#<variant>~<key>";
			// its report case is the part before "~", so its tokens and
			// cost land on it.
			id, _, _ := strings.Cut(x.Job.CaseID, "~")
			runs = append(runs, telemetry.Run{Case: id, Model: x.Job.Model, Transcript: x.Transcript, Cached: x.Cached})
		}
	}
	if rec != nil {
		rec.AddRuns(runs)
		rec.SetToolList(tools)
		rec.Apply(r)
	}
	if exp != nil {
		exp.RecordRuns(runs)
		if err := exp.End(ctx, nil); err != nil {
			fmt.Fprintf(stderr, "mcp-eval: warning: OpenTelemetry export: %v\n", err)
		}
	}
	r.Sort()
	if err := applyGate(r, base, cfg); err != nil {
		return nil, err
	}

	if err := writeOutputs(cfg, r, red); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if cfg.Format == "json" {
		err = report.WriteJSON(&out, r)
	} else {
		err = report.WriteText(&out, r, report.TextOptions{Color: useColor(cfg.Color, stdout, getenv), Verbose: cfg.Verbose, Quiet: cfg.Quiet})
	}
	if err != nil {
		return nil, fmt.Errorf("render: %w", err)
	}
	if _, err := stdout.Write(red.Bytes(out.Bytes())); err != nil {
		return nil, err
	}
	return r, nil
}

func buildTarget(cfg *Config, getenv func(string) string, log io.Writer, obs mcp.Observer) (mcp.Target, error) {
	if cfg.ServerURL != "" {
		hs, err := cfg.headers(getenv)
		if err != nil {
			return nil, err
		}
		h := http.Header{}
		for _, x := range hs {
			h.Add(x.name, x.value)
		}
		return &mcp.HTTPTarget{URL: cfg.ServerURL, Header: h, MaxBytes: cfg.MaxMessageBytes, Client: mcp.NewHTTPClient(), Observer: obs}, nil
	}
	argv, err := splitCommand(cfg.ServerCmd)
	if err != nil {
		return nil, usagef("--server-cmd: %v", err)
	}
	return &mcp.CommandTarget{Command: mcp.Command{Argv: argv, Stderr: log, MaxBytes: cfg.MaxMessageBytes, Observer: obs}}, nil
}

func buildReport(cfg *Config, target mcp.Target, res *conformance.Result, layers []string, started time.Time) *report.Report {
	fp, surf := surface.Compute(res.Tools, res.Prompts, res.Templates)
	r := &report.Report{
		SchemaVersion: report.SchemaVersion,
		Tool:          report.Tool{Name: "mcp-eval", Version: toolVersion()},
		StartedAt:     started.UTC().Format(time.RFC3339),
		DurationMs:    time.Since(started).Milliseconds(),
		Layers:        layers,
		Server: report.Server{
			Target: target.String(), Transport: target.Kind(), Era: string(res.Era),
			ProtocolVersion: res.Version, SupportedVersions: res.Supported,
			ServerInfo: res.ServerInfo, Capabilities: res.Capabilities,
			Migration: res.Migration,
		},
		Strict:  cfg.Strict,
		Checks:  res.Checks,
		Cases:   []report.Case{},
		Scores:  map[string]float64{},
		Surface: surf,
	}
	if r.Server.SupportedVersions == nil {
		r.Server.SupportedVersions = []string{}
	}
	if res.Era != mcp.EraUnknown {
		r.Server.Fingerprint = fp
	}
	if rate, ok := r.ConformancePassRate(); ok {
		r.Scores["conformance.passRate"] = rate
	}
	r.Sort()
	return r
}

// writeOutputs writes report.json, summary.md, junit.xml, results.sarif
// and, when golden cases ran, report.html under --out, with every secret
// masked.
func writeOutputs(cfg *Config, r *report.Report, red *redact.Redactor) error {
	files := []struct {
		name   string
		render func(io.Writer, *report.Report) error
	}{
		{"report.json", report.WriteJSON},
		{"summary.md", report.WriteMarkdown},
		{"junit.xml", report.WriteJUnit},
		{"results.sarif", func(w io.Writer, r *report.Report) error {
			return report.WriteSARIFWith(w, r, report.SARIFOptions{ArtifactURI: sarifArtifact(cfg)})
		}},
	}
	if len(r.Cases) > 0 {
		// One page for people who would rather look than read, with the
		// transcripts the model layers wrote (already masked).
		files = append(files, struct {
			name   string
			render func(io.Writer, *report.Report) error
		}{"report.html", func(w io.Writer, r *report.Report) error {
			return report.WriteHTML(w, r, report.HTMLOptions{Transcripts: readTranscripts(cfg.Out, r)})
		}})
	}
	for _, f := range files {
		var buf bytes.Buffer
		if err := f.render(&buf, r); err != nil {
			return fmt.Errorf("render %s: %w", f.name, err)
		}
		if err := os.WriteFile(filepath.Join(cfg.Out, f.name), red.Bytes(buf.Bytes()), 0o644); err != nil {
			return &configError{fmt.Sprintf("--out: %v", err)}
		}
	}
	return nil
}

// readTranscripts reads the transcript files the cases list, for
// report.html; one that cannot be read is left out (the page then links
// to it instead).
func readTranscripts(out string, r *report.Report) map[string]string {
	m := map[string]string{}
	for _, c := range r.Cases {
		for _, rel := range c.Transcripts {
			if b, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(rel))); err == nil {
				m[rel] = string(b)
			}
		}
	}
	return m
}

// sarifArtifact names the file code-scanning alerts point at: MCP servers
// have no source location of their own, and GitHub rejects results without
// one, so the config file (or mcp-eval.yaml) stands in.
func sarifArtifact(cfg *Config) string {
	if cfg.ConfigPath != "" && !filepath.IsAbs(cfg.ConfigPath) {
		return filepath.ToSlash(cfg.ConfigPath)
	}
	return report.DefaultSARIFArtifact
}

// useColor decides on ANSI colour: never when NO_COLOR is set
// (no-color.org) or stdout is not a terminal, unless --color always.
func useColor(mode string, stdout io.Writer, getenv func(string) string) bool {
	switch mode {
	case "always":
		return true
	case "never":
		return false
	}
	if getenv("NO_COLOR") != "" || getenv("TERM") == "dumb" {
		return false
	}
	f, ok := stdout.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
