package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestDependencyRules enforces the import graph of DESIGN.md, in the spirit
// of the standard library's go/build deps test: layers never import each
// other, report and gate stay pure, mcp and llm know nothing of reports.
func TestDependencyRules(t *testing.T) {
	const mod = "github.com/mcp-eval/mcp-eval/"
	// What drives the layers sits above them: package main wires, the
	// pipeline runs the sequence, the action publishes, config reads the
	// flags. No package below imports these.
	above := []string{"app/pipeline", "app/action", "app/config", "app/initcmd"}
	rules := map[string][]string{ // package → module packages it must not depend on
		"report": {"mcp", "conformance", "gate", "golden", "resilience", "telemetry", "llm", "github", "agent", "internal/exitcode"},
		"gate":   {"mcp", "conformance", "golden", "resilience", "telemetry", "llm", "github", "agent", "internal/exitcode"},
		"mcp":    {"report", "conformance", "gate", "golden", "resilience", "telemetry", "llm", "github", "agent"},
		"llm":    {"report", "mcp", "conformance", "gate", "golden", "resilience", "telemetry", "github", "agent"},
		// Layers never import each other, with no exception: what two
		// layers share lives in a neutral package below them.
		"conformance": {"gate", "golden", "resilience", "telemetry", "llm", "github", "agent"},
		"golden":      {"conformance", "resilience", "telemetry", "gate", "github"},
		"resilience":  {"conformance", "golden", "telemetry", "gate", "github"},
		"telemetry":   {"conformance", "golden", "resilience", "gate", "github"},
		"agent":       {"conformance", "golden", "resilience", "telemetry", "gate", "github", "report"},
		// The neutral packages the layers share import no layer.
		"tasks":          {"conformance", "golden", "resilience", "telemetry", "gate", "github", "report"},
		"judge":          {"conformance", "golden", "resilience", "telemetry", "gate", "github", "report", "tasks"},
		"internal/runs":  {"conformance", "golden", "resilience", "telemetry", "gate", "github", "report", "tasks"},
		"internal/check": {"conformance", "golden", "resilience", "telemetry", "gate", "github", "llm", "agent", "tasks", "judge"},
		"internal/stats": {"conformance", "golden", "resilience", "telemetry", "gate", "github", "report", "mcp", "llm", "agent"},
		// The pipeline runs the layers but publishes nothing to GitHub;
		// config knows the flags, not the layers' logic: it gathers the
		// options each part declares (golden's PlanFlags and RunFlags, the
		// model layers' own), validates --checks against Layer 0's ids,
		// and reads the model provider registry (llm/providers), whose
		// credential variables are secrets of every run.
		"app/pipeline":      {"github", "app/action"},
		"app/config":        {"resilience", "telemetry", "github", "app/pipeline", "app/action"},
		"internal/exitcode": {"mcp", "report", "conformance", "gate", "golden", "resilience", "telemetry", "llm", "github", "agent", "app/config"},
		// The OAuth client knows no layer and not mcp, which takes it as an
		// mcp.Authorizer.
		"internal/oauth": {"mcp", "report", "conformance", "gate", "golden", "resilience", "telemetry", "llm", "github", "agent", "internal/redact"},
	}
	for pkg, banned := range rules {
		if !slices.Contains(above, pkg) {
			rules[pkg] = append(banned, above...)
		}
	}
	// Third-party modules allowed in the pure packages.
	pureExternal := map[string][]string{"report": nil, "mcp": nil, "llm": nil, "gate": {"gopkg.in/yaml.v3"}, "internal/stats": nil, "internal/exitcode": nil, "internal/oauth": nil}
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
