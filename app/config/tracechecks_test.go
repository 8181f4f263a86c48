package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-eval/mcp-eval/app/apptest"
	"github.com/mcp-eval/mcp-eval/app/config"
)

// TestOTLPReceiverOption: --otlp-receiver takes HOST:PORT over either
// transport, from the command line or mcp-eval.yaml (otlp-receiver);
// anything else is exit 2 naming the flag.
func TestOTLPReceiverOption(t *testing.T) {
	cfg, err := config.Parse("conformance", []string{"--server-cmd", "true", "--otlp-receiver", "127.0.0.1:4318"}, apptest.Env(nil))
	if err != nil || cfg.TraceChecks.OTLPReceiver != "127.0.0.1:4318" {
		t.Fatalf("cfg %+v, err %v", cfg.TraceChecks, err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "mcp-eval.yaml")
	if err := os.WriteFile(file, []byte("server-url: http://127.0.0.1:9/mcp\notlp-receiver: 0.0.0.0:4318\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err = config.Parse("run", []string{"--config", file}, apptest.Env(nil))
	if err != nil || cfg.TraceChecks.OTLPReceiver != "0.0.0.0:4318" {
		t.Fatalf("from mcp-eval.yaml: cfg %+v, err %v", cfg.TraceChecks, err)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--server-cmd", "true", "--otlp-receiver", "4318"}, `--otlp-receiver: want HOST:PORT (127.0.0.1:4318), got "4318"`},
		{[]string{"--server-cmd", "true", "--otlp-receiver", "http://127.0.0.1:4318"}, `got "http://127.0.0.1:4318"`},
		{[]string{"--server-url", "http://127.0.0.1:9/mcp", "--otlp-receiver", "127.0.0.1:8099", "--passthrough-listener", "127.0.0.1:8099"}, "--passthrough-listener's address too"},
	} {
		code, stderr := parseCommand(t, apptest.Env(nil), append([]string{"conformance", "--out", dir}, tt.args...)...)
		if code != 2 || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d %q, want 2 with %q", tt.args, code, stderr, tt.want)
		}
	}
}
