package config

import (
	"strings"
	"testing"
)

// TestServerURLReplicas: --server-url given again adds a replica of the
// server, each an http(s) URL other than the first.
func TestServerURLReplicas(t *testing.T) {
	cfg, err := Parse("conformance", []string{"--server-url", "http://127.0.0.1:1/mcp", "--server-url", "http://127.0.0.1:2/mcp", "--server-url", "https://b.example/mcp"}, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ServerURL != "http://127.0.0.1:1/mcp" || strings.Join(cfg.Replicas, " ") != "http://127.0.0.1:2/mcp https://b.example/mcp" {
		t.Errorf("server %q, replicas %q", cfg.ServerURL, cfg.Replicas)
	}
	for _, tc := range []struct{ second, want string }{
		{"ftp://x/mcp", `a replica) must be an http:// or https:// URL, got "ftp://x/mcp"`},
		{"http://127.0.0.1:1/mcp", "is given twice"},
	} {
		_, err := Parse("conformance", []string{"--server-url", "http://127.0.0.1:1/mcp", "--server-url", tc.second}, noEnv)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("--server-url %s: %v, want an error containing %q", tc.second, err, tc.want)
		}
	}
}
