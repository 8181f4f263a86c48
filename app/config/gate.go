package config

import (
	"errors"
	"flag"
	"io"

	"github.com/mcp-eval/mcp-eval/gate"
	"github.com/mcp-eval/mcp-eval/internal/exitcode"
	"github.com/mcp-eval/mcp-eval/internal/option"
)

// GateFlags are the policy flags shared by run, conformance and gate.
type GateFlags struct {
	Method              gate.Method
	Alpha               float64
	Waivers             string
	Drift               gate.DriftMode
	RequireSignificance bool
	Ratchet             bool
	MaxLatencyIncrease  float64
	MaxCostIncrease     float64
	Perf                gate.PerfMode
}

// declare declares the policy options, bound to g.
func (g *GateFlags) declare(s *option.Set) {
	gateCmds := []string{option.Run, option.Conformance, option.Gate}
	g.Method = gate.MethodStatistical
	s.Add(option.Def{Name: "gate", Help: "statistical (default) or fixed: how Layer 1 cases and score drops are judged",
		Doc:      "`statistical`: a soft case fails only when its runs show its true pass rate below its floor, a drop against the baseline only when significant, all at one false-alarm rate (`--alpha`), with more runs only for undecided cases (`--max-runs`); `fixed`: the seed rule, a case below its floor over `--runs` fails and a score drop beyond `--max-drop` fails",
		Commands: gateCmds,
		Input:    &option.Input{Doc: "statistical or fixed: statistical fails a case or a drop only on evidence at the false-alarm rate alpha; fixed is the seed rule (5 runs, hard 5/5, soft 4/5)."}},
		&g.Method)
	s.Add(option.Def{Name: "alpha", Help: "the statistical gate's false-alarm rate: the chance that a run on an unchanged server and model fails it, a `fraction` above 0 and below 0.5",
		Doc:      "the chance that the statistical gate fails a run on an unchanged server and model, over every case, model and suite test together",
		Commands: gateCmds,
		Input:    &option.Input{Doc: "The statistical gate's false-alarm rate over all its tests together (default 0.05)."}},
		option.Float(&g.Alpha, gate.DefaultAlpha, 1e-6, 0.5, "a false-alarm rate"))
	s.Add(option.Def{Name: "waivers", Help: "waiver `file` accepting known hard failures (default " + gate.DefaultWaiverFile + " if present)",
		Doc:      "accept known hard failures (id, reason, optional `expires`); a waiver that matches nothing is stale and fails",
		Default:  "`" + gate.DefaultWaiverFile + "` if present",
		Commands: gateCmds,
		Input:    &option.Input{Doc: "Waiver file accepting known hard failures."}},
		option.String(&g.Waivers, ""))
	g.Drift = gate.DriftWarn
	s.Add(option.Def{Name: "drift", Help: "warn or fail: drops with an unchanged server fingerprint (likely model drift)",
		Commands: gateCmds,
		Input:    &option.Input{Doc: "warn or fail: score drops while the server's fingerprint is unchanged (likely model drift)."}},
		&g.Drift)
	s.Add(option.Def{Name: "require-significance", Help: "only statistically significant score drops fail",
		Commands: gateCmds,
		Input:    &option.Input{Doc: "Only statistically significant score drops fail (true or false)."}},
		option.Bool(&g.RequireSignificance, false))
	s.Add(option.Def{Name: "ratchet", Help: "record this run's higher floors in the report for the next run", Commands: gateCmds},
		option.Bool(&g.Ratchet, false))
	increase := "a relative increase (0.25 is +25%; 0 is no limit)"
	s.Add(option.Def{Name: "max-latency-increase", Help: "largest relative p95 latency increase per tool and model against the baseline: a `fraction` (0.25 = +25%; 0 = no limit)",
		Doc: "p95 latency increase per tool and model against the baseline (0 to 100; 0 is no limit)", Default: "no limit", Commands: gateCmds},
		option.Float(&g.MaxLatencyIncrease, 0, 0, maxIncrease, increase))
	s.Add(option.Def{Name: "max-cost-increase", Help: "largest relative cost increase per case run against the baseline: a `fraction` (0 = no limit)",
		Doc: "cost increase per case run against the baseline (0 to 100; 0 is no limit)", Default: "no limit", Commands: gateCmds},
		option.Float(&g.MaxCostIncrease, 0, 0, maxIncrease, increase))
	g.Perf = gate.PerfWarn
	s.Add(option.Def{Name: "perf-gate", Help: "warn (default) or fail: what exceeding the latency and cost limits does (runners differ from run to run)",
		Commands: gateCmds},
		&g.Perf)
}

// GateOptions are the flags of mcp-eval gate.
type GateOptions struct {
	Report, Baseline, Format string
	MaxDrop                  float64
	Strict                   bool
	Gate                     GateFlags
}

// ParseGate parses and checks the flags of mcp-eval gate.
func ParseGate(args []string) (*GateOptions, error) {
	cfg := Default()
	fs := cfg.opts.FlagSet("gate", option.Gate)
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	switch {
	case fs.NArg() > 0:
		return nil, exitcode.Usagef("unexpected argument %q (the reports are given with --report and --baseline)", fs.Arg(0))
	case cfg.Report == "":
		return nil, exitcode.Usagef("--report is required: the report.json to gate")
	}
	return &GateOptions{Report: cfg.Report, Baseline: cfg.Baseline, Format: cfg.Format, MaxDrop: cfg.MaxDrop, Strict: cfg.Strict, Gate: cfg.Gate}, nil
}

// ParseMerge parses the flags of mcp-eval merge: the output file and the
// shard reports.
func ParseMerge(args []string) (out string, shards []string, err error) {
	cfg := Default()
	fs := cfg.opts.FlagSet("merge", option.Merge)
	if err := parseFlags(fs, args); err != nil {
		return "", nil, err
	}
	if cfg.MergeOut == "" || fs.NArg() == 0 {
		return "", nil, exitcode.Usagef("want -o report.json and at least one shard report")
	}
	return cfg.MergeOut, fs.Args(), nil
}

// parseFlags parses args into fs; a bad flag is a usage error in the
// docs' spelling (FlagError), --help is flag.ErrHelp.
func parseFlags(fs *flag.FlagSet, args []string) error {
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return exitcode.Usagef("%s", FlagError(err, fs))
	}
	return nil
}
