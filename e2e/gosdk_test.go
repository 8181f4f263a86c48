package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The Go SDK verdict corpus: three of go-sdk's own examples
// (examples/server/everything, memory, sequentialthinking, built from the
// module cache at the go.mod version) over stdio and over their default
// HTTP wiring, the stateful StreamableHTTPHandler; and
// testdata/servers/go-sdk-handlers, one SDK server over stdio and both
// handlers. Each run's complete set of failed (or errored) check ids is
// pinned; e2e/README.md justifies every entry with the spec sentence and
// the wire evidence. A new false positive or negative is a test failure.

// Reasons shared by the pins (see e2e/README.md, "Go SDK corpus").
var goCorpusPins = map[string][]string{
	"everything/stdio":                 {"jsonrpc/malformed-json", "lint/tool-description", "lint/tool-name-pattern"},
	"everything/http-stateful":         {"discover/supported-versions", "era/modern", "errors/unknown-method", "http/origin-rejected", "jsonrpc/error-id-echo", "lint/tool-description", "lint/tool-name-pattern"},
	"memory/stdio":                     {"errors/capability-gated-method", "jsonrpc/malformed-json", "lint/param-descriptions"},
	"memory/http-stateful":             {"discover/supported-versions", "era/modern", "errors/unknown-method", "http/origin-rejected", "jsonrpc/error-id-echo", "lint/param-descriptions"},
	"sequentialthinking/stdio":         {"errors/capability-gated-method", "jsonrpc/malformed-json", "lint/param-descriptions"},
	"sequentialthinking/http-stateful": {"discover/supported-versions", "era/modern", "errors/unknown-method", "http/origin-rejected", "jsonrpc/error-id-echo", "lint/param-descriptions"},
	"go-sdk-handlers/stdio":            {"errors/capability-gated-method", "jsonrpc/malformed-json"},
	"go-sdk-handlers/http-stateful":    {"discover/supported-versions", "era/modern", "errors/unknown-method", "http/origin-rejected", "jsonrpc/error-id-echo"},
	"go-sdk-handlers/http-stateless":   {"errors/capability-gated-method", "headers/name-base64", "http/origin-rejected"},
}

const goSDKModule = "github.com/modelcontextprotocol/go-sdk"

// buildGoCorpus builds the example servers into dir.
func buildGoCorpus(t *testing.T, dir string) {
	t.Helper()
	args := []string{"build", "-buildvcs=false", "-o", dir + string(filepath.Separator)}
	for _, ex := range []string{"everything", "memory", "sequentialthinking"} {
		args = append(args, goSDKModule+"/examples/server/"+ex)
	}
	args = append(args, "./testdata/servers/go-sdk-handlers")
	cmd := exec.Command("go", args...)
	cmd.Dir = moduleRoot
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

func TestGoSDKCorpus(t *testing.T) {
	requireDeps(t)
	dir := t.TempDir()
	buildGoCorpus(t, dir)
	for _, name := range []string{"everything", "memory", "sequentialthinking", "go-sdk-handlers"} {
		bin := filepath.Join(dir, name)
		modes := []string{"stdio", "http-stateful"}
		if name == "go-sdk-handlers" {
			modes = append(modes, "http-stateless")
		}
		for _, mode := range modes {
			key := name + "/" + mode
			t.Run(key, func(t *testing.T) {
				var run evalRun
				switch mode {
				case "stdio":
					run = runMCPEval(t, "--server-cmd", commandLine(bin))
				default:
					argv := []string{bin}
					if mode == "http-stateless" {
						argv = append(argv, "-stateless")
					}
					srv := startHTTPServer(t, httpServerSpec{Name: name, Path: "/", Command: func(port int) ([]string, []string) {
						return append(append([]string(nil), argv...), "-http", fmt.Sprintf("127.0.0.1:%d", port)), nil
					}})
					run = runMCPEval(t, "--server-url", srv.URL)
				}
				logRun(t, key, run)
				rep := run.mustReport(t)
				rep.wantFailed(t, key, goCorpusPins[key])
				if mode == "http-stateful" {
					// The stateful handler serves only the initialize-based
					// revisions: a legacy endpoint, with the fix named.
					if rep.Server.Era != "legacy" {
						t.Errorf("era %q, want legacy", rep.Server.Era)
					}
					if c, _ := rep.check("era/modern"); !strings.Contains(c.Message, "Stateless: true") {
						t.Errorf("era/modern does not name the fix: %s", c.describe())
					}
					if c, _ := rep.check("caching/tools-list"); c.Status != "skip" || !strings.Contains(c.Message, "does not serve 2026-07-28") {
						t.Errorf("a 2026-07-28 check on a legacy endpoint: %s", c.describe())
					}
				} else if rep.Server.Era != "modern" {
					t.Errorf("era %q, want modern", rep.Server.Era)
				}
			})
		}
	}
}
