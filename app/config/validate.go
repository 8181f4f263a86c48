package config

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/mcp-eval/mcp-eval/conformance"
	"github.com/mcp-eval/mcp-eval/internal/exitcode"
	"github.com/mcp-eval/mcp-eval/internal/suggest"
	"github.com/mcp-eval/mcp-eval/mcp"
)

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
	case c.ModelBudgetUSD < 0 || c.ModelBudgetUSD > 1e6:
		return exitcode.Usagef("%s must be between $0 (none) and $1000000, got $%g", src("model-budget"), c.ModelBudgetUSD)
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
