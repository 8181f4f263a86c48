package pipeline_test

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mcp-eval/mcp-eval/app/config"
	"github.com/mcp-eval/mcp-eval/app/pipeline"
	"github.com/mcp-eval/mcp-eval/internal/exitcode"
	"github.com/mcp-eval/mcp-eval/internal/mcptest"
	"github.com/mcp-eval/mcp-eval/internal/proc/proctest"
)

// TestMain lets the test binary play a server for the tests of the
// server's process: with MCP_EVAL_TEST_SERVE=ADDR it serves the fixture
// over HTTP there until killed (--server-start).
func TestMain(m *testing.M) {
	if os.Getenv("MCP_EVAL_TEST_HTTP_ON_STDIO") != "" {
		// An HTTP server started as a stdio command: it logs its URL and
		// never reads stdin.
		os.Stderr.WriteString("listening on http://127.0.0.1:9/mcp\n")
		time.Sleep(60 * time.Second)
		os.Exit(0)
	}
	if os.Getenv("MCP_EVAL_TEST_SLEEP") != "" {
		time.Sleep(60 * time.Second)
		os.Exit(0)
	}
	if addr := os.Getenv("MCP_EVAL_TEST_SERVE"); addr != "" {
		if os.Getenv("MCP_EVAL_TEST_SERVE_FAIL") != "" {
			os.Stderr.WriteString("listen: address already in use\n")
			os.Exit(1)
		}
		if os.Getenv("MCP_EVAL_TEST_SETSID") != "" {
			// A child that leaves the process group and holds stdout.
			exe, _ := os.Executable()
			child := exec.Command(exe, "-test.run=^$")
			child.Env = append(os.Environ(), "MCP_EVAL_TEST_SLEEP=1", "MCP_EVAL_TEST_SERVE=")
			child.Stdout = os.Stdout
			proctest.Setsid(child)
			if err := child.Start(); err == nil {
				fmt.Fprintf(os.Stderr, "escapee %d\n", child.Process.Pid)
			}
		}
		if os.Getenv("MCP_EVAL_TEST_FLOOD") != "" {
			line := strings.Repeat("flood ", 1000) + "\n"
			for range 4000 { // 24 MB
				os.Stderr.WriteString(line)
			}
			os.Stderr.WriteString("last line of the flood\n")
		}
		_ = http.ListenAndServe(addr, mcptest.NewHandler(mcptest.Options{}))
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// runCommand runs `mcp-eval CMD ARGS…` for the commands this package
// carries out, in process and through its exported API, as the program
// does: run and conformance (config.ParseCommand, then Run), gate
// (GateOnly) and merge (MergeFiles). It returns the exit code the error
// gives (exitcode.Of), stdout, and stderr with the error last as the
// program prints it ("mcp-eval: " and its text; the pointer to --help that
// a usage error also gets, and the masking of stderr before the run's own,
// are the program's, tested in the root package).
func runCommand(t *testing.T, getenv func(string) string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	env := pipeline.Env{Getenv: getenv, Stdout: &out, Stderr: &errb, Version: "dev"}
	var err error
	switch cmd, rest := args[0], args[1:]; cmd {
	case "run", "conformance":
		var cfg *config.Config
		if cfg, err = config.ParseCommand(cmd, rest, getenv, &errb); err == nil {
			err = pipeline.Run(t.Context(), cfg, env)
		}
	case "gate":
		var o *config.GateOptions
		if o, err = config.ParseGate(rest); err == nil {
			err = pipeline.GateOnly(o, &out)
		}
	case "merge":
		o, shards, perr := config.ParseMerge(rest)
		if err = perr; err == nil {
			err = pipeline.MergeFiles(o, shards, &out)
		}
	default:
		t.Fatalf("mcp-eval %s is not a command of app/pipeline", cmd)
	}
	if err != nil && err.Error() != "" {
		fmt.Fprintf(&errb, "mcp-eval: %v\n", err)
	}
	return exitcode.Of(err), out.String(), errb.String()
}
