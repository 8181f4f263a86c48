package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"runtime/debug"
	"slices"

	"github.com/mcp-eval/mcp-eval/app/action"
	"github.com/mcp-eval/mcp-eval/app/config"
	"github.com/mcp-eval/mcp-eval/app/initcmd"
	"github.com/mcp-eval/mcp-eval/app/pipeline"
	"github.com/mcp-eval/mcp-eval/internal/exitcode"
	"github.com/mcp-eval/mcp-eval/internal/suggest"
)

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

// run is the whole program, with its inputs injected so tests can drive it:
// it picks the command, hands it to the package that owns it, and turns
// the outcome into an exit code (exitCode).
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	// Everything printed on stderr (warnings, progress, error messages) is
	// masked: the environment's credentials from the start, and each run
	// masks its own secrets too (pipeline.Evaluate). Stdout is left alone:
	// the Action prints its ::add-mask:: commands there, and the pipeline
	// masks the report.
	envRed := config.EnvRedactor(getenv)
	errw := envRed.Writer(stderr)
	defer errw.Flush()
	stderr = errw
	routeLogs(errw, envRed)
	if len(args) == 0 {
		fmt.Fprint(stderr, config.Usage)
		return exitcode.Usage
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "version", "--version", "-version":
		fmt.Fprintf(stdout, "mcp-eval %s\n", toolVersion())
		return exitcode.OK
	case "help", "--help", "-h", "-help":
		if len(rest) > 0 && config.Commands[rest[0]] != "" {
			printHelp(rest[0], stdout)
		} else {
			fmt.Fprint(stdout, config.Usage)
		}
		return exitcode.OK
	}
	env := pipeline.Env{Getenv: getenv, Stdout: stdout, Stderr: stderr, Version: toolVersion()}
	known, err := runCommand(ctx, cmd, rest, env)
	if !known {
		return unknownCommand(cmd, stderr)
	}
	if errors.Is(err, flag.ErrHelp) {
		printHelp(cmd, stdout)
		return exitcode.OK
	}
	code := exitCode(cmd, err, stderr)
	if in, ok := exitcode.InterruptedBy(ctx, context.Cause(ctx)); ok {
		// Whatever the partial report says, the run did not finish.
		return in.ExitCode()
	}
	return code
}

// runCommand hands cmd to the package that owns it; known is false for a
// command mcp-eval does not have.
func runCommand(ctx context.Context, cmd string, rest []string, env pipeline.Env) (known bool, err error) {
	switch cmd {
	case "conformance", "run":
		var cfg *config.Config
		if cfg, err = config.ParseCommand(cmd, rest, env.Getenv, env.Stderr); err == nil {
			err = pipeline.Run(ctx, cfg, env)
		}
	case "init":
		cfg, o, perr := config.ParseInit(rest, env.Getenv)
		if err = perr; err == nil {
			err = initcmd.Run(ctx, cfg, o, env)
		}
	case "gate":
		var o *config.GateOptions
		if o, err = config.ParseGate(rest); err == nil {
			err = pipeline.GateOnly(o, env.Stdout)
		}
	case "merge":
		out, shards, perr := config.ParseMerge(rest)
		if err = perr; err == nil {
			err = pipeline.MergeFiles(out, shards, env.Stdout)
		}
	case "action":
		err = flag.ErrHelp
		if !wantsHelp(rest) {
			err = action.Command(ctx, rest, env)
		}
	default:
		return false, nil
	}
	return true, err
}

// printHelp writes cmd's --help: the action's lists its inputs.
func printHelp(cmd string, stdout io.Writer) {
	if cmd == "action" {
		action.PrintHelp(stdout)
		return
	}
	config.PrintHelp(cmd, stdout)
}

// unknownCommand says so, with the nearest command if one is close.
func unknownCommand(cmd string, stderr io.Writer) int {
	msg := fmt.Sprintf("mcp-eval: unknown command %q", cmd)
	if s := suggest.Nearest(cmd, slices.Sorted(maps.Keys(config.Commands))); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	fmt.Fprintf(stderr, "%s\nrun mcp-eval --help for the commands\n", msg)
	return exitcode.Usage
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

// exitCode maps an error to DESIGN.md's exit codes (exitcode.Of), in one
// place, and prints it. A usage error is one line and a pointer to the
// command's --help, not the whole usage: the mistake stays visible. An
// error without text (exit 1 of a failing report) prints nothing.
func exitCode(cmd string, err error, stderr io.Writer) int {
	code := exitcode.Of(err)
	var ue *exitcode.UsageError
	switch {
	case code == exitcode.OK:
	case cmd == "action" && err.Error() != "":
		// The Action's log: its flags come from its inputs, and what the
		// error quotes of the server must not read as a workflow command.
		action.PrintError(stderr, err)
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "mcp-eval: %v\nrun mcp-eval %s --help for its flags\n", err, cmd)
	case err.Error() != "":
		fmt.Fprintf(stderr, "mcp-eval: %v\n", err)
	}
	return code
}
