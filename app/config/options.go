package config

import (
	"time"

	"github.com/mcp-eval/mcp-eval/internal/option"
	"github.com/mcp-eval/mcp-eval/mcp"
)

// The option registry: every option of every command, declared once
// (DESIGN.md "Options"). Each part of the program that owns options
// declares them beside the fields they fill — the run's own here, the gate
// policy in gate.go, the model layers in golden (PlanFlags, RunFlags) —
// and declare gathers them in the order the README's table and action.yml
// list them. Flags, --help, mcp-eval.yaml keys, conformance's refusal of
// the model layers' flags, the Action's inputs and the docs all follow.

// The ranges, in one place (README's flag table says the same).
const (
	minTimeout, maxTimeout           = 100 * time.Millisecond, time.Hour
	minStartTimeout, maxStartTimeout = 100 * time.Millisecond, time.Hour
	maxRuns                          = 1000
	maxConcurrency                   = 256
	minMessageBytes, maxMessageBytes = 1 << 10, 1 << 30
	maxIncrease                      = 100 // +10 000 %
)

// The stdout formats (--format of run, conformance and gate).
const (
	FormatText = "text"
	FormatJSON = "json"
)

// declare binds every option to c, with its default.
func (c *Config) declare() *option.Set {
	s := &option.Set{}
	c.declareServer(s)
	c.OAuth.declare(s)
	c.AuthChecks.declare(s)
	c.TraceChecks.declare(s)
	c.declareRun(s)
	c.declareGate(s)
	c.PlanFlags.Declare(s)
	c.RunFlags.Declare(s)
	c.SelectFlags.Declare(s)
	c.declareFiles(s)
	c.declareOutput(s)
	return s
}

// declareServer: the server under test and how to reach it.
func (c *Config) declareServer(s *option.Set) {
	s.Add(option.Def{Name: "server-url", Help: "`URL` of the Streamable HTTP endpoint of the server under test; repeat it for each replica behind the same name",
		Doc:   "Streamable HTTP endpoint; given again (in the config file: a list), each further URL is a replica of the same server, whose tool surface `surface/replicas` compares with the first's (with `--oauth-*`, each replica gets a token of its own for the resource its metadata names)",
		Input: &option.Input{Doc: "Streamable HTTP endpoint of the server under test: a service container by its label (http://server:8080/mcp) or the host gateway. One of server-url and server-cmd is required (or set in config)."}},
		&serverURLs{first: &c.ServerURL, rest: &c.Replicas})
	s.Add(option.Def{Name: "server-cmd", Help: "`command` that runs a stdio server, e.g. 'node server.js'",
		Doc:   "stdio server to launch (split like a shell would, not run through one: POSIX quotes and backslashes only, nothing expanded or redirected: `;` `|` `>` are plain arguments, so use `sh -c '…'` for shell syntax); its stderr goes to `OUT/server.log`",
		Input: &option.Input{Doc: "Command that runs a stdio server inside the action's container. The image has no Node or Python: for such servers run the released mcp-eval binary in a run step (see the README)."}},
		option.String(&c.ServerCmd, ""))
	s.Add(option.Def{Name: "server-start", Help: "`command` that starts an HTTP server at --server-url; stopped at the end",
		Doc:   "shell command that starts an HTTP server at `--server-url`; mcp-eval waits until it answers (`--start-timeout`) and stops it at the end, with anything it left running outside its process group (named in a warning)",
		Input: &option.Input{Doc: "Command that starts an HTTP server at server-url inside the container (split like server-cmd, since the image has no shell); stopped at the end."}},
		option.String(&c.ServerStart, ""))
	s.Add(option.Def{Name: "start-timeout", Help: "how long the server may take to start and answer its first request: a `duration` from 100ms to 1h",
		Doc: "how long a server may take to start: `--server-start` until it answers HTTP, `--server-cmd` until its first answer (progress on stderr every 5 s for both); `--timeout` applies after it (100ms to 1h)"},
		option.Duration(&c.StartTimeout, 60*time.Second, minStartTimeout, maxStartTimeout))
	s.Add(option.Def{Name: "header", Help: "`header` 'Name: value' sent on every HTTP request; $VAR expands from the environment; credential headers and $VAR values are masked (repeatable)",
		Doc:    "sent on every HTTP request, repeatable; `$VAR` expands from the environment (an unset variable is an error); credential headers and `$VAR` values are masked in every output (DESIGN.md: which header values are secrets); with `--server-cmd` a warning says the stdio server never sees it (give it credentials in its environment)",
		Secret: true,
		Input:  &option.Input{Name: "headers", Lines: true, Doc: "HTTP headers sent to the server, one 'Name: value' per line; $VAR expands from the environment; credential headers (Authorization, Cookie, *-Key, *-Token, *-Secret…) and $VAR values are masked, others are shown."}},
		option.List(&c.Headers.Vals, false))
	s.Add(option.Def{Name: "secrets", Help: "environment `variables` whose values are masked in every output, like --header values (comma list)",
		Doc: "environment variables whose values are masked like `--header` values (`secrets: [MY_TOKEN]` in `mcp-eval.yaml`)"},
		option.List(&c.Secrets.Vals, true))
	s.Add(option.Def{Name: "timeout", Help: "timeout of each request to the server; one list's walk over all its pages gets twice it (at most 1m): a `duration` from 100ms to 1h",
		Doc:   "timeout of each request; one list's walk over its pages gets twice it, at most 1m (100ms to 1h; a duration with its unit)",
		Input: &option.Input{Doc: "Timeout of each request to the server (one list's walk over all its pages gets twice it, at most 1m), a Go duration."}},
		option.Duration(&c.Timeout, 10*time.Second, minTimeout, maxTimeout))
	s.Add(option.Def{Name: "max-message-bytes", Help: "largest answer read from the server: a `size` in bytes or with KiB, MiB, GiB, from 1KiB to 1GiB",
		Doc: "largest answer read (1KiB to 1GiB; `16MiB` or a number of bytes)"},
		option.Size(&c.MaxMessageBytes, mcp.DefaultMaxMessageBytes, minMessageBytes, maxMessageBytes))
	s.Add(option.Def{Name: "safe-tools", Help: "`tools` that probes may call besides those marked readOnlyHint (comma list, repeatable)",
		Doc:    "tools that probes may call besides those marked readOnlyHint (comma list, repeatable); a name the server does not list is a warning with the nearest tool it does",
		Layers: []string{option.LayerConformance, option.LayerResilience},
		Input:  &option.Input{List: true, Doc: "Comma list of tools conformance probes may call besides those marked readOnlyHint."}},
		option.List(&c.SafeTools.Vals, true))
	s.Add(option.Def{Name: "protocol-version", Help: "protocol `revision` to check (the legacy one for a server while it migrates)",
		Input: &option.Input{Doc: "Revision to check: 2026-07-28, or 2025-11-25 for a legacy server while it migrates."}},
		option.Enum(&c.ProtocolVersion, mcp.LatestVersion, mcp.LatestVersion, mcp.LegacyVersion))
}

