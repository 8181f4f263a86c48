package telemetry

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDependencies keeps the package light and in its place (DESIGN.md,
// "Packages"): telemetry links no OpenTelemetry and no other layer, and
// telemetry/otlp, which does link OpenTelemetry, links neither gRPC nor a
// protobuf runtime.
func TestDependencies(t *testing.T) {
	t.Parallel()
	const mod = "github.com/mcp-eval/mcp-eval/"
	rules := map[string][]string{
		".":      {"go.opentelemetry.io/", "google.golang.org/", mod + "golden", mod + "resilience", mod + "conformance", mod + "gate", mod + "github"},
		"./otlp": {"google.golang.org/grpc", "google.golang.org/protobuf", "go.opentelemetry.io/proto", mod + "golden", mod + "resilience", mod + "conformance"},
	}
	for pkg, banned := range rules {
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, b := range banned {
				if strings.HasPrefix(dep, b) {
					t.Errorf("%s depends on %s", pkg, dep)
				}
			}
		}
	}
}
