package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDependencyRules enforces the import graph of DESIGN.md, in the spirit
// of the standard library's go/build deps test: layers never import each
// other, report and gate stay pure, mcp and llm know nothing of reports.
func TestDependencyRules(t *testing.T) {
	const mod = "github.com/mcp-eval/mcp-eval/"
	rules := map[string][]string{ // package → module packages it must not depend on
		"report":      {"mcp", "conformance", "gate", "golden", "resilience", "telemetry", "llm", "github", "agent"},
		"gate":        {"mcp", "conformance", "golden", "resilience", "telemetry", "llm", "github", "agent"},
		"mcp":         {"report", "conformance", "gate", "golden", "resilience", "telemetry", "llm", "github", "agent"},
		"llm":         {"report", "mcp", "conformance", "gate", "golden", "resilience", "telemetry", "github", "agent"},
		"conformance": {"gate", "golden", "resilience", "telemetry", "llm", "github", "agent"},
		// Layer 2's model half runs the golden cases with faults, so
		// resilience builds on golden; never the other way round.
		"golden":     {"conformance", "resilience", "telemetry", "gate", "github"},
		"resilience": {"conformance", "telemetry", "gate", "github"},
		"telemetry":  {"conformance", "golden", "resilience", "gate", "github"},
		"agent":      {"conformance", "golden", "resilience", "telemetry", "gate", "github", "report"},
	}
	// Third-party modules allowed in the pure packages.
	pureExternal := map[string][]string{"report": nil, "mcp": nil, "llm": nil, "gate": {"gopkg.in/yaml.v3"}}
	for pkg, banned := range rules {
		out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", "./"+pkg).Output()
		if err != nil {
			t.Logf("go list ./%s: %v (package not present yet?)", pkg, err)
			continue
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, b := range banned {
				if dep == mod+b || strings.HasPrefix(dep, mod+b+"/") {
					t.Errorf("%s imports %s", pkg, dep)
				}
			}
			if allowed, pure := pureExternal[pkg]; pure && !strings.HasPrefix(dep, mod) && dep != mod[:len(mod)-1] {
				ok := false
				for _, a := range allowed {
					if dep == a {
						ok = true
					}
				}
				if !ok {
					t.Errorf("%s depends on third-party %s; it must stay standard-library only", pkg, dep)
				}
			}
		}
	}
}