// declareRun: what runs, and how often.
func (c *Config) declareRun(s *option.Set) {
	s.Add(option.Def{Name: "layers", Help: "comma `list` of conformance, behavior, resilience, telemetry, or auto",
		Doc:      "conformance, behavior, resilience, telemetry (auto: conformance, plus the other three with `--models`)",
		Commands: []string{option.Run},
		Input:    &option.Input{Default: "auto", Own: true, Doc: "Comma list of conformance, behavior, resilience, telemetry, or auto: conformance on every event, the model layers on schedule, workflow_dispatch, or a pull request carrying eval-label (never on fork or Dependabot pull requests)."}},
		option.String(&c.Layers, "auto"))
	s.Add(option.Def{Name: "runs", Help: "how many times each check and case runs: a `number` from 1 to 1000",
		Doc:   "runs of every check and case (1 to 1000)",
		Input: &option.Input{Doc: "How many times each check and case runs."}},
		option.Int(&c.Runs, 5, 1, maxRuns))
	s.Add(option.Def{Name: "concurrency", Help: "checks in flight at once: a `number` from 1 to 256",
		Doc: "checks in flight at once (1 to 256)"},
		option.Int(&c.Concurrency, 8, 1, maxConcurrency))
	s.Add(option.Def{Name: "checks", Help: "run only these check `ids` or groups (comma list)",
		Doc:    "only these check ids or groups",
		Layers: []string{option.LayerConformance}},
		option.List(&c.Checks.Vals, true))
	s.Add(option.Def{Name: "strict", Help: "SHOULD-level findings and lint fail the run too",
		Commands: []string{option.Run, option.Conformance, option.Gate},
		Input:    &option.Input{Doc: "SHOULD-level findings and lint fail the run too (true or false)."}},
		option.Bool(&c.Strict, false))
	s.Add(option.Def{Name: "config", Help: "config `file` (default mcp-eval.yaml if present)",
		Doc: "the config file", Default: "`mcp-eval.yaml` if present",
		Input: &option.Input{Doc: "mcp-eval.yaml to read; inputs win over it."}},
		option.String(&c.ConfigPath, ""))
	s.Add(option.Def{Name: "dry-run", Help: "validate the golden file against the live server and print the plan and its estimated cost, without calling a model (no key needed)",
		Doc:      "validate the golden file against the live server and print the plan and its estimated cost; no model is called and no key is needed",
		Commands: []string{option.Run},
		Input:    &option.Input{Doc: "Validate the golden file against the server and write the plan and its estimated cost to the job summary, without calling a model or needing a key (true or false)."}},
		option.Bool(&c.DryRun, false))
}

