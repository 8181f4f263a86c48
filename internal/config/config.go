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
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/mcp-eval/mcp-eval/conformance"
	"github.com/mcp-eval/mcp-eval/internal/exitcode"
	"github.com/mcp-eval/mcp-eval/internal/redact"
	"github.com/mcp-eval/mcp-eval/internal/suggest"
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
	fs.Var(&cfg.Headers, "header", "'Name: value' sent on every HTTP request; $VAR expands from the environment; values are masked (repeatable)")
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

// FlagNames are the names of fs's flags, for a did-you-mean.
func FlagNames(fs *flag.FlagSet) []string {
	var out []string
	fs.VisitAll(func(f *flag.Flag) { out = append(out, f.Name) })
	return out
}

var knownLayers = map[string]bool{"conformance": true, "behavior": true, "resilience": true, "telemetry": true, "auto": true}

// layerAliases are other spellings of a layer that --layers accepts.
var layerAliases = map[string]string{"behaviour": "behavior"}

func (c *Config) validate(getenv func(string) string) error {
	src := func(name string) string { return c.Source(name, 0) }
	switch {
	case c.ServerURL == "" && c.ServerCmd == "":
		return exitcode.Usagef("no server: give --server-url URL or --server-cmd 'CMD ARGS'")
	case c.ServerURL != "" && c.ServerCmd != "":
		return exitcode.Usagef("%s and %s are exclusive: give one server", src("server-url"), src("server-cmd"))
	case c.ServerStart != "" && c.ServerURL == "":
		return exitcode.Usagef("%s needs --server-url: the address the started server answers at", src("server-start"))
	case c.Format != "text" && c.Format != "json":
		return exitcode.Usagef("%s must be text or json, got %q", src("format"), c.Format)
	case c.Color != "auto" && c.Color != "always" && c.Color != "never":
		return exitcode.Usagef("%s must be auto, always or never, got %q", src("color"), c.Color)
	case c.ProtocolVersion != mcp.LatestVersion && c.ProtocolVersion != mcp.LegacyVersion:
		return exitcode.Usagef("%s must be %s or %s, got %q", src("protocol-version"), mcp.LatestVersion, mcp.LegacyVersion, c.ProtocolVersion)
	case c.ModelTimeout < time.Second || c.ModelTimeout > time.Hour:
		return exitcode.Usagef("%s must be between 1s and 1h, got %v", src("model-timeout"), c.ModelTimeout)
	case c.ModelConcurrency < 1 || c.ModelConcurrency > 256:
		return exitcode.Usagef("%s must be between 1 and 256, got %d", src("model-concurrency"), c.ModelConcurrency)
	case c.ModelBudget < 0 || c.ModelBudget > 24*time.Hour:
		return exitcode.Usagef("%s must be between 0 (none) and 24h, got %v", src("model-budget"), c.ModelBudget)
	case c.ModelMaxTokens < 0 || c.ModelMaxTokens > 1<<20:
		return exitcode.Usagef("%s must be between 0 (provider default) and 1048576, got %d", src("model-max-tokens"), c.ModelMaxTokens)
	case c.MaxCallsPerTurn < 1 || c.MaxCallsPerTurn > 1000:
		return exitcode.Usagef("%s must be between 1 and 1000, got %d", src("max-calls-per-turn"), c.MaxCallsPerTurn)
	}
	if c.ServerURL != "" && !strings.HasPrefix(c.ServerURL, "http://") && !strings.HasPrefix(c.ServerURL, "https://") {
		return exitcode.Usagef("%s must be an http:// or https:// URL, got %q", src("server-url"), c.ServerURL)
	}
	for _, l := range strings.Split(c.Layers, ",") {
		l = strings.TrimSpace(l)
		if knownLayers[l] || layerAliases[l] != "" {
			continue
		}
		msg := fmt.Sprintf("%s: unknown layer %q (want conformance, behavior, resilience, telemetry or auto)", src("layers"), l)
		if s := suggest.Nearest(l, slices.Sorted(maps.Keys(knownLayers))); s != "" {
			msg = fmt.Sprintf("%s: unknown layer %q (did you mean %q?)", src("layers"), l, s)
		}
		return exitcode.Usagef("%s", msg)
	}
	if _, err := c.ExpandHeaders(getenv); err != nil {
		return err
	}
	if err := c.validateChecks(); err != nil {
		return err
	}
	for i, v := range c.Secrets.Vals {
		if !envName.MatchString(v) {
			// Not quoted back: a value pasted by mistake may be the secret.
			return exitcode.Usagef("--secrets: entry number %d is not an environment variable name (want names such as MY_SERVICE_TOKEN, not their values)", i+1)
		}
	}
	return nil
}

