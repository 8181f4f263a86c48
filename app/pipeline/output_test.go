package pipeline

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-eval/mcp-eval/app/config"
	"github.com/mcp-eval/mcp-eval/internal/mcptest"
)

// TestReportHTMLEveryRun: a conformance-only run, with no golden case,
// writes report.html too, with its checks.
func TestReportHTMLEveryRun(t *testing.T) {
	srv := mcptest.Serve(t, mcptest.Options{})
	out := t.TempDir()
	cfg, err := config.Parse("run", []string{"--server-url", srv.URL, "--layers", "conformance", "--checks", "discover,caching", "--runs", "1", "--out", out}, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if _, err := Evaluate(context.Background(), cfg, Env{Getenv: noEnv, Stdout: &stdout, Stderr: &stderr, Version: "test"}); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	b, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil {
		t.Fatalf("no report.html for a conformance run: %v", err)
	}
	for _, want := range []string{`id="checks"`, "discover/responds", "caching/tools-list"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
}
