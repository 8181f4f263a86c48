package action

import (
	"fmt"
	"io"
	"strings"

	"github.com/mcp-eval/mcp-eval/app/config"
	"github.com/mcp-eval/mcp-eval/github"
	"github.com/mcp-eval/mcp-eval/internal/exitcode"
	"github.com/mcp-eval/mcp-eval/internal/option"
	"github.com/mcp-eval/mcp-eval/internal/redact"
	"github.com/mcp-eval/mcp-eval/internal/suggest"
)

// The action's inputs: INPUT_* or host mode's flags (one per input of
// action.yml, from the option registry), their help, and the masking of
// the secrets they carry before anything else is printed.

// tokenRedactor masks the GitHub token until the run's full redactor
// (headers, model keys) exists.
func tokenRedactor(token string) *redact.Redactor {
	if len(strings.TrimSpace(token)) < redact.MinLen {
		return nil
	}
	r, err := redact.New(redact.Secret{Source: "github-token", Value: strings.TrimSpace(token)})
	if err != nil {
		return nil
	}
	redact.MaskLogs(r)
	return r
}

// maskHeaders registers the secrets of each expanded header (config.Header
// Secrets) with the runner's log masking.
func maskHeaders(w io.Writer, cfg *config.Config, getenv func(string) string) error {
	hs, err := cfg.ExpandHeaders(getenv)
	if err != nil {
		return err
	}
	for _, h := range hs {
		for _, s := range h.Secrets() {
			if len(s.Value) < redact.MinLen {
				continue
			}
			if err := github.Mask(w, s.Value); err != nil {
				return err
			}
		}
	}
	return nil
}

// actionFlags lets a host-mode run step give the inputs as flags
// (mcp-eval action --server-cmd 'node build/index.js'): --NAME=VALUE or
// --NAME VALUE for each input of action.yml, which then wins over
// INPUT_NAME. Windows shells and YAML env blocks both handle flags more
// easily than variable names with hyphens.
func actionFlags(args []string, getenv func(string) string) (func(string) string, error) {
	if len(args) == 0 {
		return getenv, nil
	}
	set := map[string]string{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, ok := strings.CutPrefix(a, "--")
		if !ok || name == "" {
			return nil, exitcode.Usagef("action: unexpected argument %q (inputs are flags: --server-url URL, …)", a)
		}
		name, val, hasVal := strings.Cut(name, "=")
		if Inputs().Input(name) == nil {
			names := InputNames()
			return nil, exitcode.Usagef("action: unknown flag --%s%s (the inputs are %s)", name, suggestInput(name, names), strings.Join(names, ", "))
		}
		if !hasVal {
			if i+1 == len(args) {
				return nil, exitcode.Usagef("action: flag --%s needs a value", name)
			}
			i++
			val = args[i]
		}
		set["INPUT_"+strings.ToUpper(name)] = val
	}
	return func(k string) string {
		if v, ok := set[k]; ok {
			return v
		}
		return getenv(k)
	}, nil
}

// Inputs are every input of the Action, in action.yml's order: the
// flag-backed ones of the option registry, then the action's own.
func Inputs() *option.Set {
	s := &option.Set{}
	for _, d := range config.Options().Inputs() {
		s.Add(*d, d.Value)
	}
	var in github.Inputs
	in.Declare(s)
	return s
}

// InputNames are the names of Inputs.
func InputNames() []string {
	var names []string
	for _, d := range Inputs().Inputs() {
		names = append(names, d.InputName())
	}
	return names
}

// PrintHelp is mcp-eval action --help: the synopsis and every input, with
// its default and meaning, as action.yml has them; host mode takes each as
// a flag of the same name.
func PrintHelp(w io.Writer) {
	config.PrintHelp("action", w)
	fmt.Fprint(w, "\nInputs (INPUT_<NAME> in the environment; in host mode also --<name> VALUE):\n")
	for _, d := range Inputs().Inputs() {
		def := d.Input.Default
		if def == "" && d.Name != "" {
			def = strings.ReplaceAll(d.DocDefault(), "`", "")
		}
		if def != "" {
			def = " (default " + def + ")"
		}
		doc := d.Input.Doc
		if doc == "" {
			doc = d.Text()
		}
		fmt.Fprintf(w, "  %s%s\n    \t%s\n", d.InputName(), def, doc)
	}
}

// suggestInput names the input closest to a mistyped flag, if one is close.
func suggestInput(name string, names []string) string {
	if n := suggest.Nearest(name, names); n != "" {
		return " (did you mean --" + n + "?)"
	}
	return ""
}
