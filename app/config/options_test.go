package config

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-eval/mcp-eval/internal/option"
)

// TestConformanceRefusesModelOptions: every option of run that the
// registry does not give conformance is refused on conformance's command
// line, naming it, and left out of its --help; every other is taken. The
// six model-layer flags conformance used to accept are among them.
func TestConformanceRefusesModelOptions(t *testing.T) {
	srv := []string{"--server-url", "http://127.0.0.1:1/mcp"}
	var help bytes.Buffer
	PrintHelp(option.Conformance, &help)
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^  -([\w-]+)`).FindAllStringSubmatch(help.String(), -1) {
		listed[m[1]] = true
	}
	var refused []string
	for _, d := range Options().Defs() {
		if !d.For(option.Run) || d.Name == "config" || d.Name == "server-cmd" {
			continue
		}
		arg := "--" + d.Name + "=" + sample(d)
		if d.IsBool() {
			arg = "--" + d.Name
		}
		_, err := ParseCommand(option.Conformance, append(slices.Clone(srv), arg), noEnv, &bytes.Buffer{})
		want := "--" + d.Name + " is a flag of mcp-eval run: conformance runs Layer 0 alone"
		switch {
		case !d.For(option.Conformance):
			refused = append(refused, d.Name)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("conformance %s: error %v, want %q", arg, err, want)
			}
			if listed[d.Name] {
				t.Errorf("conformance --help lists --%s, which it refuses", d.Name)
			}
		case err != nil:
			t.Errorf("conformance %s: %v", arg, err)
		case !listed[d.Name]:
			t.Errorf("conformance --help lacks --%s, which it takes", d.Name)
		}
	}
	for _, f := range []string{"model-timeout", "model-concurrency", "model-budget", "model-max-tokens", "max-calls-per-turn", "judge-prompt", "models", "layers"} {
		if !slices.Contains(refused, f) {
			t.Errorf("conformance takes --%s", f)
		}
	}
}

// TestConfigKeysAreRunOptions: every option of run is a key of
// mcp-eval.yaml, whatever the command (one file serves run and
// conformance); --config itself and the gate's and merge's own are not.
func TestConfigKeysAreRunOptions(t *testing.T) {
	dir := t.TempDir()
	for _, d := range Options().Defs() {
		if d.Name == "" {
			continue
		}
		if d.Name == "server-cmd" || d.Name == "server-url" {
			continue
		}
		body := "server-url: http://127.0.0.1:1/mcp\n" + d.Name + ": '" + sample(d) + "'\n"
		p := filepath.Join(dir, "mcp-eval.yaml")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Parse(option.Conformance, []string{"--config", p}, noEnv)
		want := d.For(option.Run) && d.Name != "config"
		if unknown := err != nil && strings.Contains(err.Error(), "unknown option"); unknown == want {
			t.Errorf("config key %s: error %v; want it known %v", d.Name, err, want)
		}
	}
}

// sample is a valid value of d.
func sample(d *option.Def) string {
	switch d.Name {
	case "server-url":
		return "http://127.0.0.1:2/mcp"
	case "header":
		return "X-Trace: on"
	}
	return d.Value.String()
}
