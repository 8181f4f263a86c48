package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"runtime/debug"
	"slices"

	"github.com/mcp-eval/mcp-eval/internal/suggest"
)

const usageText = `mcp-eval evaluates a Model Context Protocol server before it ships.

Usage:
  mcp-eval conformance --server-url URL | --server-cmd 'CMD ARGS' [flags]
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

// commands are the subcommands, with the synopsis their --help starts with.
var commands = map[string]string{
	"conformance": "mcp-eval conformance --server-url URL | --server-cmd 'CMD ARGS' [flags]\n\nLayer 0 alone: the deterministic protocol checks, no model.",
	"run":         "mcp-eval run --server-url URL | --server-cmd 'CMD ARGS' | --server-start 'CMD' --server-url URL [flags]\n\nThe layers --layers selects; the model layers need --models.",
	"gate":        "mcp-eval gate --report report.json [--baseline baseline.json] [flags]\n\nThe gate alone, on a report and its baseline: every score's delta, the notes, and the rule that decided.",
	"merge":       "mcp-eval merge -o report.json shard1.json shard2.json ...\n\nJoins the reports of --shard runs of one server into one report to gate on.",
	"action":      "mcp-eval action\n\nThe GitHub Action's entry point: configured by INPUT_* and the GITHUB_* environment, no flags.",
	"version":     "mcp-eval version\n\nPrints the version.",
}

// version is set at release with -ldflags "-X main.version=…".
var version = ""

func toolVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// exitError carries an exit code chosen deep in a command.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

// run is the whole program, with its inputs injected so tests can drive it.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	// Everything printed on stderr (warnings, progress, error messages) is
	// masked: the environment's credentials from the start, and each run
	// masks its own secrets too (evaluate). Stdout is left alone: the Action
	// prints its ::add-mask:: commands there, and evaluate masks the report.
	errw := envRedactor(getenv).Writer(stderr)
	defer errw.Flush()
	stderr = errw
	if len(args) == 0 {
		fmt.Fprint(stderr, usageText)
		return 2
	}
	cmd, rest := args[0], args[1:]
	var err error
	switch cmd {
	case "version", "--version", "-version":
		fmt.Fprintf(stdout, "mcp-eval %s\n", toolVersion())
		return 0
	case "help", "--help", "-h", "-help":
		if len(rest) > 0 && commands[rest[0]] != "" {
			printHelp(rest[0], stdout)
		} else {
			fmt.Fprint(stdout, usageText)
		}
		return 0
	case "conformance":
		err = runCommand(ctx, cmd, rest, getenv, stdout, stderr, "conformance")
	case "run":
		err = runCommand(ctx, cmd, rest, getenv, stdout, stderr, "")
	case "gate":
		err = gateCommand(rest, stdout, stderr)
	case "action":
		if wantsHelp(rest) {
			err = flag.ErrHelp
		} else {
			err = actionCommand(ctx, rest, getenv, stdout, stderr)
		}
	case "merge":
		err = mergeCommand(rest, stdout)
	default:
		msg := fmt.Sprintf("mcp-eval: unknown command %q", cmd)
		if s := suggest.Nearest(cmd, slices.Sorted(maps.Keys(commands))); s != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", s)
		}
		fmt.Fprintf(stderr, "%s\nrun mcp-eval --help for the commands\n", msg)
		return 2
	}
	if errors.Is(err, flag.ErrHelp) {
		printHelp(cmd, stdout)
		return 0
	}
	return exitCode(cmd, err, stderr)
}

// wantsHelp reports whether args ask for --help.
func wantsHelp(args []string) bool {
	for _, a := range args {
		if a == "-h" || a == "-help" || a == "--help" {
			return true
		}
	}
	return false
}

// exitCode maps an error to DESIGN.md's exit codes, in one place. A usage
// error is one line and a pointer to the command's --help, not the whole
// usage: the mistake stays visible.
func exitCode(cmd string, err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	var ue *usageError
	var ce *configError
	var ee *exitError
	switch {
	case errors.As(err, &ue) && cmd == "action":
		// The Action's flags come from its inputs, named in the message.
		fmt.Fprintf(stderr, "mcp-eval: %v\ncheck the step's with: inputs (action.yml lists them)\n", err)
		return 2
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "mcp-eval: %v\nrun mcp-eval %s --help for its flags\n", err, cmd)
		return 2
	case errors.As(err, &ce):
		fmt.Fprintf(stderr, "mcp-eval: %v\n", err)
		return 2
	case errors.As(err, &ee):
		// err, not ee.msg: a redacted error wraps the exitError, and its
		// text is the one with the secrets masked.
		if ee.msg != "" {
			fmt.Fprintf(stderr, "mcp-eval: %v\n", err)
		}
		return ee.code
	}
	fmt.Fprintf(stderr, "mcp-eval: %v\n", err)
	return 1
}

// printHelp writes cmd's synopsis and exactly its flags.
func printHelp(cmd string, w io.Writer) {
	fmt.Fprintf(w, "Usage: %s\n", commands[cmd])
	fs := commandFlags(cmd)
	if fs == nil {
		return
	}
	fmt.Fprint(w, "\nFlags:\n")
	fs.SetOutput(w)
	fs.PrintDefaults()
}

// commandFlags is the flag set of cmd as its --help shows it, nil for a
// command without flags.
func commandFlags(cmd string) *flag.FlagSet {
	switch cmd {
	case "run":
		return flagSet("run", defaultConfig(), io.Discard)
	case "conformance":
		all := flagSet("conformance", defaultConfig(), io.Discard)
		fs := flag.NewFlagSet("conformance", flag.ContinueOnError)
		all.VisitAll(func(f *flag.Flag) {
			if !modelOnlyFlags[f.Name] {
				fs.Var(f.Value, f.Name, f.Usage)
			}
		})
		return fs
	case "gate":
		fs, _ := gateFlagSet()
		return fs
	case "merge":
		fs, _ := mergeFlagSet()
		return fs
	}
	return nil
}

// modelOnlyFlags are the flags of run that conformance (Layer 0 alone, no
// model) does not take.
var modelOnlyFlags = map[string]bool{
	"layers": true, "golden": true, "models": true, "judge-model": true, "stub-tools": true,
	"cache-dir": true, "no-cache": true, "shard": true, "payloads": true, "prices": true,
}

// fileOf returns the file behind w, looking through redacting writers, so
// that a masked stderr still says whether it is a terminal.
func fileOf(w io.Writer) (*os.File, bool) {
	for {
		switch x := w.(type) {
		case *os.File:
			return x, true
		case interface{ Unwrap() io.Writer }:
			w = x.Unwrap()
		default:
			return nil, false
		}
	}
}