// validateChecks refuses a --checks entry that names no conformance check
// or group: a typo would otherwise select nothing and pass.
func (c *Config) validateChecks() error {
	known := map[string]bool{}
	for _, ch := range conformance.Checks() {
		known[ch.ID], known[ch.Group()] = true, true
	}
	for i, v := range c.Checks.Vals {
		if known[v] {
			continue
		}
		msg := fmt.Sprintf("%s: unknown check or group %q (docs/checks.md lists them)", c.Source("checks", i), v)
		if s := suggest.Nearest(v, slices.Sorted(maps.Keys(known))); s != "" {
			msg = fmt.Sprintf("%s: unknown check or group %q (did you mean %q?)", c.Source("checks", i), v, s)
		}
		return exitcode.Usagef("%s", msg)
	}
	return nil
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Header is one --header after $VAR expansion.
type Header struct{ Name, Value string }

// ExpandHeaders parses --header values, expanding $VAR and ${VAR} from the
// environment. An unset variable is an error naming it: sending an empty
// Authorization header would fail later in a far less clear way.
func (c *Config) ExpandHeaders(getenv func(string) string) ([]Header, error) {
	var out []Header
	for i, h := range c.Headers.Vals {
		name, value, ok := strings.Cut(h, ":")
		name = strings.TrimSpace(name)
		src := c.Source("header", i)
		if len(c.fileLines["header"]) == 0 {
			src = fmt.Sprintf("--header number %d", i+1)
		}
		if !ok || name == "" || strings.ContainsAny(name, " \t") {
			// The value is not quoted back: it may be the credential itself.
			return nil, exitcode.Usagef("%s: want 'Name: value' (the value is not shown: it may be a secret)", src)
		}
		var missing string
		value = os.Expand(strings.TrimSpace(value), func(v string) string {
			s := getenv(v)
			if s == "" && missing == "" {
				missing = v
			}
			return s
		})
		if missing != "" {
			return nil, exitcode.Configf("%s (%s): environment variable %s is not set", src, name, missing)
		}
		out = append(out, Header{name, value})
	}
	return out, nil
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
// wherever mcp-eval runs: the model API keys and the GitHub token.
var envSecrets = []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "INPUT_GITHUB-TOKEN", "GITHUB_TOKEN"}

// EnvRedactor masks the credentials of the environment alone, for what is
// printed before the configuration is read. A short value ("ollama" for a
// local server) is no credential worth masking and is left as it is rather
// than failing the run.
func EnvRedactor(getenv func(string) string) *redact.Redactor {
	var secrets []redact.Secret
	for _, v := range envSecrets {
		if val := strings.TrimSpace(getenv(v)); len(val) >= redact.MinLen {
			secrets = append(secrets, redact.Secret{Source: v, Value: val})
		}
	}
	r, _ := redact.New(secrets...)
	return r
}

// Redactor knows every secret of the run: each --header value after $VAR
// expansion (and the credential alone, without a scheme such as "Bearer"),
// the variables --secrets (secrets: in the config file) names, the model
// API keys and the GitHub token. A header or --secrets value shorter than
// redact.MinLen is refused: it cannot be masked without masking ordinary
// text. Model keys and tokens are treated as EnvRedactor does.
func (c *Config) Redactor(getenv func(string) string) (*redact.Redactor, error) {
	hs, err := c.ExpandHeaders(getenv)
	if err != nil {
		return nil, err
	}
	var secrets []redact.Secret
	for _, h := range hs {
		src := "--header " + h.Name
		secrets = append(secrets, redact.Secret{Source: src, Value: h.Value})
		if _, cred, ok := strings.Cut(h.Value, " "); ok {
			secrets = append(secrets, redact.Secret{Source: src + " (the credential after its scheme)", Value: strings.TrimSpace(cred)})
		}
	}
	for _, v := range c.Secrets.Vals {
		// An unset variable has nothing to mask: a fork's pull request runs
		// without the repository's secrets, and that is no error.
		secrets = append(secrets, redact.Secret{Source: "--secrets " + v, Value: strings.TrimSpace(getenv(v))})
	}
	for _, v := range envSecrets {
		if val := strings.TrimSpace(getenv(v)); len(val) >= redact.MinLen {
			secrets = append(secrets, redact.Secret{Source: v, Value: val})
		}
	}
	r, err := redact.New(secrets...)
	if err != nil {
		return nil, exitcode.Config(err)
	}
	return r, nil
}

// ResolvedLayers resolves --layers: auto means conformance, plus the model layers
// when --models is given.
func (c *Config) ResolvedLayers() []string {
	var out []string
	seen := map[string]bool{}
	add := func(l string) {
		if !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	for _, l := range strings.Split(c.Layers, ",") {
		l = strings.TrimSpace(l)
		if a := layerAliases[l]; a != "" {
			l = a
		}
		switch l {
		case "auto":
			add("conformance")
			if c.Models != "" {
				add("behavior")
				add("resilience")
				add("telemetry")
			}
		default:
			add(l)
		}
	}
	return out
}
