package pipeline

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/mcp-eval/mcp-eval/app/config"
	"github.com/mcp-eval/mcp-eval/gate"
	"github.com/mcp-eval/mcp-eval/internal/exitcode"
	"github.com/mcp-eval/mcp-eval/internal/jsonfile"
	"github.com/mcp-eval/mcp-eval/internal/readfile"
	"github.com/mcp-eval/mcp-eval/internal/redact"
	"github.com/mcp-eval/mcp-eval/report"
)

// maxReportBytes bounds a report.json read back (a baseline, a shard, a
// report to gate): far above any real run's, which keeps at most 1 000
// latency samples per tool and model.
const maxReportBytes = 512 << 20

// ReadReport loads a report.json, for --baseline, mcp-eval gate and merge,
// and the Action's report input; flagName names the input in errors. The
// file goes through the bounded reader and is decoded in place, so memory
// is the file and the report it holds.
func ReadReport(flagName, path string) (*report.Report, error) {
	b, err := readfile.Read(path, maxReportBytes)
	if err != nil {
		return nil, exitcode.Configf("%s %s: %s", flagName, path, readfile.Reason(err))
	}
	if err := jsonfile.Check(b); err != nil {
		return nil, exitcode.Configf("%s %s: %v", flagName, path, err)
	}
	var r report.Report
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, exitcode.Configf("%s %s: not a report.json: %s", flagName, path, jsonfile.Syntax(b, err))
	}
	if r.SchemaVersion != report.SchemaVersion {
		return nil, exitcode.Configf("%s %s: schemaVersion %d, this mcp-eval reads %d", flagName, path, r.SchemaVersion, report.SchemaVersion)
	}
	return &r, nil
}

// LoadWaivers reads the waiver file: path, else gate.DefaultWaiverFile
// when it exists; none is no waivers.
func LoadWaivers(path string) ([]gate.Waiver, error) {
	if path == "" {
		if _, err := os.Stat(gate.DefaultWaiverFile); err != nil {
			return nil, nil
		}
		path = gate.DefaultWaiverFile
	}
	data, err := readfile.Read(path, gate.MaxWaiverBytes)
	if err != nil {
		return nil, exitcode.Configf("--waivers %s: %s", path, readfile.Reason(err))
	}
	waivers, err := gate.ParseWaivers(data, path)
	if err != nil {
		return nil, exitcode.Config(err)
	}
	return waivers, nil
}

// Gate evaluates r against the baseline (nil: absolute floors only)
// and the waivers, and records the decision in r.Gate.
func Gate(r *report.Report, base *report.Report, cfg *config.Config, waivers []gate.Waiver) error {
	g := cfg.Gate
	p := gate.Policy{Method: g.Method, Alpha: g.Alpha, MaxDrop: cfg.MaxDrop, Strict: cfg.Strict, Drift: g.Drift, RequireSignificance: g.RequireSignificance,
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

// gateFiles reads what the gate reads besides the report, before anything
// else happens: the baseline report (when given) and the waivers, every
// problem reported together.
func gateFiles(baseline, waivers string) (*report.Report, []gate.Waiver, error) {
	var base *report.Report
	var errB, errW error
	if baseline != "" {
		base, errB = ReadReport("--baseline", baseline)
	}
	ws, errW := LoadWaivers(waivers)
	return base, ws, errors.Join(errB, errW)
}

// Publish gates a report that was made elsewhere (mcp-eval merge of
// the shard jobs) against the baseline, and writes its outputs as a run
// would, so that the action publishes it with one summary and one comment.
func Publish(cfg *config.Config, r *report.Report, red *redact.Redactor, stdout io.Writer) (*report.Report, error) {
	base, waivers, err := gateFiles(cfg.Baseline, cfg.Gate.Waivers)
	if err != nil {
		return nil, err
	}
	r.Gate = nil
	if err := Gate(r, base, cfg, waivers); err != nil {
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
	_, err = stdout.Write(red.Bytes(out.Bytes()))
	return r, err
}

// GateOnly is `mcp-eval gate`: the gate alone, on a report and its
// baseline, written to stdout; exit 1 when it fails.
func GateOnly(o *config.GateOptions, stdout io.Writer) error {
	r, errR := ReadReport("--report", o.Report)
	base, waivers, err := gateFiles(o.Baseline, o.Gate.Waivers)
	if err = errors.Join(errR, err); err != nil {
		return err
	}
	r.Strict = o.Strict
	if err := Gate(r, base, &config.Config{Baseline: o.Baseline, MaxDrop: o.MaxDrop, Strict: o.Strict, Gate: o.Gate}, waivers); err != nil {
		return err
	}
	if o.Format == config.FormatJSON {
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
