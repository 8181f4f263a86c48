// Package e2e runs the mcp-eval binary against real MCP servers (the Go SDK's
// conformance everything-server, a TypeScript SDK v2 server and the legacy
// server-everything) and against the official conformance suite, and checks
// that the verdicts are the ones the spec calls for. It holds tests only; see
// README.md for what it needs and how to run it.
package e2e

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

var (
	// moduleRoot is the directory of the repository's go.mod.
	moduleRoot string
	// mcpEvalBin is the binary TestMain built; empty when the real servers
	// are not installed (every test then skips, or fails under CI=true).
	mcpEvalBin string
)

func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	root, err := findModuleRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	moduleRoot = root
	if _, missing := loadDeps(); len(missing) > 0 {
		// Nothing to run against: the tests skip (or fail under CI=true)
		// without needing the binary.
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "mcp-eval-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "mcp-eval")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	if err := buildMCPEval(root, bin); err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	mcpEvalBin = bin
	return m.Run()
}

// buildMCPEval builds the module's main package into bin: a static binary
// (CGO_ENABLED=0), without VCS stamping (CI checkouts in containers often
// cannot run git on the work tree), and never with -race from GOFLAGS (which
// needs cgo).
func buildMCPEval(root, bin string) error {
	cmd := exec.Command("go", "build", "-buildvcs=false", "-o", bin, ".")
	cmd.Dir = root
	env := []string{"CGO_ENABLED=0"}
	if f := os.Getenv("GOFLAGS"); f != "" {
		var keep []string
		for _, w := range strings.Fields(f) {
			if w != "-race" {
				keep = append(keep, w)
			}
		}
		env = append(env, "GOFLAGS="+strings.Join(keep, " "))
	}
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("go build of mcp-eval in %s: %v\n%s", root, err, out)
	}
	return nil
}

func findModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the e2e directory")
		}
		dir = parent
	}
}
