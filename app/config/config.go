// Package config is mcp-eval's configuration: the Config of a run and the
// flags of every command (one source for parsing and --help), applied in a
// fixed order (defaults, then mcp-eval.yaml, then the flags, which win),
// the config file's reader (FILE:LINE errors and did-you-mean, as the other
// YAML readers give), validation before any network call, the expansion of
// --header, and the run's secrets (Redactor). It knows no layer's logic and
// does no evaluation: package pipeline runs what a Config describes.
package config

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mcp-eval/mcp-eval/internal/exitcode"
	"github.com/mcp-eval/mcp-eval/mcp"
)

// Config is everything a run needs, from defaults, the config file and
// flags, in that order of precedence (flags win).
type Config struct {
	ServerURL       string
	ServerCmd       string
	ServerStart     string
	StartTimeout    time.Duration
	Headers         ListFlag
	Layers          string
	Golden          string
	Models          string
	Runs            int
	Out             string
	Baseline        string
	MaxDrop         float64
	Timeout         time.Duration
	Format          string
	Shard           string
	Strict          bool
	NoCache         bool
	SafeTools       ListFlag
	ProtocolVersion string
	MaxMessageBytes int64
	Checks          ListFlag
	Concurrency     int
	Verbose         bool
	Quiet           bool
	Color           string
	ConfigPath      string
	Gate            GateFlags
	JudgeModel      string
	JudgePrompt     string
	// The model layers' bounds: each HTTP attempt to a provider, the
	// requests in flight per provider, the wall time of all model runs,
	// and the tool calls run from one model turn.
	ModelTimeout     time.Duration
	ModelConcurrency int
	ModelBudget      time.Duration
	MaxCallsPerTurn  int
	ModelMaxTokens   int
	StubTools        ListFlag
	CacheDir         string
	Payloads         string
	Prices           string
	// Secrets names environment variables whose values are masked in
	// every output, besides the ones mcp-eval knows (secrets: in the config).
	Secrets ListFlag
	// runsSet says --runs came from the command line or the config file,
	// so it overrides the runs a golden file sets.
	runsSet bool
	// BaselineLabel, when set, is how the gate names the baseline in place
	// of the --baseline path (the action: the runs it came from).
	BaselineLabel string
	// flagsSet are the options given on the command line; fileLines holds,
	// for each option the config file set, the file:line of each value, so
	// that a message names the input as the user gave it.
	flagsSet  map[string]bool
	fileLines map[string][]string
}

// Source names where option name came from, as the user gave it: the
// config file and line ("mcp-eval.yaml:4: server-url") or the flag
// ("--server-url"). For a list option, i picks the value.
func (c *Config) Source(name string, i int) string {
	if lines := c.fileLines[name]; len(lines) > 0 {
		return lines[min(i, len(lines)-1)] + ": " + name
	}
	return "--" + name
}

// Default is the configuration before the config file and the flags.
func Default() *Config {
	return &Config{
		StartTimeout:    60 * time.Second,
		CacheDir:        ".mcp-eval-cache",
		Layers:          "auto",
		Golden:          "golden/tasks.yaml",
		Runs:            5,
		Out:             "mcp-eval-report",
		MaxDrop:         0.02,
		Timeout:         10 * time.Second,
		Format:          "text",
		ProtocolVersion: mcp.LatestVersion,
		MaxMessageBytes: mcp.DefaultMaxMessageBytes,
		Concurrency:     8,
		Color:           "auto",
		// Typical provider rate limits (a few requests in flight per key
		// on new accounts) rather than the checks' concurrency.
		ModelTimeout:     60 * time.Second,
		ModelConcurrency: 4,
		MaxCallsPerTurn:  32,
	}
}

// ListFlag is a repeatable flag; each use may also hold a comma list,
// except for --header whose values may contain commas.
type ListFlag struct {
	Vals  []string
	comma bool
}

func (l *ListFlag) String() string { return strings.Join(l.Vals, ",") }

