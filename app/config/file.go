package config

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/mcp-eval/mcp-eval/internal/exitcode"
	"github.com/mcp-eval/mcp-eval/internal/option"
	"github.com/mcp-eval/mcp-eval/internal/suggest"
	"github.com/mcp-eval/mcp-eval/internal/yamlfile"
)

// DefaultFile is the config file read when --config is not given and it
// exists.
const DefaultFile = "mcp-eval.yaml"

// maxFileBytes bounds the config file: it holds option names and values.
const maxFileBytes = 1 << 20

// applyFile reads the config file (--config, else mcp-eval.yaml if present)
// and sets every key that no flag set. Keys are the flag names; values are
// scalars or lists of scalars. Every error is a *yamlfile.Error (FILE:LINE)
// inside an exitcode.ConfigError; an empty file sets nothing.
func (cfg *Config) applyFile(fs *flag.FlagSet, set map[string]bool) error {
	path := cfg.ConfigPath
	if path == "" {
		if _, err := os.Stat(DefaultFile); err != nil {
			return nil
		}
		path = DefaultFile
	}
	data, err := yamlfile.Read(path, maxFileBytes, "config file")
	if err != nil {
		return exitcode.Config(err)
	}
	cfg.fileLines = map[string][]string{}
	root, yerr := yamlfile.Document(path, data, maxFileBytes, "the config file", "option names and their values")
	switch {
	case yerr != nil && yerr.Empty():
		return nil
	case yerr != nil:
		return exitcode.Config(yerr)
	case root.Kind != yaml.MappingNode:
		return exitcode.Config(&yamlfile.Error{File: path, Line: root.Line, Msg: "the config file must be a mapping of option names to values"})
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if err := cfg.applyKey(fs, set, path, root.Content[i], root.Content[i+1]); err != nil {
			return exitcode.Config(err)
		}
	}
	return nil
}

// applyKey sets option k to value v unless a flag set it. The keys are
// those of mcp-eval run, whatever the command: one mcp-eval.yaml serves
// run and conformance, which leaves the model layers' keys unused.
func (cfg *Config) applyKey(fs *flag.FlagSet, set map[string]bool, path string, k, v *yaml.Node) *yamlfile.Error {
	at := func(line int, format string, args ...any) *yamlfile.Error {
		return &yamlfile.Error{File: path, Line: line, Msg: fmt.Sprintf(format, args...)}
	}
	d := cfg.opts.Lookup(k.Value)
	if d == nil || !d.For(option.Run) || k.Value == "config" {
		if s := suggest.Nearest(k.Value, FlagNames(fs)); s != "" {
			return at(k.Line, "unknown option %q (did you mean %q?)", k.Value, s)
		}
		return at(k.Line, "unknown option %q", k.Value)
	}
	if set[k.Value] {
		return nil
	}
	var vals []string
	switch v.Kind {
	case yaml.ScalarNode:
		vals = []string{v.Value}
	case yaml.SequenceNode:
		for _, item := range v.Content {
			if item.Kind != yaml.ScalarNode {
				return at(item.Line, "%s: list items must be plain values", k.Value)
			}
			vals = append(vals, item.Value)
		}
		if !d.IsList() {
			vals = []string{strings.Join(vals, ",")}
		}
	default:
		return at(v.Line, "%s: want a value or a list", k.Value)
	}
	for i, s := range vals {
		line := v.Line
		if v.Kind == yaml.SequenceNode && len(vals) == len(v.Content) {
			line = v.Content[i].Line
		}
		cfg.fileLines[k.Value] = append(cfg.fileLines[k.Value], fmt.Sprintf("%s:%d", path, line))
		if err := fs.Set(k.Value, s); err != nil {
			return at(line, "%s: %v", k.Value, err)
		}
	}
	return nil
}
