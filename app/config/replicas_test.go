package config

import (
	"os"
	"path/filepath"
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

// TestServerURLReplicasFromFile: server-url in the config file takes a
// list, the server first and its replicas after (one item each, not a
// comma list); a bad replica names the file and the item's line; a flag
// replaces the file's whole list.
func TestServerURLReplicasFromFile(t *testing.T) {
	dir := t.TempDir()
	write := func(body string) string {
		p := filepath.Join(dir, "mcp-eval.yaml")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	p := write("checks: [surface]\nserver-url:\n  - http://127.0.0.1:1/mcp\n  - http://127.0.0.1:2/mcp\n  - https://b.example/mcp\n")
	cfg, err := Parse("conformance", []string{"--config", p}, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ServerURL != "http://127.0.0.1:1/mcp" || strings.Join(cfg.Replicas, " ") != "http://127.0.0.1:2/mcp https://b.example/mcp" {
		t.Errorf("server %q, replicas %q", cfg.ServerURL, cfg.Replicas)
	}
	cfg, err = Parse("conformance", []string{"--config", p, "--server-url", "http://127.0.0.1:9/mcp"}, noEnv)
	if err != nil || cfg.ServerURL != "http://127.0.0.1:9/mcp" || len(cfg.Replicas) != 0 {
		t.Errorf("a flag over the file: %v, server %q, replicas %q", err, cfg.ServerURL, cfg.Replicas)
	}
	for _, tc := range []struct{ body, want string }{
		{"server-url:\n  - http://127.0.0.1:1/mcp\n  - ftp://x/mcp\n", p + `:3: server-url (a replica) must be an http:// or https:// URL, got "ftp://x/mcp"`},
		{"server-url:\n  - http://127.0.0.1:1/mcp\n  - http://127.0.0.1:2/mcp\n  - http://127.0.0.1:2/mcp\n", p + ":4: server-url: http://127.0.0.1:2/mcp is given twice"},
		{"server-url: [http://127.0.0.1:1/mcp, http://127.0.0.1:1/mcp]\n", p + ":1: server-url: http://127.0.0.1:1/mcp is given twice"},
	} {
		write(tc.body)
		_, err := Parse("conformance", []string{"--config", p}, noEnv)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want an error containing %q", tc.body, err, tc.want)
		}
	}
}
