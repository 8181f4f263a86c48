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
	"github.com/mcp-eval/mcp-eval/internal/describe"
	"github.com/mcp-eval/mcp-eval/internal/redact"
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
		for f := range cfg.flagsSet {
			if modelOnlyFlags[f] {
				return usagef("--%s is a flag of mcp-eval run: conformance runs Layer 0 alone, without a model", f)
			}
		}
		cfg.Layers = forceLayer
	} else if cfg.Models == "" && strings.Contains(cfg.Layers, "auto") && (cfg.flagsSet["golden"] || len(cfg.fileLines["golden"]) > 0) {
		// A golden file alone would be silently ignored: say why.
		msg := fmt.Sprintf("%s is set without --models: the behaviour layer needs a model to run the golden tasks, e.g. --models openai:gpt-4.1-mini", cfg.source("golden", 0))
		if cfg.flagsSet["golden"] {
			return usagef("%s", msg)
		}
		fmt.Fprintf(stderr, "mcp-eval: note: %s; only the layers without a model run\n", msg)
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
func evaluate(ctx context.Context, cfg *Config, getenv func(string) string, stdout, stderr io.Writer) (_ *report.Report, err error) {
	// Every secret of the run is masked in what it prints and in the error
	// it returns, which the caller prints.
	red, err := cfg.redactor(getenv)
	if err != nil {
		return nil, err
	}
	defer func() { err = red.Error(err) }()
	errw := red.Writer(stderr)
	defer errw.Flush()
	stderr = errw

	// 1. Plan: everything that can be checked is checked before any
	// network call (a bad golden file or a missing key is exit 2, not a
	// half-run).
	p, err := planRun(ctx, cfg, getenv, red, stderr)
	if err != nil {
		return nil, err
	}
	defer p.endExport(ctx, stderr)
	exp, mcpObs := p.exp, p.mcpObs
	serverLog, closeLog, err := openServerLog(cfg, red)
	if err != nil {
		return nil, err
	}
	defer closeLog()

	// 2. Connect.
	started := time.Now()
	if cfg.ServerStart != "" {
		srv, err := startServer(ctx, cfg.ServerStart, cfg.ServerURL, cfg.StartTimeout, serverLog)
		if err != nil {
			return nil, &exitError{3, err.Error()}
		}
		defer srv.stopAndReport(stderr)
	}

	var mcpObserver mcp.Observer
	if len(mcpObs) > 0 {
		mcpObserver = telemetry.MCPObservers(mcpObs...)
	}
	target, err := buildTarget(cfg, getenv, serverLog, mcpObserver)
	if err != nil {
		return nil, err
	}
	client, err := mcp.Connect(ctx, target, connectOptions(cfg, exp, stderr))
	if err != nil {
		return nil, connectError(ctx, cfg, err, red)
	}
	defer client.Close()

	// 3. Describe the server once; 4. run the layers on that description
	// and merge their results into one report; 5. gate; 6. render.
	desc := describe.Describe(ctx, client)
	r, err := p.runLayers(ctx, client, target, desc, started, stderr)
	if err != nil {
		return nil, err
	}
	if err := applyGate(r, p.base, cfg); err != nil {
		return nil, err
	}
	// The caller (the Action's comment and annotations) gets the masked
	// report too.
	r = masked(r, red)
	if err := writeOutputs(cfg, r, red); err != nil {
		return nil, err
	}
	return r, writeStdout(cfg, r, red, stdout, getenv)
}

// connectOptions are the MCP client's options for the run: the timeouts,
// the revision, start-up progress on stderr, and, with OTLP export on, a
// span per tool call whose traceparent goes in the request's _meta.
func connectOptions(cfg *Config, exp *otlp.Exporter, stderr io.Writer) mcp.Options {
	opts := mcp.Options{
		ClientInfo: mcp.Implementation{Name: "mcp-eval", Version: toolVersion()},
		Timeout:    cfg.Timeout,
		Version:    cfg.ProtocolVersion,
		// --start-timeout covers a stdio server's first answer too.
		StartTimeout: cfg.StartTimeout,
		Waiting:      startProgress(stderr),
	}
	if exp != nil {
		opts.StartRequest = func(ctx context.Context, method, name string) (string, func(error)) {
			if method != "tools/call" || name == "" || strings.HasPrefix(name, telemetry.ProbePrefix) {
				return "", nil
			}
			return exp.StartToolCall(ctx, name)
		}
	}
	return opts
}

// openServerLog creates OUT/server.log for what the server prints. It is
// masked too: a server that logs its request headers would otherwise write
// the token into an uploaded artifact. closeLog flushes and closes it; it is
// deferred before the server's stop, so it runs once the server has stopped.
func openServerLog(cfg *Config, red *redact.Redactor) (_ io.Writer, closeLog func(), _ error) {
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return nil, nil, &configError{fmt.Sprintf("--out: %v", err)}
	}
	f, err := os.Create(filepath.Join(cfg.Out, "server.log"))
	if err != nil {
		return nil, nil, &configError{fmt.Sprintf("--out: %v", err)}
	}
	// Capped (head and tail kept) so a server that floods stderr cannot
	// fill the disk; masked before the cap, so what is kept is clean.
	capped := newCappedLog(f, serverLogCap)
	w := red.Writer(capped)
	return w, func() { w.Flush(); capped.Close(); f.Close() }, nil
}