// declareGate: the gate's inputs and policy, shared with mcp-eval gate.
func (c *Config) declareGate(s *option.Set) {
	s.Add(option.Def{Name: "report", Help: "report.json `file` of this run", Commands: []string{option.Gate}},
		option.String(&c.Report, ""))
	s.Add(option.Def{Name: "baseline", Help: "baseline report.json `file` to gate against (the last green run's)",
		Doc:      "gate against a previous `report.json`",
		Commands: []string{option.Run, option.Conformance, option.Gate}},
		option.String(&c.Baseline, ""))
	s.Add(option.Def{Name: "max-drop", Help: "largest allowed drop of a score against the baseline: a `fraction` from 0 to 1",
		Doc:      "largest allowed score drop against the baseline (a model-driven drop with an unchanged server fingerprint only warns unless `--drift fail`; see the gate table below)",
		Commands: []string{option.Run, option.Conformance, option.Gate},
		Input:    &option.Input{Doc: "Largest allowed drop of a score against the baseline, a fraction (0.02 is two points)."}},
		option.Float(&c.MaxDrop, 0.02, 0, 1, "a fraction (0.02 is two points)"))
	c.Gate.declare(s)
}

// declareFiles: the data files of Layers 2 and 3.
func (c *Config) declareFiles(s *option.Set) {
	s.Add(option.Def{Name: "payloads", Help: "prompt-injection payload `file` for the resilience layer (default: the built-in set)",
		Doc: "prompt-injection payloads for the resilience layer", Default: "built-in", Layers: []string{option.LayerResilience}},
		option.String(&c.Payloads, ""))
	s.Add(option.Def{Name: "prices", Help: "YAML price table `file` overriding the built-in one (USD per 1M tokens)",
		Doc: "price table for the telemetry layer", Default: "built-in", Layers: []string{option.LayerTelemetry}},
		option.String(&c.Prices, ""))
}

// declareOutput: what is written, and where.
func (c *Config) declareOutput(s *option.Set) {
	s.Add(option.Def{Name: "out", Help: "`directory` for report.json, summary.md, junit.xml and the other outputs",
		Doc:   "where outputs go",
		Input: &option.Input{Doc: "Directory for report.json, summary.md, junit.xml and results.sarif, relative to the workspace."}},
		option.String(&c.Out, "mcp-eval-report"))
	s.Add(option.Def{Name: "format", Help: "what goes to stdout", Commands: []string{option.Run, option.Conformance, option.Gate}},
		option.Enum(&c.Format, FormatText, FormatText, FormatJSON))
	s.Add(option.Def{Name: "verbose", Help: "show evidence for passing checks too"}, option.Bool(&c.Verbose, false))
	s.Add(option.Def{Name: "quiet", Help: "print only failures and the tally"}, option.Bool(&c.Quiet, false))
	s.Add(option.Def{Name: "color", Help: "colour on stderr and stdout (only on a terminal, never with NO_COLOR)"},
		option.Enum(&c.Color, "auto", "auto", "always", "never"))
	s.Add(option.Def{Name: "o", Help: "`file` to write the merged report.json to", Commands: []string{option.Merge}},
		option.String(&c.MergeOut, ""))
}

// serverURLs is --server-url's value: the first use is the server under
// test, each further use a replica of it behind the same name.
type serverURLs struct {
	first *string
	rest  *[]string
}

func (u *serverURLs) String() string {
	if u == nil || u.first == nil {
		return ""
	}
	return *u.first
}

// IsListFlag: in the config file, server-url takes a list (the server,
// then its replicas), each item a use of the flag.
func (u *serverURLs) IsListFlag() bool { return true }

func (u *serverURLs) Set(s string) error {
	if *u.first == "" {
		*u.first = s
		return nil
	}
	*u.rest = append(*u.rest, s)
	return nil
}
