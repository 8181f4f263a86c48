package pipeline

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/mcp-eval/mcp-eval/app/config"
	"github.com/mcp-eval/mcp-eval/internal/mcptest"
)

func noEnv(string) string { return "" }

// TestHeaderOnStdioWarned: --header with a stdio server is said before any
// network call (the server never sees it); over HTTP it is not.
func TestHeaderOnStdioWarned(t *testing.T) {
	for _, tt := range []struct {
		server []string
		warned bool
	}{
		{[]string{"--server-cmd", "my-server --stdio"}, true},
		{[]string{"--server-url", "http://127.0.0.1:1/mcp"}, false},
	} {
		args := append(tt.server, "--header", "X-Api-Key: abcdefghijkl", "--out", t.TempDir())
		cfg, err := config.Parse("run", args, noEnv)
		if err != nil {
			t.Fatal(err)
		}
		red, err := cfg.Redactor(noEnv)
		if err != nil {
			t.Fatal(err)
		}
		var stderr bytes.Buffer
		if _, err := Plan(context.Background(), cfg, Env{Getenv: noEnv, Stderr: &stderr}, red); err != nil {
			t.Fatal(err)
		}
		got := strings.Contains(stderr.String(), "--header: headers are sent on HTTP requests only")
		if got != tt.warned {
			t.Errorf("%v: warned %v, want %v\n%s", tt.server, got, tt.warned, stderr.String())
		}
		if strings.Contains(stderr.String(), "abcdefghijkl") {
			t.Errorf("the warning shows the header's value: %s", stderr.String())
		}
	}
}

// TestUnknownSafeToolsWarned: a --safe-tools name the server does not offer
// is named once the tool list is known, with the tool it likely meant.
func TestUnknownSafeToolsWarned(t *testing.T) {
	srv := mcptest.Serve(t, mcptest.Options{})
	cfg, err := config.Parse("run", []string{"--server-url", srv.URL, "--layers", "conformance", "--checks", "discover", "--runs", "1",
		"--safe-tools", "get_forcast,lookup_region,rm_rf", "--out", t.TempDir()}, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if _, err := Evaluate(context.Background(), cfg, Env{Getenv: noEnv, Stdout: &stdout, Stderr: &stderr, Version: "test"}); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	want := "--safe-tools names get_forcast (did you mean get_forecast?), rm_rf, which the server does not offer"
	if !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
	}
}
