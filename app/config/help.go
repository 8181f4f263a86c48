package config

import (
	"flag"
	"fmt"
	"io"
	"slices"

	"github.com/mcp-eval/mcp-eval/internal/option"
)

// Usage is the text of mcp-eval --help.
const Usage = `mcp-eval evaluates a Model Context Protocol server before it ships.

Usage:
  mcp-eval init        --server-url URL | --server-cmd 'CMD ARGS' [--models M] [--force]
  mcp-eval conformance --server-url URL | --server-cmd 'CMD ARGS' | --server-start 'CMD' --server-url URL [flags]
  mcp-eval run         --server-url URL | --server-cmd 'CMD ARGS' | --server-start 'CMD' --server-url URL [flags]
  mcp-eval gate        --report report.json [--baseline baseline.json] [--max-drop 0.02]
  mcp-eval merge       -o report.json shard1.json shard2.json ...
  mcp-eval action      (the GitHub Action's entry point: INPUT_* and GITHUB_*)
  mcp-eval version

conformance is run --layers conformance: Layer 0, deterministic, no model.
Run mcp-eval CMD --help for the flags of CMD (also keys of mcp-eval.yaml).

Exit codes: 0 all gates pass · 1 a check or case counted against the run, or
a gate failed · 2 usage or configuration error · 3 the server could not be
started or reached.
`

// Commands are the subcommands, with the synopsis their --help starts with.
var Commands = map[string]string{
	"conformance": "mcp-eval conformance --server-url URL | --server-cmd 'CMD ARGS' | --server-start 'CMD' --server-url URL [flags]\n\nLayer 0 alone: the deterministic protocol checks, no model.",
	"run":         "mcp-eval run --server-url URL | --server-cmd 'CMD ARGS' | --server-start 'CMD' --server-url URL [flags]\n\nThe layers --layers selects; the model layers need --models.",
	"gate":        "mcp-eval gate --report report.json [--baseline baseline.json] [flags]\n\nThe gate alone, on a report and its baseline: every score's delta, the notes, and the rule that decided.",
	"merge":       "mcp-eval merge -o report.json shard1.json shard2.json ...\n\nJoins the reports of --shard runs of one server into one report to gate on.",
	"action":      "mcp-eval action\n\nThe GitHub Action's entry point: configured by INPUT_* (in host mode, the same inputs as flags) and the GITHUB_* environment.",
	"version":     "mcp-eval version\n\nPrints the version.",
	"init":        "mcp-eval init --server-url URL | --server-cmd 'CMD ARGS' [--models provider:model] [--force]\n\nConnects to the server and writes mcp-eval.yaml, a draft golden/tasks.yaml (a case per tool, a negative case, a case per near-duplicate pair, all draft: true) and a GitHub Actions workflow; nothing that exists is replaced without --force.",
}

// PrintHelp writes cmd's synopsis and exactly its flags.
func PrintHelp(cmd string, w io.Writer) {
	fmt.Fprintf(w, "Usage: %s\n", Commands[cmd])
	fs := commandFlags(cmd)
	if fs == nil {
		return
	}
	if cmd != option.Run && cmd != option.Conformance {
		fmt.Fprint(w, "\nFlags:\n")
		fs.SetOutput(w)
		fs.PrintDefaults()
		return
	}
	// run and conformance take dozens of flags: grouped by what a user
	// is doing, each with its default, in the order of flagGroups.
	byGroup := map[string][]*flag.Flag{}
	fs.VisitAll(func(f *flag.Flag) {
		g := "other"
		for _, grp := range flagGroups {
			if slices.Contains(grp.flags, f.Name) {
				g = grp.title
			}
		}
		byGroup[g] = append(byGroup[g], f)
	})
	for _, grp := range append(flagGroups, flagGroup{title: "other"}) {
		flags := byGroup[grp.title]
		if len(flags) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s:\n", grp.title)
		// A flag set of the group's flags prints them as flag does.
		sub := flag.NewFlagSet(cmd, flag.ContinueOnError)
		for _, f := range flags {
			sub.Var(f.Value, f.Name, f.Usage)
		}
		sub.SetOutput(w)
		sub.PrintDefaults()
	}
}

// flagGroup is a heading of run's and conformance's --help and its flags.
type flagGroup struct {
	title string
	flags []string
}

// flagGroups orders --help by purpose; a flag in none is listed under
// "other".
var flagGroups = []flagGroup{
	{"The server", []string{"server-url", "server-cmd", "server-start", "start-timeout", "header", "timeout", "protocol-version", "max-message-bytes", "safe-tools", "stub-tools", "otlp-receiver"}},
	{"Its authorization (OAuth)", []string{"oauth-client-id", "oauth-client-secret", "oauth-scope", "oauth-federation", "oauth-assertion", "oauth-assertion-file", "oauth-scope-insufficient", "oauth-other-resource", "passthrough-listener"}},
	{"What runs", []string{"layers", "checks", "runs", "concurrency", "config", "shard", "dry-run", "payloads", "secrets", "select", "sample", "rerun-failed"}},
	{"Models (behaviour, resilience)", []string{"models", "golden", "judge-model", "judge-prompt", "model-budget", "model-concurrency", "model-max-tokens", "model-retry-budget", "model-timeout", "max-calls-per-turn", "max-runs", "batch", "prices", "cache-dir", "no-cache"}},
	{"The gate", []string{"gate", "alpha", "baseline", "waivers", "strict", "max-drop", "max-cost-increase", "max-latency-increase", "perf-gate", "ratchet", "require-significance", "drift"}},
	{"Output", []string{"out", "format", "quiet", "verbose", "color"}},
}

// commandFlags is the flag set of cmd as its --help shows it, nil for a
// command without flags.
func commandFlags(cmd string) *flag.FlagSet {
	switch cmd {
	case option.Run, option.Conformance, option.Gate, option.Merge:
		return Options().FlagSet(cmd, cmd)
	case "init":
		return InitFlagSet(Default(), &InitOptions{}, io.Discard)
	}
	return nil
}