// runPlan is a run checked before any network call: the layers, the
// telemetry observers, the model plan and the baseline.
type runPlan struct {
	cfg    *Config
	getenv func(string) string
	layers []string
	rec    *telemetry.Recorder
	exp    *otlp.Exporter
	mcpObs []mcp.Observer
	mp     *modelPlan
	base   *report.Report
	prices *telemetry.Prices
	// red masks the run's secrets in what the model layers store (the
	// cache, transcripts).
	red *redact.Redactor
}

func (p *runPlan) has(layer string) bool { return slices.Contains(p.layers, layer) }

// planRun reads the price table, the OTLP settings, the model plan and the
// baseline. Telemetry observes the other layers through the mcp and llm
// observer hooks; OTLP export is on whenever OTEL_EXPORTER_OTLP_ENDPOINT
// says so.
func planRun(ctx context.Context, cfg *Config, getenv func(string) string, red *redact.Redactor, stderr io.Writer) (*runPlan, error) {
	p := &runPlan{cfg: cfg, getenv: getenv, layers: cfg.layers(), red: red}
	prices := telemetry.BuiltinPrices()
	if cfg.Prices != "" {
		var err error
		if prices, err = telemetry.LoadPrices(cfg.Prices); err != nil {
			return nil, &configError{err.Error()}
		}
	}
	p.prices = prices
	var llmObs []llm.Observer
	if p.has(report.LayerTelemetry) {
		p.rec = telemetry.New(prices)
		p.mcpObs, llmObs = append(p.mcpObs, p.rec), append(llmObs, p.rec)
	}
	otlpCfg, otlpOn, err := otlp.ConfigFromEnv(getenv)
	if err != nil {
		return nil, &configError{err.Error()}
	}
	if otlpOn {
		exp, err := otlp.Start(ctx, otlpCfg, otlp.RunInfo{Version: toolVersion(), Target: cfg.target(), Transport: cfg.transport(),
			Layers: p.layers, Commit: getenv("GITHUB_SHA")}, prices)
		if err != nil {
			fmt.Fprintf(stderr, "mcp-eval: warning: OpenTelemetry export is off: %v\n", err)
		} else {
			// Tool-call spans come from the StartRequest hook, which also
			// puts each span's traceparent in the request's _meta so the
			// server's own spans join the trace; as an mcp observer too it
			// would record every tool call twice.
			p.exp = exp
			llmObs = append(llmObs, exp)
		}
	}
	var llmObserver llm.Observer
	if len(llmObs) > 0 {
		llmObserver = telemetry.LLMObservers(llmObs...)
	}
	if p.mp, err = planModels(cfg, p.layers, getenv, llmObserver); err != nil {
		return nil, err
	}
	if cfg.Baseline != "" {
		if p.base, err = readReport("--baseline", cfg.Baseline); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// runLayers runs the selected layers against the described server and
// merges their results into one report.
func (p *runPlan) runLayers(ctx context.Context, client *mcp.Client, target mcp.Target, desc *describe.Server, started time.Time, stderr io.Writer) (*report.Report, error) {
	cfg := p.cfg
	// Layer 0.
	var res *conformance.Result
	if p.has(report.LayerConformance) {
		var err error
		res, err = conformance.Run(ctx, client, conformance.Options{
			Runs: cfg.Runs, Concurrency: cfg.Concurrency, SafeTools: cfg.SafeTools.vals,
			Version: cfg.ProtocolVersion, Only: cfg.Checks.vals,
		})
		if err != nil {
			return nil, &exitError{3, "could not evaluate: " + err.Error()}
		}
	}
	if desc.ToolsErr != nil && p.mp != nil {
		return nil, &exitError{1, "tools/list: " + desc.ToolsErr.Error()}
	}
	// Layer 2, deterministic half: probes and poisoned descriptions.
	var resilienceChecks []report.Check
	if p.has(report.LayerResilience) {
		resilienceChecks = resilience.Probe(ctx, client, resilience.ProbeOptions{Runs: cfg.Runs, SafeTools: cfg.SafeTools.vals, Timeout: cfg.Timeout})
		resilienceChecks = append(resilienceChecks, resilience.Descriptions(desc.Tools)...)
	}
	// Layers 1 and 2 with models.
	var summary *golden.Summary
	var rsum *resilience.Summary
	var mr *modelRun
	if p.mp != nil {
		var err error
		if mr, err = p.mp.prepare(ctx, cfg, client, desc.Tools, stderr, p.red); err != nil {
			return nil, err
		}
		if p.mp.behavior {
			summary = mr.behavior(ctx)
		}
		if p.mp.resilience {
			if rsum, err = mr.resilience(ctx); err != nil {
				return nil, err
			}
		}
	}
	if ctx.Err() != nil {
		return nil, &exitError{1, "interrupted; no report written"}
	}

	r := buildReport(cfg, target, desc, res, p.layers, started)
	r.Commit = p.getenv("GITHUB_SHA")
	if p.has(report.LayerResilience) {
		var baseSurface *report.Surface
		if p.base != nil {
			baseSurface = &p.base.Surface
		}
		r.Checks = append(r.Checks, resilience.SurfaceCheck(r.Surface, baseSurface))
		r.Checks = append(r.Checks, resilienceChecks...)
	}
	if summary != nil {
		summary.Apply(r, mr.judgeInfo(p.prices))
	}
	if rsum != nil {
		rsum.Apply(r)
		if r.Judge == nil {
			// A resilience-only run was graded by the judge too.
			r.Judge = mr.judgeInfo(p.prices)
		}
	}
	p.telemetry(r, mr, desc.Tools)
	r.Sort()
	return r, nil
}

// telemetry adds Layer 3 to the report from the model runs it observed.
func (p *runPlan) telemetry(r *report.Report, mr *modelRun, tools []mcp.Tool) {
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
	if p.rec != nil {
		p.rec.AddRuns(runs)
		p.rec.SetToolList(tools)
		p.rec.Apply(r)
	}
	if p.exp != nil {
		p.exp.RecordRuns(runs)
	}
}

// endExport ends the OTLP export, if any, once the run is over.
func (p *runPlan) endExport(ctx context.Context, stderr io.Writer) {
	if p.exp == nil {
		return
	}
	if err := p.exp.End(ctx, nil); err != nil {
		fmt.Fprintf(stderr, "mcp-eval: warning: OpenTelemetry export: %v\n", err)
	}
}

// writeStdout writes the report to stdout as --format says, masked.
func writeStdout(cfg *Config, r *report.Report, red *redact.Redactor, stdout io.Writer, getenv func(string) string) error {
	var out bytes.Buffer
	var err error
	mask := red.Bytes
	if cfg.Format == "json" {
		err, mask = report.WriteJSON(&out, r), red.JSON
	} else {
		err = report.WriteText(&out, r, report.TextOptions{Color: useColor(cfg.Color, stdout, getenv), Verbose: cfg.Verbose, Quiet: cfg.Quiet})
	}
	if err != nil {
		return fmt.Errorf("render: %w", err)
	}
	_, err = stdout.Write(mask(out.Bytes()))
	return err
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
	if err := findProgram("--server-cmd", argv, getenv); err != nil {
		return nil, err
	}
	return &mcp.CommandTarget{Command: mcp.Command{Argv: argv, Stderr: log, MaxBytes: cfg.MaxMessageBytes, Observer: obs}}, nil
}

// buildReport is the report of the described server, with Layer 0's
// checks when conformance ran (res is nil otherwise).
func buildReport(cfg *Config, target mcp.Target, desc *describe.Server, res *conformance.Result, layers []string, started time.Time) *report.Report {
	r := &report.Report{
		SchemaVersion: report.SchemaVersion,
		Tool:          report.Tool{Name: "mcp-eval", Version: toolVersion()},
		StartedAt:     started.UTC().Format(time.RFC3339),
		DurationMs:    time.Since(started).Milliseconds(),
		Layers:        layers,
		Server: report.Server{
			Target: target.String(), Transport: target.Kind(), Era: string(desc.Era),
			ProtocolVersion: desc.Version, SupportedVersions: desc.Supported,
			ServerInfo: desc.ServerInfo, Capabilities: desc.Capabilities,
			Fingerprint: desc.Fingerprint,
		},
		Strict:  cfg.Strict,
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

// masked returns a copy of r with every secret masked in every string,
// the raw JSON from the server (serverInfo, capabilities, evidence)
// included, however its strings are escaped: the report goes through JSON
// and Redactor.JSON, which decodes each escaped string before masking it
// (\u0074ok is no spelling a byte replace would know). Renderers then work
// from clean data, and so does the caller (the Action's comment).
func masked(r *report.Report, red *redact.Redactor) *report.Report {
	if red.Empty() {
		return r
	}
	if b, err := json.Marshal(r); err == nil {
		var c report.Report
		if json.Unmarshal(red.JSON(b), &c) == nil {
			return &c
		}
	}
	// Unreachable for a report this program built; mask the raw JSON alone.
	c := *r
	c.Server.ServerInfo = red.JSON(r.Server.ServerInfo)
	c.Server.Capabilities = red.JSON(r.Server.Capabilities)
	c.Checks = slices.Clone(r.Checks)
	for i := range c.Checks {
		c.Checks[i].Evidence = red.JSON(c.Checks[i].Evidence)
	}
	return &c
}

// writeOutputs writes report.json, summary.md, junit.xml, results.sarif
// and, when golden cases ran, report.html under --out, with every secret
// masked in each rendered file in every spelling (red.JSON for the JSON
// files, red.Bytes for the others); r is already masked (masked).
func writeOutputs(cfg *Config, r *report.Report, red *redact.Redactor) error {
	files := []struct {
		name   string
		render func(io.Writer, *report.Report) error
		mask   func([]byte) []byte
	}{
		{"report.json", report.WriteJSON, red.JSON},
		{"summary.md", report.WriteMarkdown, red.Bytes},
		{"junit.xml", report.WriteJUnit, red.Bytes},
		{"results.sarif", func(w io.Writer, r *report.Report) error {
			return report.WriteSARIFWith(w, r, report.SARIFOptions{ArtifactURI: sarifArtifact(cfg)})
		}, red.JSON},
	}
	if len(r.Cases) > 0 {
		// One page for people who would rather look than read, with the
		// transcripts the model layers wrote (already masked).
		files = append(files, struct {
			name   string
			render func(io.Writer, *report.Report) error
			mask   func([]byte) []byte
		}{"report.html", func(w io.Writer, r *report.Report) error {
			return report.WriteHTML(w, r, report.HTMLOptions{Transcripts: readTranscripts(cfg.Out, r)})
		}, red.Bytes})
	}
	for _, f := range files {
		var buf bytes.Buffer
		if err := f.render(&buf, r); err != nil {
			return fmt.Errorf("render %s: %w", f.name, err)
		}
		if err := os.WriteFile(filepath.Join(cfg.Out, f.name), f.mask(buf.Bytes()), 0o644); err != nil {
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
	f, ok := fileOf(stdout)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
