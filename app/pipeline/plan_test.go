package pipeline

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-eval/mcp-eval/app/config"
	"github.com/mcp-eval/mcp-eval/internal/exitcode"
)

// TestInputsBeforeTheServer: every input file is read and checked before
// the server is contacted, and every problem is reported together: a bad
// waiver file, price table, baseline and golden file, and a missing model
// key, are one exit 2 in well under a second, with no request sent.
func TestInputsBeforeTheServer(t *testing.T) {
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		http.Error(w, "no", http.StatusTeapot)
	}))
	defer srv.Close()
	dir := t.TempDir()
	write := func(name, body string) string { return writeFile(t, dir, name, body) }
	waivers := write("waivers.yaml", "- id: a/b\n  reson: typo\n")
	prices := write("prices.yaml", "modles: {}\n")
	baseline := write("baseline.json", "{not json")
	golden := write("tasks.yaml", "version: 1\ncases:\n  - id: a\n    promt: hi\n")
	getenv := func(string) string { return "" }
	cfg, err := config.Parse("run", []string{"--server-url", srv.URL + "/mcp", "--out", filepath.Join(dir, "out"),
		"--waivers", waivers, "--prices", prices, "--baseline", baseline, "--golden", golden, "--models", "openai:m"}, getenv)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = Evaluate(context.Background(), cfg, Env{Getenv: getenv, Stdout: io.Discard, Stderr: io.Discard, Version: "test"})
	// What proves the inputs came first is the request count below; the
	// time is only a hang guard (the suite must pass on a loaded machine).
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("the inputs took %v to refuse", d)
	}
	if code := exitcode.Of(err); code != exitcode.Usage {
		t.Fatalf("exit %d (%v), want 2", code, err)
	}
	for _, want := range []string{
		waivers + `:2: unknown key "reson" (did you mean "reason"?)`,
		prices + `:1: unknown key "modles" (did you mean "models"?)`,
		"--baseline " + baseline + ": not a report.json",
		golden + `:4: case "a": unknown key "promt" (did you mean "prompt"?)`,
		"OPENAI_API_KEY is not set",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q:\n%v", want, err)
		}
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("the server got %d requests before the inputs were refused", n)
	}
}

// writeFile writes body to dir/name and returns its path.
func writeFile(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
