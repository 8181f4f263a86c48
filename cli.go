package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime/debug"
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

Exit codes: 0 all gates pass · 1 a hard check or a gate failed · 2 usage or
configuration error · 3 the server could not be started or reached.

Flags (also keys of mcp-eval.yaml; flags win):
`

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
	if len(args) == 0 {
		printUsage(stderr)
		return 2
	}
	cmd, rest := args[0], args[1:]
	var err error
	switch cmd {
	case "version", "--version", "-version":
		fmt.Fprintf(stdout, "mcp-eval %s\n", toolVersion())
		return 0
	case "help", "--help", "-h", "-help":
		printUsage(stdout)
		return 0
	case "conformance":
		err = runCommand(ctx, cmd, rest, getenv, stdout, stderr, "conformance")
	case "run":
		err = runCommand(ctx, cmd, rest, getenv, stdout, stderr, "")
	case "gate":
		err = gateCommand(rest, stdout, stderr)
	case "action":
		err = actionCommand(ctx, rest, getenv, stdout, stderr)
	case "merge":
		err = mergeCommand(rest, stdout)
	default:
		fmt.Fprintf(stderr, "mcp-eval: unknown command %q\n\n", cmd)
		printUsage(stderr)
		return 2
	}
	return exitCode(err, stderr)
}

// exitCode maps an error to DESIGN.md's exit codes, in one place.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	var ue *usageError
	var ce *configError
	var ee *exitError
	switch {
	case errors.Is(err, flag.ErrHelp):
		printUsage(stderr)
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "mcp-eval: %v\n\n", err)
		printUsage(stderr)
		return 2
	case errors.As(err, &ce):
		fmt.Fprintf(stderr, "mcp-eval: %v\n", err)
		return 2
	case errors.As(err, &ee):
		if ee.msg != "" {
			fmt.Fprintf(stderr, "mcp-eval: %s\n", ee.msg)
		}
		return ee.code
	}
	fmt.Fprintf(stderr, "mcp-eval: %v\n", err)
	return 1
}

func printUsage(w io.Writer) {
	fmt.Fprint(w, usageText)
	fs := flagSet("mcp-eval", defaultConfig(), w)
	fs.PrintDefaults()
}
