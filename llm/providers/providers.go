// Package providers is the registry of model providers: one line per
// provider package. The CLI's provider names, the credential variables
// masked in every output (app/config), the price rules (telemetry) and
// the docs' table of providers come from this list; adding a provider is
// its package and one line here (DESIGN.md, "Adding a provider").
package providers

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcp-eval/mcp-eval/internal/suggest"
	"github.com/mcp-eval/mcp-eval/llm"
	"github.com/mcp-eval/mcp-eval/llm/anthropic"
	"github.com/mcp-eval/mcp-eval/llm/llamacpp"
	"github.com/mcp-eval/mcp-eval/llm/lmstudio"
	"github.com/mcp-eval/mcp-eval/llm/ollama"
	"github.com/mcp-eval/mcp-eval/llm/openai"
	"github.com/mcp-eval/mcp-eval/llm/openrouter"
	"github.com/mcp-eval/mcp-eval/llm/vllm"
)

// all is the registry, in the order the docs list the providers.
var all = []*llm.Def{
	openai.Def,
	anthropic.Def,
	ollama.Def,
	llamacpp.Def,
	vllm.Def,
	lmstudio.Def,
	openrouter.Def,
}

// All returns every provider, in the docs' order.
func All() []*llm.Def { return slices.Clone(all) }

// Lookup returns the provider named name (case-insensitive).
func Lookup(name string) (*llm.Def, bool) {
	name = strings.ToLower(strings.TrimSpace(name))
	for _, d := range all {
		if d.Name == name {
			return d, true
		}
	}
	return nil, false
}

// Names are the providers' names, in the docs' order.
func Names() []string {
	out := make([]string, len(all))
	for i, d := range all {
		out[i] = d.Name
	}
	return out
}

// Parse reads a model spec, provider:model, and finds its provider: an
// unknown one gets the nearest name as a did-you-mean and the list.
func Parse(spec string) (*llm.Def, string, error) {
	p, m, ok := llm.SplitSpec(spec)
	if !ok {
		return nil, "", fmt.Errorf("model %q: want provider:model, e.g. %s", spec, examples())
	}
	d, found := Lookup(p)
	if !found {
		msg := fmt.Sprintf("model %q: unknown provider %q", spec, p)
		if s := suggest.Nearest(p, Names()); s != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", s)
		}
		return nil, "", fmt.Errorf("%s; the providers are %s", msg, strings.Join(Names(), ", "))
	}
	return d, m, nil
}

// examples are two specs for messages.
func examples() string {
	var ex []string
	for _, d := range all[:min(3, len(all))] {
		ex = append(ex, d.Example)
	}
	return strings.Join(ex, " or ")
}

// New makes the provider named name from getenv (trimmed; an empty value
// counts as unset) with opts.
func New(name string, getenv func(string) string, opts ...llm.Option) (llm.Provider, error) {
	d, ok := Lookup(name)
	if !ok {
		return nil, fmt.Errorf("unknown model provider %q (the providers are %s)", name, strings.Join(Names(), ", "))
	}
	return d.New(d, llm.NewEnv(getenv), llm.NewSettings(opts...))
}

// CredentialVars are every provider's credential variables, sorted: each
// is a secret of the run, masked in every output wherever mcp-eval runs.
func CredentialVars() []string {
	var out []string
	for _, d := range all {
		out = append(out, d.Keys...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Table is the Markdown table of the providers that README.md shows
// between its providers markers (TestREADMEProviders keeps them equal).
func Table() string {
	var b strings.Builder
	b.WriteString("| provider | `--models` | wire | listens at | address from | key |\n|---|---|---|---|---|---|\n")
	for _, d := range all {
		key := "none needed"
		if len(d.Keys) > 0 {
			key = "`" + strings.Join(d.Keys, "` or `") + "`"
			switch {
			case d.KeyRequired:
				key += ", required there"
			default:
				key += " if the server wants one"
			}
		}
		fmt.Fprintf(&b, "| %s | `%s` | %s | `%s` | `%s` | %s |\n", d.Title, d.Example, d.Wire, d.BaseURL, d.BaseURLEnv, key)
	}
	return b.String()
}
