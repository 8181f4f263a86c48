package config

import (
	"flag"
	"io"
	"strings"

	"github.com/mcp-eval/mcp-eval/internal/exitcode"
	"github.com/mcp-eval/mcp-eval/internal/option"
)

// mcp-eval init's flags: the registry's options of run that init takes
// (initFlags), bound as run's are, and its own two (--force, --workflow).

// InitOptions are mcp-eval init's own options.
type InitOptions struct {
	// Force replaces files that exist (by default nothing is overwritten).
	Force bool
	// Workflow is the workflow file written.
	Workflow string
}

// initFlags are the options of run that init takes: the server, how to
// reach it, the golden file to write, the models that draft its prompts
// and their cache; --config names the config file it writes.
var initFlags = map[string]bool{
	"server-url": true, "server-cmd": true, "server-start": true, "header": true, "start-timeout": true,
	"timeout": true, "max-message-bytes": true, "protocol-version": true, "models": true, "golden": true,
	"cache-dir": true, "no-cache": true, "secrets": true, "config": true, "model-timeout": true,
}

// InitFlagSet is mcp-eval init's flag set, bound to cfg and o.
func InitFlagSet(cfg *Config, o *InitOptions, stderr io.Writer) *flag.FlagSet {
	all := FlagSet("init", option.Run, cfg, io.Discard)
	fs := flag.NewFlagSet("init", flag.ContinueOnError)
	fs.SetOutput(stderr)
	all.VisitAll(func(f *flag.Flag) {
		if initFlags[f.Name] {
			usage := f.Usage
			switch f.Name {
			case "config":
				usage = "the config file to write (default mcp-eval.yaml)"
			case "golden":
				usage = "the golden task file to write"
			case "models":
				usage = "provider:model that drafts the cases' prompts (cached, priced); without it they are made from the tool names and descriptions"
			}
			fs.Var(f.Value, f.Name, usage)
		}
	})
	fs.BoolVar(&o.Force, "force", false, "replace files that exist (nothing is overwritten without it)")
	fs.StringVar(&o.Workflow, "workflow", ".github/workflows/mcp-eval.yml", "the GitHub Actions workflow file to write")
	return fs
}

// ParseInit parses mcp-eval init's flags. No config file is read: init
// writes one.
func ParseInit(args []string, getenv func(string) string) (*Config, *InitOptions, error) {
	cfg, o := Default(), &InitOptions{}
	fs := InitFlagSet(cfg, o, io.Discard)
	if err := parseFlags(fs, args); err != nil {
		return nil, nil, err
	}
	if fs.NArg() > 0 {
		return nil, nil, exitcode.Usagef("unexpected argument %q (flags take their value after a space or =, and a command with spaces needs quotes)", fs.Arg(0))
	}
	cfg.flagsSet = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { cfg.flagsSet[f.Name] = true })
	if cfg.ConfigPath == "" {
		cfg.ConfigPath = DefaultFile
	}
	if strings.Count(cfg.Models, ",") > 0 {
		return nil, nil, exitcode.Usagef("--models %q: init drafts with one model", cfg.Models)
	}
	return cfg, o, cfg.validate(getenv)
}

// FlagGiven reports whether option name was given on the command line.
func (c *Config) FlagGiven(name string) bool { return c.flagsSet[name] }
