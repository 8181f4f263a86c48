package config

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/mcp-eval/mcp-eval/conformance"
	"github.com/mcp-eval/mcp-eval/internal/exitcode"
	"github.com/mcp-eval/mcp-eval/internal/suggest"
)

var knownLayers = map[string]bool{"conformance": true, "behavior": true, "resilience": true, "telemetry": true, "auto": true}

// layerAliases are other spellings of a layer that --layers accepts.
var layerAliases = map[string]string{"behaviour": "behavior"}

// validate checks what the option values cannot check one by one (each
// is bounded where it is set): the server, the layers, the headers, the
// check ids and the secrets' names. Every problem is reported, together.
func (c *Config) validate(getenv func(string) string) error {
	_, errHeaders := c.ExpandHeaders(getenv)
	return errors.Join(c.validateServer(), c.validateLayers(), errHeaders, c.validateChecks(), c.validateSecrets(),
		c.validateOAuth(getenv), c.validateAuthChecks(), c.validateTraceChecks())
}

// validateServer: exactly one server, and a URL that is one.
func (c *Config) validateServer() error {
	src := func(name string) string { return c.Source(name, 0) }
	switch {
	case c.ServerURL == "" && c.ServerCmd == "":
		return exitcode.Usagef("no server: give --server-url URL (a server already running), --server-start 'CMD' --server-url URL (mcp-eval starts it over HTTP), or --server-cmd 'CMD ARGS' (over stdio)")
	case c.ServerURL != "" && c.ServerCmd != "":
		return exitcode.Usagef("%s and %s are exclusive: give one server", src("server-url"), src("server-cmd"))
	case c.ServerStart != "" && c.ServerURL == "":
		return exitcode.Usagef("%s needs --server-url: the address the started server answers at", src("server-start"))
	case c.ServerURL != "" && !strings.HasPrefix(c.ServerURL, "http://") && !strings.HasPrefix(c.ServerURL, "https://"):
		return exitcode.Usagef("%s must be an http:// or https:// URL, got %q", src("server-url"), c.ServerURL)
	}
	for i, r := range c.Replicas {
		if !strings.HasPrefix(r, "http://") && !strings.HasPrefix(r, "https://") {
			return exitcode.Usagef("%s (a replica) must be an http:// or https:// URL, got %q", c.Source("server-url", i+1), r)
		}
		if r == c.ServerURL || slices.Contains(c.Replicas[:i], r) {
			return exitcode.Usagef("%s: %s is given twice: a replica is another endpoint of the same server", c.Source("server-url", i+1), r)
		}
	}
	return nil
}

// validateLayers refuses an unknown --layers entry, with the nearest one.
func (c *Config) validateLayers() error {
	for _, l := range strings.Split(c.Layers, ",") {
		l = strings.TrimSpace(l)
		if knownLayers[l] || layerAliases[l] != "" {
			continue
		}
		src := c.Source("layers", 0)
		msg := fmt.Sprintf("%s: unknown layer %q (want conformance, behavior, resilience, telemetry or auto)", src, l)
		if s := suggest.Nearest(l, slices.Sorted(maps.Keys(knownLayers))); s != "" {
			msg = fmt.Sprintf("%s: unknown layer %q (did you mean %q?)", src, l, s)
		}
		return exitcode.Usagef("%s", msg)
	}
	return nil
}

// validateSecrets wants variable names in --secrets, not values.
func (c *Config) validateSecrets() error {
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