func (l *ListFlag) Set(s string) error {
	if !l.comma {
		l.Vals = append(l.Vals, s)
		return nil
	}
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			l.Vals = append(l.Vals, v)
		}
	}
	return nil
}

// FlagSet binds every option of the run and conformance commands to cfg.
// The same names are the keys of the config file.
func FlagSet(name string, cfg *Config, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.ServerURL, "server-url", cfg.ServerURL, "Streamable HTTP endpoint of the server under test")
	fs.StringVar(&cfg.ServerCmd, "server-cmd", cfg.ServerCmd, "command that runs a stdio server, e.g. 'node server.js'")
	fs.StringVar(&cfg.ServerStart, "server-start", cfg.ServerStart, "command that starts an HTTP server at --server-url; stopped at the end")
	cfg.Headers.comma = false
	fs.Var(&cfg.Headers, "header", "'Name: value' sent on every HTTP request; $VAR expands from the environment; credential headers and $VAR values are masked (repeatable)")
	fs.StringVar(&cfg.Layers, "layers", cfg.Layers, "comma list of conformance, behavior, resilience, telemetry, or auto")
	fs.StringVar(&cfg.Golden, "golden", cfg.Golden, "golden task file (behavior layer)")
	fs.StringVar(&cfg.Models, "models", cfg.Models, "comma list of provider:model (behavior layer)")
	fs.StringVar(&cfg.Out, "out", cfg.Out, "directory for report.json, summary.md and junit.xml")
	fs.StringVar(&cfg.Baseline, "baseline", cfg.Baseline, "baseline report.json to gate against")
	fs.StringVar(&cfg.Format, "format", cfg.Format, "what goes to stdout: text or json")
	fs.StringVar(&cfg.Shard, "shard", cfg.Shard, "i/n: run the i-th of n shards of the golden set")
	fs.BoolVar(&cfg.Strict, "strict", cfg.Strict, "SHOULD-level findings and lint fail the run too")
	fs.BoolVar(&cfg.NoCache, "no-cache", cfg.NoCache, "bypass the result cache")
	cfg.SafeTools.comma = true
	fs.Var(&cfg.SafeTools, "safe-tools", "tools that probes may call besides those marked readOnlyHint (comma list, repeatable)")
	fs.StringVar(&cfg.ProtocolVersion, "protocol-version", cfg.ProtocolVersion, "revision to check: 2026-07-28, or 2025-11-25 for a legacy server while it migrates")
	cfg.Checks.comma = true
	fs.Var(&cfg.Checks, "checks", "run only these check ids or groups (comma list)")
	fs.BoolVar(&cfg.Verbose, "verbose", cfg.Verbose, "show evidence for passing checks too")
	fs.BoolVar(&cfg.Quiet, "quiet", cfg.Quiet, "print only failures and the tally")
	fs.StringVar(&cfg.Color, "color", cfg.Color, "auto, always or never")
	fs.StringVar(&cfg.ConfigPath, "config", cfg.ConfigPath, "config file (default mcp-eval.yaml if present)")
	boundFlags(fs, cfg)
	cfg.Gate.Bind(fs)
	fs.StringVar(&cfg.JudgeModel, "judge-model", cfg.JudgeModel, "provider:model that grades rubrics and semantic arguments, or none (default: the first of --models, with a self-grading warning)")
	fs.DurationVar(&cfg.ModelTimeout, "model-timeout", cfg.ModelTimeout, "deadline of each request to a model provider (retries have their own 2m budget per call)")
	fs.IntVar(&cfg.ModelConcurrency, "model-concurrency", cfg.ModelConcurrency, "model requests in flight at once per provider")
	fs.DurationVar(&cfg.ModelBudget, "model-budget", cfg.ModelBudget, "wall-time budget of all model runs; runs left when it is spent end as errors (0: none)")
	fs.IntVar(&cfg.ModelMaxTokens, "model-max-tokens", cfg.ModelMaxTokens, "token limit of each model answer (0: the provider's default; Anthropic, which requires one, gets 1024)")
	fs.IntVar(&cfg.MaxCallsPerTurn, "max-calls-per-turn", cfg.MaxCallsPerTurn, "tool calls run from one model turn; the excess is answered with an error and reported")
	fs.StringVar(&cfg.JudgePrompt, "judge-prompt", cfg.JudgePrompt, "file with the judge's === grade === and === similar === prompts (default: the built-in judge/judge_prompt.txt); its hash is recorded")
	cfg.StubTools.comma = true
	fs.Var(&cfg.StubTools, "stub-tools", "tools the behavior layer answers with a stub instead of executing them (comma list)")
	fs.StringVar(&cfg.CacheDir, "cache-dir", cfg.CacheDir, "result cache of the model layers")
	fs.StringVar(&cfg.Prices, "prices", cfg.Prices, "YAML price table overriding the built-in one (USD per 1M tokens)")
	fs.StringVar(&cfg.Payloads, "payloads", cfg.Payloads, "prompt-injection payload file for the resilience layer (default: the built-in set)")
	cfg.Secrets.comma = true
	fs.Var(&cfg.Secrets, "secrets", "environment variables whose values are masked in every output, like --header values (comma list)")
	return fs
}

