package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/mcp-eval/mcp-eval/gate"
	"github.com/mcp-eval/mcp-eval/report"
)

// gateFlags are the policy flags shared by run, conformance and gate.
type gateFlags struct {
	Waivers             string
	Drift               gate.DriftMode
	RequireSignificance bool
	Ratchet             bool
	MaxLatencyIncrease  float64
	MaxCostIncrease     float64
	Perf                gate.PerfMode
}

func (g *gateFlags) bind(fs *flag.FlagSet) {
	fs.StringVar(&g.Waivers, "waivers", g.Waivers, "waiver file accepting known hard failures (default "+gate.DefaultWaiverFile+" if present)")
	fs.Var(&g.Drift, "drift", "warn or fail: drops with an unchanged server fingerprint (likely model drift)")
	fs.BoolVar(&g.RequireSignificance, "require-significance", g.RequireSignificance, "only statistically significant score drops fail")
	fs.BoolVar(&g.Ratchet, "ratchet", g.Ratchet, "record this run's higher floors in the report for the next run")
	fs.Var(&floatValue{&g.MaxLatencyIncrease, 0, maxIncrease, "a relative increase (0.25 is +25%; 0 is no limit)"}, "max-latency-increase", "largest relative p95 latency increase per tool and model against the baseline: a `fraction` (0.25 = +25%; 0 = no limit)")
	fs.Var(&floatValue{&g.MaxCostIncrease, 0, maxIncrease, "a relative increase (0.25 is +25%; 0 is no limit)"}, "max-cost-increase", "largest relative cost increase per case run against the baseline: a `fraction` (0 = no limit)")
	fs.Var(&g.Perf, "perf-gate", "warn (default) or fail: what exceeding the latency and cost limits does (runners differ from run to run)")
}

// readReport loads a report.json, for --baseline and mcp-eval gate.
func readReport(flagName, path string) (*report.Report, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, &configError{fmt.Sprintf("%s: %v", flagName, err)}
	}
	var r report.Report
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&r); err != nil {
		return nil, &configError{fmt.Sprintf("%s %s: not a report.json: %v", flagName, path, err)}
	}
	if r.SchemaVersion != report.SchemaVersion {
		return nil, &configError{fmt.Sprintf("%s %s: schemaVersion %d, this mcp-eval reads %d", flagName, path, r.SchemaVersion, report.SchemaVersion)}
	}
	return &r, nil
}

// applyGate evaluates r against the baseline (nil: absolute floors only)
// and the waivers, and records the decision in r.Gate.
func applyGate(r *report.Report, base *report.Report, cfg *Config) error {
	g := cfg.Gate
	path := g.Waivers
	if path == "" {
		if _, err := os.Stat(gate.DefaultWaiverFile); err == nil {
			path = gate.DefaultWaiverFile
		}
	}
	var waivers []gate.Waiver
	if path != "" {
		data, err := os.ReadFile(path)
		if err != nil {
			return &configError{fmt.Sprintf("--waivers: %v", err)}
		}
		if waivers, err = gate.ParseWaivers(data, path); err != nil {
			return &configError{err.Error()}
		}
	}
	p := gate.Policy{MaxDrop: cfg.MaxDrop, Strict: cfg.Strict, Drift: g.Drift, RequireSignificance: g.RequireSignificance,
		Ratchet: g.Ratchet, Waivers: waivers, Now: time.Now().UTC(),
		MaxLatencyIncrease: g.MaxLatencyIncrease, MaxCostIncrease: g.MaxCostIncrease, Perf: g.Perf}
	if err := p.Validate(); err != nil {
		return usagef("%v", err)
	}
	d := gate.Evaluate(r, base, p)
	if base != nil {
		r.Gate = &report.Gate{Baseline: cmp.Or(cfg.BaselineLabel, cfg.Baseline)}
	}
	d.Apply(r)
	r.Gate.Rules = p.Rules(base != nil)
	if base != nil {
		r.Gate.BaselineRun = &report.GateBaseline{StartedAt: base.StartedAt, Commit: base.Commit, ToolVersion: base.Tool.Version,
			Fingerprint: base.Server.Fingerprint, SameServer: base.Server.Fingerprint != "" && base.Server.Fingerprint == r.Server.Fingerprint}
	}
	// The headline scores of the last runs travel with the reports, so the
	// summary can draw a trend without any storage of its own.
	r.CarryHistory(base, report.DefaultHistoryLimit)
	return nil
}

// gateOptions are the flags of mcp-eval gate.
type gateOptions struct {
	report, baseline, format string
	maxDrop                  float64
	strict                   bool
	g                        gateFlags
}

// gateFlagSet binds the flags of mcp-eval gate, for parsing and --help.
func gateFlagSet() (*flag.FlagSet, *gateOptions) {
	o := &gateOptions{format: "text", maxDrop: gate.DefaultMaxDrop}
	fs := flag.NewFlagSet("gate", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&o.report, "report", "", "report.json of this run")
	fs.StringVar(&o.baseline, "baseline", "", "report.json of the last green run")
	fs.Var(&floatValue{&o.maxDrop, 0, 1, "a fraction (0.02 is two points)"}, "max-drop", "largest allowed drop of a score: a `fraction` from 0 to 1")
	fs.BoolVar(&o.strict, "strict", false, "SHOULD-level findings fail too")
	fs.StringVar(&o.format, "format", o.format, "text or json")
	o.g.bind(fs)
	return fs, o
}

// gateCommand is `mcp-eval gate`: the gate alone, on two reports.
func gateCommand(args []string, stdout, stderr io.Writer) error {
	fs, o := gateFlagSet()
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usagef("%s", flagError(err, fs))
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q (the reports are given with --report and --baseline)", fs.Arg(0))
	}
	reportPath, baselinePath, format, maxDrop, strict, g := o.report, o.baseline, o.format, o.maxDrop, o.strict, o.g
	if reportPath == "" {
		return usagef("--report is required: the report.json to gate")
	}
	if format != "text" && format != "json" {
		return usagef("--format must be text or json, got %q", format)
	}
	r, err := readReport("--report", reportPath)
	if err != nil {
		return err
	}
	r.Strict = strict
	var base *report.Report
	if baselinePath != "" {
		if base, err = readReport("--baseline", baselinePath); err != nil {
			return err
		}
	}
	if err := applyGate(r, base, &Config{Baseline: baselinePath, MaxDrop: maxDrop, Strict: strict, Gate: g}); err != nil {
		return err
	}
	if format == "json" {
		err = report.WriteJSON(stdout, r)
	} else {
		err = report.WriteText(stdout, r, report.TextOptions{GateOnly: true})
	}
	if err != nil {
		return err
	}
	if !r.Passed() {
		return &exitError{code: 1}
	}
	return nil
}
