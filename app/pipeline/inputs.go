package pipeline

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/mcp-eval/mcp-eval/app/config"
	"github.com/mcp-eval/mcp-eval/internal/suggest"
	"github.com/mcp-eval/mcp-eval/mcp"
)

// warnIgnoredHeaders says, before any network call, that --header cannot
// reach a stdio server: headers travel on HTTP requests, and a stdio
// server takes its credentials from its environment (MCP's authorization
// applies to HTTP transports only). The run itself is still sound, so it
// is a warning, not an error; the values stay secrets and are masked.
func warnIgnoredHeaders(cfg *config.Config, stderr io.Writer) {
	if len(cfg.Headers.Vals) == 0 || cfg.Transport() != "stdio" {
		return
	}
	fmt.Fprintf(stderr, "mcp-eval: warning: %s: headers are sent on HTTP requests only, and the stdio server of --server-cmd never sees them; give it what it needs in its environment (their values are still masked)\n",
		cfg.Source("header", 0))
}

// warnUnknownSafeTools names, once the tool list is known, the --safe-tools
// the server does not offer, each with the nearest tool it does: a typo
// there silently leaves a tool unprobed.
func warnUnknownSafeTools(cfg *config.Config, tools []mcp.Tool, stderr io.Writer) {
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name
	}
	var unknown []string
	for _, s := range cfg.SafeTools.Vals {
		if s == "" || slices.Contains(names, s) {
			continue
		}
		if near := suggest.Nearest(s, names); near != "" {
			s += " (did you mean " + near + "?)"
		}
		unknown = append(unknown, s)
	}
	if len(unknown) == 0 {
		return
	}
	fmt.Fprintf(stderr, "mcp-eval: warning: %s names %s, which the server does not offer (it lists %d tools); probes call only the tools it lists\n",
		cfg.Source("safe-tools", 0), strings.Join(unknown, ", "), len(names))
}