// Parse parses flags, then fills what the flags did not set from the
// config file, then validates.
func Parse(name string, args []string, getenv func(string) string) (*Config, error) {
	cfg := Default()
	fs := FlagSet(name, cfg, io.Discard)
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, exitcode.Usagef("unexpected argument %q (flags take their value after a space or =, and a command with spaces needs quotes)", fs.Arg(0))
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	cfg.flagsSet = set
	if err := applyFile(cfg, fs, set); err != nil {
		return nil, err
	}
	// Set marks flags as visited too, so this covers the config file.
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "runs" {
			cfg.runsSet = true
		}
	})
	return cfg, cfg.validate(getenv)
}

// ParseCommand parses the flags of mcp-eval run or conformance. Conformance
// is run with Layer 0 forced, and refuses the flags of the model layers. A
// golden file given to run without --models is refused as a flag and noted
// on stderr from the config file: it would be silently ignored.
func ParseCommand(cmd string, args []string, getenv func(string) string, stderr io.Writer) (*Config, error) {
	cfg, err := Parse(cmd, args, getenv)
	if err != nil {
		return nil, err
	}
	if cmd == "conformance" {
		for f := range cfg.flagsSet {
			if modelOnlyFlags[f] {
				return nil, exitcode.Usagef("--%s is a flag of mcp-eval run: conformance runs Layer 0 alone, without a model", f)
			}
		}
		cfg.Layers = "conformance"
	} else if cfg.Models == "" && strings.Contains(cfg.Layers, "auto") && (cfg.flagsSet["golden"] || len(cfg.fileLines["golden"]) > 0) {
		msg := fmt.Sprintf("%s is set without --models: the behaviour layer needs a model to run the golden tasks, e.g. --models openai:gpt-4.1-mini", cfg.Source("golden", 0))
		if cfg.flagsSet["golden"] {
			return nil, exitcode.Usagef("%s", msg)
		}
		fmt.Fprintf(stderr, "mcp-eval: note: %s; only the layers without a model run\n", msg)
	}
	return cfg, nil
}

// RunsGiven says --runs came from the command line or the config file, so
// it overrides the runs a golden file sets.
func (c *Config) RunsGiven() bool { return c.runsSet }

// FlagNames are the names of fs's flags, for a did-you-mean.
func FlagNames(fs *flag.FlagSet) []string {
	var out []string
	fs.VisitAll(func(f *flag.Flag) { out = append(out, f.Name) })
	return out
}

// Target and Transport describe the server for telemetry.
func (c *Config) Target() string {
	if c.ServerURL != "" {
		return c.ServerURL
	}
	return c.ServerCmd
}

func (c *Config) Transport() string {
	if c.ServerURL != "" {
		return "http"
	}
	return "stdio"
}

// envSecrets are the environment variables whose values are credentials
