package main

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/mcp-eval/mcp-eval/app/apptest"
)

// TestDockerfile checks statically what TestDockerActionAsTheRunnerRunsIt
// cannot check without a registry: the default bases are pinned by digest,
// both targets end in an image GitHub can run as a Docker action (root, the
// runner's working directory: no USER, no WORKDIR), and the compile is the
// static one the README promises.
func TestDockerfile(t *testing.T) {
	b, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	args := map[string]string{}
	stages := map[string][]string{}
	var order []string
	cur := ""
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		kw := strings.ToUpper(f[0])
		if kw == "FROM" {
			if len(f) != 4 || !strings.EqualFold(f[2], "AS") {
				t.Fatalf("stage %q: want FROM IMAGE AS NAME", line)
			}
			cur = f[3]
			order = append(order, cur)
		}
		if cur == "" {
			if kw != "ARG" {
				t.Fatalf("instruction before FROM: %q", line)
			}
			name, def, _ := strings.Cut(f[1], "=")
			args[name] = def
			continue
		}
		stages[cur] = append(stages[cur], line)
	}
	digest := regexp.MustCompile(`@sha256:[0-9a-f]{64}$`)
	for _, a := range []string{"GO_IMAGE", "BASE_IMAGE"} {
		if !digest.MatchString(args[a]) {
			t.Errorf("ARG %s=%q: want a default pinned by digest", a, args[a])
		}
	}
	if !strings.HasPrefix(args["BASE_IMAGE"], "gcr.io/distroless/static") || strings.Contains(args["BASE_IMAGE"], "nonroot") {
		t.Errorf("BASE_IMAGE %q: want distroless/static (root)", args["BASE_IMAGE"])
	}
	// The classic builder builds every stage before its target: the
	// default target needs BuildKit, and the Dockerfile must say so; what
	// builds it here without BuildKit names --target release.
	if !strings.Contains(string(b), "The default target needs BuildKit") {
		t.Error("the Dockerfile does not say that its default target needs BuildKit")
	}
	if script, _ := os.ReadFile("scripts/release-image.sh"); !strings.Contains(string(script), `--target release --build-arg "TARGETARCH=$arch"`) {
		t.Error("scripts/release-image.sh must build --target release with TARGETARCH (it runs on the classic builder too)")
	}
	if len(order) == 0 || order[len(order)-1] != "source" {
		t.Errorf("stages %v: the default (last) target must be source", order)
	}
	for _, final := range []string{"release", "source"} {
		st := stages[final]
		if len(st) == 0 || !strings.Contains(st[0], "${BASE_IMAGE}") {
			t.Errorf("target %s must start FROM ${BASE_IMAGE}: %v", final, st)
			continue
		}
		for _, l := range st {
			kw := strings.ToUpper(strings.Fields(l)[0])
			if kw == "USER" || kw == "WORKDIR" || kw == "RUN" {
				t.Errorf("target %s has %s; a Docker action's image runs as root in the runner's workspace, and the base has no shell", final, kw)
			}
		}
		joined := strings.Join(st, "\n")
		if !strings.Contains(joined, `ENTRYPOINT ["/usr/local/bin/mcp-eval"]`) || !strings.Contains(joined, `CMD ["action"]`) {
			t.Errorf("target %s must run /usr/local/bin/mcp-eval action", final)
		}
	}
	if !strings.Contains(strings.Join(stages["release"], "\n"), "dist/image/linux_${TARGETARCH}/mcp-eval") {
		t.Error("the release target must copy release.sh's binary for TARGETARCH")
	}
	build := strings.Join(stages["build"], "\n")
	if !strings.Contains(stages["build"][0], "${GO_IMAGE}") {
		t.Error("the build stage must start FROM ${GO_IMAGE}")
	}
	apptest.MustContain(t, "the build stage", build, "CGO_ENABLED=0", "-trimpath", "-s -w")
	rel, err := os.ReadFile("scripts/release.sh")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(rel), `dist/image/linux_$arch/mcp-eval`) {
		t.Error("scripts/release.sh must leave the Linux binaries where the release target copies them")
	}
}
