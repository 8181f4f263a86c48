package pipeline

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/mcp-eval/mcp-eval/app/config"
	"github.com/mcp-eval/mcp-eval/gate"
	"github.com/mcp-eval/mcp-eval/internal/exitcode"
	"github.com/mcp-eval/mcp-eval/internal/redact"
	"github.com/mcp-eval/mcp-eval/report"
)

// ReadReport loads a report.json, for --baseline, mcp-eval gate and merge,
// and the Action's report input; flagName names the input in errors.
func ReadReport(flagName, path string) (*report.Report, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, exitcode.Configf("%s: %v", flagName, err)
	}
	var r report.Report
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&r); err != nil {
		return nil, exitcode.Configf("%s %s: not a report.json: %v", flagName, path, err)
	}
	if r.SchemaVersion != report.SchemaVersion {
		return nil, exitcode.Configf("%s %s: schemaVersion %d, this mcp-eval reads %d", flagName, path, r.SchemaVersion, report.SchemaVersion)
	}
	return &r, nil
}

// Gate evaluates r against the baseline (nil: absolute floors only)
// and the waivers, and records the decision in r.Gate.
func Gate(r *report.Report, base *report.Report, cfg *config.Config) error {
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
			return exitcode.Configf("--waivers: %v", err)
		}
		if waivers, err = gate.ParseWaivers(data, path); err != nil {
			return exitcode.Config(err)
		}
	}
	p := gate.Policy{MaxDrop: cfg.MaxDrop, Strict: cfg.Strict, Drift: g.Drift, RequireSignificance: g.RequireSignificance,
		Ratchet: g.Ratchet, Waivers: waivers, Now: time.Now().UTC(),
		MaxLatencyIncrease: g.MaxLatencyIncrease, MaxCostIncrease: g.MaxCostIncrease, Perf: g.Perf}
	if err := p.Validate(); err != nil {
		return exitcode.Usagef("%v", err)
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

// Publish gates a report that was made elsewhere (mcp-eval merge of
// the shard jobs) against the baseline, and writes its outputs as a run
// would, so that the action publishes it with one summary and one comment.
func Publish(cfg *config.Config, r *report.Report, red *redact.Redactor, stdout io.Writer) (*report.Report, error) {
	var base *report.Report
	if cfg.Baseline != "" {
		var err error
		if base, err = ReadReport("--baseline", cfg.Baseline); err != nil {
			return nil, err
		}
	}
	r.Gate = nil
	if err := Gate(r, base, cfg); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return nil, exitcode.Configf("--out: %v", err)
	}
	if err := writeOutputs(cfg, r, red); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := report.WriteText(&out, r, report.TextOptions{}); err != nil {
		return nil, fmt.Errorf("render: %w", err)
	}
	_, err := stdout.Write(red.Bytes(out.Bytes()))
	return r, err
}

// GateOnly is `mcp-eval gate`: the gate alone, on a report and its
// baseline, written to stdout; exit 1 when it fails.
func GateOnly(o *config.GateOptions, stdout io.Writer) error {
	r, err := ReadReport("--report", o.Report)
	if err != nil {
		return err
	}
	r.Strict = o.Strict
	var base *report.Report
	if o.Baseline != "" {
		if base, err = ReadReport("--baseline", o.Baseline); err != nil {
			return err
		}
	}
	if err := Gate(r, base, &config.Config{Baseline: o.Baseline, MaxDrop: o.MaxDrop, Strict: o.Strict, Gate: o.Gate}); err != nil {
		return err
	}
	if o.Format == "json" {
		err = report.WriteJSON(stdout, r)
	} else {
		err = report.WriteText(stdout, r, report.TextOptions{GateOnly: true})
	}
	if err != nil {
		return err
	}
	if !r.Passed() {
		return exitcode.New(exitcode.Failed, "")
	}
	return nil
}
