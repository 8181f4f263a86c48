package config

import (
	"errors"
	"flag"
	"io"

	"github.com/mcp-eval/mcp-eval/gate"
	"github.com/mcp-eval/mcp-eval/internal/exitcode"
)

// GateFlags are the policy flags shared by run, conformance and gate.
type GateFlags struct {
	Waivers             string
	Drift               gate.DriftMode
	RequireSignificance bool
	Ratchet             bool
	MaxLatencyIncrease  float64
	MaxCostIncrease     float64
	Perf                gate.PerfMode
}

// Bind binds the policy flags to fs.
func (g *GateFlags) Bind(fs *flag.FlagSet) {
	fs.StringVar(&g.Waivers, "waivers", g.Waivers, "waiver file accepting known hard failures (default "+gate.DefaultWaiverFile+" if present)")
	fs.Var(&g.Drift, "drift", "warn or fail: drops with an unchanged server fingerprint (likely model drift)")
	fs.BoolVar(&g.RequireSignificance, "require-significance", g.RequireSignificance, "only statistically significant score drops fail")
	fs.BoolVar(&g.Ratchet, "ratchet", g.Ratchet, "record this run's higher floors in the report for the next run")
	fs.Var(&floatValue{&g.MaxLatencyIncrease, 0, maxIncrease, "a relative increase (0.25 is +25%; 0 is no limit)"}, "max-latency-increase", "largest relative p95 latency increase per tool and model against the baseline: a `fraction` (0.25 = +25%; 0 = no limit)")
	fs.Var(&floatValue{&g.MaxCostIncrease, 0, maxIncrease, "a relative increase (0.25 is +25%; 0 is no limit)"}, "max-cost-increase", "largest relative cost increase per case run against the baseline: a `fraction` (0 = no limit)")
	fs.Var(&g.Perf, "perf-gate", "warn (default) or fail: what exceeding the latency and cost limits does (runners differ from run to run)")
}

// GateOptions are the flags of mcp-eval gate.
type GateOptions struct {
	Report, Baseline, Format string
	MaxDrop                  float64
	Strict                   bool
	Gate                     GateFlags
}

// GateFlagSet binds the flags of mcp-eval gate, for parsing and --help.
func GateFlagSet() (*flag.FlagSet, *GateOptions) {
	o := &GateOptions{Format: "text", MaxDrop: gate.DefaultMaxDrop}
	fs := flag.NewFlagSet("gate", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&o.Report, "report", "", "report.json of this run")
	fs.StringVar(&o.Baseline, "baseline", "", "report.json of the last green run")
	fs.Var(&floatValue{&o.MaxDrop, 0, 1, "a fraction (0.02 is two points)"}, "max-drop", "largest allowed drop of a score: a `fraction` from 0 to 1")
	fs.BoolVar(&o.Strict, "strict", false, "SHOULD-level findings fail too")
	fs.StringVar(&o.Format, "format", o.Format, "text or json")
	o.Gate.Bind(fs)
	return fs, o
}

// MergeFlagSet binds the flags of mcp-eval merge, for parsing and --help.
func MergeFlagSet() (*flag.FlagSet, *string) {
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	out := fs.String("o", "", "where to write the merged report.json")
	return fs, out
}

// ParseGate parses and checks the flags of mcp-eval gate.
func ParseGate(args []string) (*GateOptions, error) {
	fs, o := GateFlagSet()
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	switch {
	case fs.NArg() > 0:
		return nil, exitcode.Usagef("unexpected argument %q (the reports are given with --report and --baseline)", fs.Arg(0))
	case o.Report == "":
		return nil, exitcode.Usagef("--report is required: the report.json to gate")
	case o.Format != "text" && o.Format != "json":
		return nil, exitcode.Usagef("--format must be text or json, got %q", o.Format)
	}
	return o, nil
}

// ParseMerge parses the flags of mcp-eval merge: the output file and the
// shard reports.
func ParseMerge(args []string) (out string, shards []string, err error) {
	fs, o := MergeFlagSet()
	if err := parseFlags(fs, args); err != nil {
		return "", nil, err
	}
	if *o == "" || fs.NArg() == 0 {
		return "", nil, exitcode.Usagef("want -o report.json and at least one shard report")
	}
	return *o, fs.Args(), nil
}

// parseFlags parses args into fs; a bad flag is a usage error in the
// docs' spelling (FlagError), --help is flag.ErrHelp.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return exitcode.Usagef("%s", FlagError(err, fs))
	}
	return nil
}
