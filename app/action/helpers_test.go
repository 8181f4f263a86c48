package action_test

import (
	"archive/zip"
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcp-eval/mcp-eval/app/action"
	"github.com/mcp-eval/mcp-eval/app/apptest"
	"github.com/mcp-eval/mcp-eval/app/config"
	"github.com/mcp-eval/mcp-eval/app/pipeline"
	"github.com/mcp-eval/mcp-eval/github/githubtest"
	"github.com/mcp-eval/mcp-eval/internal/exitcode"
)

// runAction runs `mcp-eval action ARGS…` in process (action.Command) and
// returns the exit code the error gives (exitcode.Of), stdout (the
// workflow commands), and stderr with the error last as the program
// prints it (PrintError).
func runAction(t *testing.T, getenv func(string) string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	err := action.Command(t.Context(), args, pipeline.Env{Getenv: getenv, Stdout: &out, Stderr: &errb, Version: "dev"})
	if err != nil && err.Error() != "" {
		action.PrintError(&errb, err)
	}
	return exitcode.Of(err), out.String(), errb.String()
}

// conformanceRun is `mcp-eval conformance ARGS…` (app/pipeline): the
// reports the Action is then given as a baseline or a shard. It returns
// the exit code and stderr.
func conformanceRun(t *testing.T, args ...string) (code int, stderr string) {
	t.Helper()
	var errb bytes.Buffer
	getenv := func(string) string { return "" }
	cfg, err := config.ParseCommand("conformance", args, getenv, &errb)
	if err == nil {
		err = pipeline.Run(t.Context(), cfg, pipeline.Env{Getenv: getenv, Stdout: &bytes.Buffer{}, Stderr: &errb, Version: "dev"})
	}
	if err != nil {
		fmt.Fprintf(&errb, "mcp-eval: %v\n", err)
	}
	return exitcode.Of(err), errb.String()
}

// eventFile is the event payload github/testdata/name, as
// GITHUB_EVENT_PATH names it (an absolute path, so that a test that
// changes directory still finds it).
func eventFile(name string) string { return filepath.Join(eventDir, name) }

var eventDir = func() string {
	p, err := filepath.Abs(filepath.Join("..", "..", "github", "testdata"))
	if err != nil {
		panic(err)
	}
	return p
}()

// pullRequestStep is the environment of an Action step on a labeled pull
// request of acme/weather-mcp, with its workspace in dir and the GitHub
// API at apiURL, plus more (inputs, secrets); it returns the variables and
// the output and summary files.
func pullRequestStep(dir, apiURL string, more map[string]string) (vars map[string]string, outputs, summary string) {
	outputs, summary = apptest.StepFiles(dir)
	vars = map[string]string{
		"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "pull_request",
		"GITHUB_EVENT_PATH": eventFile("pull_request_labeled.json"), "GITHUB_REPOSITORY": "acme/weather-mcp",
		"GITHUB_RUN_ID": "100", "GITHUB_API_URL": apiURL,
		"GITHUB_OUTPUT": outputs, "GITHUB_STEP_SUMMARY": summary, "GITHUB_WORKSPACE": dir, "RUNNER_TEMP": dir,
	}
	maps.Copy(vars, more)
	return vars, outputs, summary
}

// readOutputs parses the step's GITHUB_OUTPUT file.
func readOutputs(t *testing.T, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return githubtest.Outputs(t, string(b))
}

func zipReport(t *testing.T, reportJSON []byte) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("report.json")
	w.Write(reportJSON)
	zw.Close()
	return buf.Bytes()
}

// scheduleStep is the environment of an Action step on a nightly run with
// its workspace in dir, plus more.
func scheduleStep(dir string, more map[string]string) (vars map[string]string, outputs, summary string) {
	outputs, summary = apptest.StepFiles(dir)
	vars = map[string]string{
		"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "schedule", "GITHUB_EVENT_PATH": eventFile("schedule.json"),
		"GITHUB_REF": "refs/heads/main", "GITHUB_STEP_SUMMARY": summary, "GITHUB_OUTPUT": outputs,
		"GITHUB_WORKSPACE": dir, "RUNNER_TEMP": dir, "INPUT_RUNS": "1",
	}
	for k, v := range more {
		vars[k] = v
	}
	return vars, outputs, summary
}

// stepSinks is outputs with the step files in place of stdout (which holds
// the ::add-mask:: commands, the one place a secret must appear).
func stepSinks(out, stderr, stepFiles string) map[string]string {
	s := apptest.Sinks(out, "", stderr)
	s["step files"] = stepFiles
	delete(s, "stdout")
	return s
}
