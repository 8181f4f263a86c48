package main

import (
	"os"
	"strings"
	"testing"
)

// TestDockerfile checks statically what no machine here can check by
// building the image: GitHub runs a Docker action's container as root with
// its own working directory, so the final stage must set neither USER nor
// WORKDIR, and the binary must be the static one the README promises.
func TestDockerfile(t *testing.T) {
	b, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	var stages [][]string
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if strings.EqualFold(f[0], "FROM") {
			stages = append(stages, nil)
		}
		if len(stages) == 0 {
			t.Fatalf("instruction before FROM: %q", line)
		}
		stages[len(stages)-1] = append(stages[len(stages)-1], line)
	}
	if len(stages) < 2 {
		t.Fatal("want a multi-stage build")
	}
	final := stages[len(stages)-1]
	for _, l := range final {
		kw := strings.ToUpper(strings.Fields(l)[0])
		if kw == "USER" || kw == "WORKDIR" {
			t.Errorf("final stage sets %s; a Docker action must run as root in the runner's workspace", kw)
		}
	}
	if !strings.Contains(final[0], "distroless/static") || strings.Contains(final[0], "nonroot") {
		t.Errorf("final base %q: want distroless/static (root)", final[0])
	}
	build := strings.Join(stages[0], "\n")
	for _, want := range []string{"CGO_ENABLED=0", "-trimpath", "-s -w"} {
		if !strings.Contains(build, want) {
			t.Errorf("build stage lacks %s", want)
		}
	}
	if !strings.Contains(strings.Join(final, "\n"), `CMD ["action"]`) {
		t.Error(`the image must default to "mcp-eval action"`)
	}
}
