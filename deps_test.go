package main

import (
	"maps"
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
		"engine/runs":    {"conformance", "golden", "resilience", "telemetry", "gate", "github", "report", "tasks"},
		"engine/check":   {"conformance", "golden", "resilience", "telemetry", "gate", "github", "llm", "agent", "tasks", "judge"},
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
		// The OTLP receiver of the trace checks decodes OTLP itself: no
		// protobuf runtime in the binary, and no layer.
		"internal/otlpreceiver": {"mcp", "report", "conformance", "gate", "golden", "resilience", "telemetry", "llm", "github", "agent"},
	}
	for pkg, banned := range rules {
		if !slices.Contains(above, pkg) {
			rules[pkg] = append(banned, above...)
		}
	}
	// Third-party modules allowed in the pure packages.
	pureExternal := map[string][]string{"report": nil, "mcp": nil, "llm": nil, "gate": {"gopkg.in/yaml.v3"}, "internal/stats": nil, "internal/exitcode": nil, "internal/oauth": nil, "internal/otlpreceiver": nil}
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

// tiers ranks the module's top-level directories, from the binary down to
// the leaf helpers (DESIGN.md, "Packages"). A package may import its own
// tier and the tiers below it, never one above.
var tiers = []struct {
	name string
	dirs []string // "" is the root package
}{
	{"the binary", []string{"", "bench", "e2e", "examples", "testdata"}},
	{"app", []string{"app"}},
	{"layers", []string{"conformance", "golden", "resilience", "telemetry"}},
	{"shared engines", []string{"engine", "agent", "tasks", "judge", "gate", "github"}},
	{"protocol, model clients and the report model", []string{"mcp", "llm", "report"}},
	{"helpers", []string{"internal"}},
}

// TestImportsRunDownward: no package imports a package of a tier above
// its own, so the import graph reads top to bottom: main → app → layers →
// shared engines → mcp, llm, report → internal/ (before this rule, internal/ held
// engines the layers build on beside its leaf helpers, and 4 groups of
// imports ran upward). Only the packages' own imports count, not their
// tests'.
func TestImportsRunDownward(t *testing.T) {
	const mod = "github.com/mcp-eval/mcp-eval"
	rank := map[string]int{}
	for i, tr := range tiers {
		for _, d := range tr.dirs {
			rank[d] = i
		}
	}
	// top is a package's top-level directory; ok is false for a
	// directory the tiers do not name, which fails the test: a new one
	// must be given its place.
	top := func(path string) (dir string, ok bool) {
		rel := strings.TrimPrefix(strings.TrimPrefix(path, mod), "/")
		dir, _, _ = strings.Cut(rel, "/")
		_, ok = rank[dir]
		return dir, ok
	}
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	up := map[string][]string{} // "from → to" groups → the imports
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		from, ok := top(f[0])
		if !ok {
			t.Errorf("%s: its directory %q has no tier in deps_test.go", f[0], from)
			continue
		}
		for _, imp := range f[1:] {
			if imp != mod && !strings.HasPrefix(imp, mod+"/") {
				continue
			}
			to, _ := top(imp)
			if rank[to] < rank[from] {
				key := from + " → " + to
				up[key] = append(up[key], f[0]+" imports "+imp)
			}
		}
	}
	for _, key := range slices.Sorted(maps.Keys(up)) {
		t.Errorf("%s runs upward (%s above %s): %s", key, tiers[rank[strings.Fields(key)[2]]].name,
			tiers[rank[strings.Fields(key)[0]]].name, strings.Join(up[key], "; "))
	}
	t.Logf("%d groups of imports run upward", len(up))
}

// TestNoEmulatorInBinary: the shipped binary (package main and everything
// it imports) holds no test support — no provider emulation
// (llm/<name>/<name>test), no llm/llmtest or llm/providertest, no other
// module package named …test, and neither testing nor net/http/httptest.
// The emulations are registered in llm/providertest, which only tests
// import.
func TestNoEmulatorInBinary(t *testing.T) {
	const mod = "github.com/mcp-eval/mcp-eval"
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps .: %v", err)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, mod+"/llm/providers") {
		t.Fatalf("go list -deps . does not list llm/providers; is this the module root? %d packages", len(deps))
	}
	for _, dep := range deps {
		last := dep[strings.LastIndex(dep, "/")+1:]
		switch {
		case dep == "testing", dep == "net/http/httptest":
			t.Errorf("the binary imports %s", dep)
		case strings.HasPrefix(dep, mod+"/") && (strings.HasSuffix(last, "test") || strings.Contains(dep, "emulat")):
			t.Errorf("the binary imports test support %s", dep)
		}
	}
}
