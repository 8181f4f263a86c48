package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/mcp-eval/mcp-eval/app/apptest"
)

// runCLI runs the program in-process and returns its exit code and output.
func runCLI(t *testing.T, getenv func(string) string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, getenv, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// TestUsageErrors: no command and an unknown one are usage errors of the
// program itself; the commands' own (app/config's TestUsageErrors) follow
// the same rule.
func TestUsageErrors(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  string
	}{
		{"no command", nil, 2, "Usage:"},
		{"unknown command", []string{"frobnicate"}, 2, `unknown command "frobnicate"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, apptest.Env(nil), tt.args...)
			if code != tt.wantCode {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tt.wantCode, stderr)
			}
			if !strings.Contains(stderr, tt.wantErr) {
				t.Errorf("stderr does not mention %q:\n%s", tt.wantErr, stderr)
			}
		})
	}
}

func TestVersion(t *testing.T) {
	code, stdout, _ := runCLI(t, apptest.Env(nil), "version")
	if code != 0 || !strings.HasPrefix(stdout, "mcp-eval ") {
		t.Errorf("exit %d, %q", code, stdout)
	}
}
