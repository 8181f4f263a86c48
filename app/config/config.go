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
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/mcp-eval/mcp-eval/golden"
	"github.com/mcp-eval/mcp-eval/internal/exitcode"
	"github.com/mcp-eval/mcp-eval/internal/option"
)

// Config is everything a run needs, from defaults, the config file and
// flags, in that order of precedence (flags win). Each option is declared
// once (options.go, with the gate's in gate.go and the model layers' in
// golden.PlanFlags and golden.RunFlags), bound to a field here.
type Config struct {
	ServerURL string
	// Replicas are the --server-url given after the first: other
	// endpoints of the same server (surface/replicas compares them).
	Replicas        []string
	ServerCmd       string
	ServerStart     string
	StartTimeout    time.Duration
	Headers         ListFlag
	Layers          string
	Runs            int
	Out             string
	Baseline        string
	MaxDrop         float64
	Timeout         time.Duration
	Format          string
	Strict          bool
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
	// The model layers' options: the plan's (golden set, models, judge,
	// the providers' bounds) and the runs' (budget, caps, stubs, cache).
	golden.PlanFlags
	golden.RunFlags
	// SelectFlags: --select, --sample, --rerun-failed.
	golden.SelectFlags
	Payloads string
	Prices   string
	// Secrets names environment variables whose values are masked in
	// every output, besides the ones mcp-eval knows (secrets: in the config).
	Secrets ListFlag
	// Report is mcp-eval gate's report; MergeOut mcp-eval merge's -o.
	Report, MergeOut string
	// DryRun is --dry-run: validate the golden file against the live
	// server and print the plan and its estimated cost; no model call.
	DryRun bool
	// OAuth holds the --oauth-* options (oauth.go).
	OAuth OAuthFlags
	// AuthChecks holds the auth probes' options (authchecks.go).
	AuthChecks AuthCheckFlags
	// TraceChecks holds the trace checks' option (tracechecks.go).
	TraceChecks TraceCheckFlags
	// runsSet says --runs came from the command line or the config file,
	// so it overrides the runs a golden file sets.
	runsSet bool
	// BaselineLabel, when set, is how the gate names the baseline in place
	// of the --baseline path (the action: the runs it came from).
	BaselineLabel string
	// opts are the options bound to this Config's fields.
	opts *option.Set
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

// Default is the configuration before the config file and the flags: every
// option at the default its declaration gives.
func Default() *Config {
	c := &Config{}
	c.opts = c.declare()
	return c
}

// ListFlag holds the values of a list option (repeatable, and a comma
// list except for --header, whose values may contain commas).
type ListFlag struct {
	Vals []string
}

// Options are every option of every command (the registry), bound to a
// Config of defaults: for the docs, action.yml and the Action's inputs.
func Options() *option.Set { return Default().opts }

// FlagSet binds the options of command cmd (run or conformance) to cfg, a
// Config made by Default.
func FlagSet(name, cmd string, cfg *Config, stderr io.Writer) *flag.FlagSet {
	fs := cfg.opts.FlagSet(name, cmd)
	fs.SetOutput(stderr)
	return fs
}

// Parse parses flags, then fills what the flags did not set from the
// config file, then validates.
func Parse(name string, args []string, getenv func(string) string) (*Config, error) {
	cfg := Default()
	fs := FlagSet(name, option.Run, cfg, io.Discard)
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, exitcode.Usagef("unexpected argument %q (flags take their value after a space or =, and a command with spaces needs quotes)", fs.Arg(0))
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	cfg.flagsSet = set
	if err := cfg.applyFile(fs, set); err != nil {
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
	if cmd == option.Conformance {
		for _, f := range slices.Sorted(maps.Keys(cfg.flagsSet)) {
			if !cfg.opts.Lookup(f).For(option.Conformance) {
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
