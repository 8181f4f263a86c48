// Package taskstest is what the tests of the golden file's readers (tasks,
// golden, resilience) share: the example server's tools to validate cases
// against, a scripted semantic matcher in place of a judge model, and the
// comparison of FILE:LINE error lists.
//
// It imports testing and is meant for _test.go files only. It must not
// import tasks, whose own tests use it.
package taskstest

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcp-eval/mcp-eval/internal/yamlfile"
	"github.com/mcp-eval/mcp-eval/mcp"
)

// weatherToolsJSON is the tools/list result of examples/weather-server
// (README.md beside it says how to regenerate it), kept as a copy so that
// tests need not import a package main.
//
//go:embed weather-tools.json
var weatherToolsJSON []byte

// WeatherTools returns the example server's tools (get_weather,
// search_invoices, send_email).
func WeatherTools(tb testing.TB) []mcp.Tool {
	tb.Helper()
	var list struct {
		Tools []mcp.Tool `json:"tools"`
	}
	if err := json.Unmarshal(weatherToolsJSON, &list); err != nil {
		tb.Fatal(err)
	}
	if len(list.Tools) != 3 {
		tb.Fatalf("weather-tools.json has %d tools, want 3", len(list.Tools))
	}
	return list.Tools
}

// WantErrors fails the test unless err is a yamlfile.Errors of exactly the
// lines want, in order.
func WantErrors(tb testing.TB, err error, want []string) {
	tb.Helper()
	var es yamlfile.Errors
	if !errors.As(err, &es) {
		tb.Fatalf("error %T %v, want yamlfile.Errors", err, err)
	}
	got := make([]string, len(es))
	for i, e := range es {
		got[i] = e.Error()
	}
	if d := cmp.Diff(want, got); d != "" {
		tb.Errorf("errors (-want +got):\n%s", d)
	}
}

// Similar is a tasks.SimilarityJudge that answers from a table.
type Similar struct {
	// Same holds the {expected, actual} pairs judged to mean the same.
	Same map[[2]string]bool
	// Err, when set, is every call's error.
	Err error
}

// Similar reports whether {expected, actual} is in Same.
func (f *Similar) Similar(_ context.Context, expected, actual string) (bool, error) {
	if f.Err != nil {
		return false, f.Err
	}
	return f.Same[[2]string{expected, actual}], nil
}
