package config_test

import (
	"strings"
	"testing"

	"github.com/mcp-eval/mcp-eval/app/apptest"
	"github.com/mcp-eval/mcp-eval/app/config"
)

// TestPassthroughListenerOption: --passthrough-listener takes HOST:PORT
// for an HTTP server, from the command line or mcp-eval.yaml; anything
// else is exit 2 naming the flag.
func TestPassthroughListenerOption(t *testing.T) {
	cfg, err := config.Parse("conformance", []string{"--server-url", "http://127.0.0.1:9/mcp", "--passthrough-listener", "127.0.0.1:8099"}, apptest.Env(nil))
	if err != nil || cfg.AuthChecks.PassthroughListener != "127.0.0.1:8099" {
		t.Fatalf("cfg %+v, err %v", cfg.AuthChecks, err)
	}
	dir := t.TempDir()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--server-url", "http://127.0.0.1:9/mcp", "--passthrough-listener", "8099"}, `--passthrough-listener: want HOST:PORT (127.0.0.1:8099), got "8099"`},
		{[]string{"--server-url", "http://127.0.0.1:9/mcp", "--passthrough-listener", "127.0.0.1:http"}, `got "127.0.0.1:http"`},
		{[]string{"--server-cmd", "true", "--passthrough-listener", "127.0.0.1:8099"}, "--passthrough-listener needs --server-url"},
	} {
		code, stderr := parseCommand(t, apptest.Env(nil), append([]string{"conformance", "--out", dir}, tt.args...)...)
		if code != 2 || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d %q, want 2 with %q", tt.args, code, stderr, tt.want)
		}
	}
}
