package config

import (
	"strings"
	"testing"
)

// TestNoServerNamesServerStart: a user with a server to start over HTTP
// finds --server-start where they look first: the "no server" error and
// the synopsis of every command that evaluates a server.
func TestNoServerNamesServerStart(t *testing.T) {
	err := Default().validateServer()
	if err == nil || !strings.Contains(err.Error(), "--server-start 'CMD' --server-url URL") ||
		!strings.Contains(err.Error(), "--server-url URL") || !strings.Contains(err.Error(), "--server-cmd 'CMD ARGS'") {
		t.Errorf("no server: %v; want --server-url, --server-start and --server-cmd named", err)
	}
	for _, cmd := range []string{"conformance", "run"} {
		if !strings.Contains(Commands[cmd], "--server-start 'CMD' --server-url URL") {
			t.Errorf("mcp-eval %s --help synopsis lacks --server-start: %q", cmd, Commands[cmd])
		}
		for _, l := range strings.Split(Usage, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "mcp-eval "+cmd+" ") && !strings.Contains(l, "--server-start") {
				t.Errorf("mcp-eval --help: %q lacks --server-start", l)
			}
		}
	}
}
