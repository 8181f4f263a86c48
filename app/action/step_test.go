package action_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mcp-eval/mcp-eval/app/apptest"
	"github.com/mcp-eval/mcp-eval/app/pipeline"
	"github.com/mcp-eval/mcp-eval/github/githubtest"
	"github.com/mcp-eval/mcp-eval/internal/mcptest"
	"github.com/mcp-eval/mcp-eval/report"
)

func TestActionEndToEnd(t *testing.T) {
	clean := mcptest.Serve(t, mcptest.Options{})
	broken := mcptest.Serve(t, mcptest.Options{Defects: mcptest.ParseDefects("caching/tools-list")})

	// The baseline: a green conformance run of the clean server.
	baseDir := t.TempDir()
	if code, stderr := conformanceRun(t, "--server-url", clean.URL, "--out", baseDir, "--runs", "1"); code != 0 {
		t.Fatalf("baseline run: %d %s", code, stderr)
	}
	baseJSON, _ := os.ReadFile(filepath.Join(baseDir, "report.json"))

	const token = "ghs_0123456789abcdefTOKEN"
	for _, tt := range []struct {
		name     string
		server   string
		baseline []byte
		wantCode int
		wantIn   []string // in the comment
	}{
		{name: "first run, no baseline", server: clean.URL, wantCode: 0, wantIn: []string{"<!-- mcp-eval:comment key=", "mcp-eval passed"}},
		{name: "regression against the last green run", server: broken.URL, baseline: zipReport(t, baseJSON), wantCode: 1,
			wantIn: []string{"<!-- mcp-eval:comment key=", "caching/tools-list"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := &apptest.FakeGitHub{Baseline: tt.baseline}
			apiURL := f.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("Authorization") != "" {
					t.Error("the artifact blob host received the token")
				}
				w.Write(f.Baseline)
			}))
			dir := t.TempDir()
			vars, outputs, summary := pullRequestStep(dir, apiURL, map[string]string{
				"GITHUB_SERVER_URL": "https://github.com",
				"GITHUB_SHA":        "abc123", "GITHUB_BASE_REF": "main", "GITHUB_HEAD_REF": "forecast-units",
				"INPUT_SERVER-URL": tt.server, "INPUT_GITHUB-TOKEN": token, "INPUT_RUNS": "1",
				"INPUT_LAYERS": "auto", "INPUT_COMMENT": "true", "INPUT_BASELINE-ARTIFACT": "mcp-eval-report",
				"INPUT_EVAL-LABEL": "run-evals",
			})
			code, stdout, stderr := runAction(t, apptest.Env(vars))
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.wantCode, stdout, stderr)
			}
			if !strings.Contains(stdout, "::add-mask::"+token) {
				t.Error("the token was not masked first")
			}
			out, _ := os.ReadFile(outputs)
			sum, _ := os.ReadFile(summary)
			for name, b := range map[string][]byte{"outputs": out, "summary": sum, "stderr": []byte(stderr)} {
				if bytes.Contains(b, []byte(token)) {
					t.Errorf("the token leaked into %s", name)
				}
			}
			if !bytes.Contains(out, []byte("passed<<")) || !bytes.Contains(out, []byte("report-path<<")) {
				t.Errorf("outputs:\n%s", out)
			}
			apptest.AssertPathOutputs(t, dir, githubtest.Outputs(t, string(out)))
			if !bytes.Contains(sum, []byte("mcp-eval")) || !bytes.Contains(sum, []byte("### Notes")) {
				t.Errorf("summary:\n%s", sum)
			}
			// Our notes are Markdown: the label is one code span, not an
			// escaped backtick (a regression once: code spans escaped twice).
			if !bytes.Contains(sum, []byte("`run-evals`")) || bytes.Contains(sum, []byte("\\`")) {
				t.Errorf("the notes escape their own code spans:\n%s", sum)
			}
			// The payload says run-evals, the API says the label is gone (and
			// no models are configured): conformance only.
			if !bytes.Contains(out, []byte("conformance")) {
				t.Errorf("layers output missing:\n%s", out)
			}
			if len(f.Comments()) != 1 {
				t.Fatalf("%d comments posted, want 1", len(f.Comments()))
			}
			for _, w := range tt.wantIn {
				if !strings.Contains(f.Comments()[0], w) {
					t.Errorf("comment lacks %q:\n%s", w, f.Comments()[0])
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "mcp-eval-report", "results.sarif")); err != nil {
				t.Errorf("results.sarif: %v", err)
			}
			var rep report.Report
			b, _ := os.ReadFile(filepath.Join(dir, "mcp-eval-report", "report.json"))
			json.Unmarshal(b, &rep)
			if tt.baseline != nil && (rep.Gate == nil || rep.Gate.Baseline == "" || len(rep.History) != 2) {
				t.Errorf("gate %+v, history %d entries", rep.Gate, len(rep.History))
			}
			if tt.baseline != nil {
				// The baseline is named by its run, never by the temporary
				// file the gate read.
				if rep.Gate == nil || !strings.Contains(rep.Gate.Baseline, "run #90 on main (push)") || strings.Contains(rep.Gate.Baseline, dir) {
					t.Errorf("gate baseline = %q, want the run", rep.Gate.Baseline)
				}
				if strings.Contains(f.Comments()[0], dir) || strings.Contains(string(sum), "mcp-eval-baseline-") {
					t.Errorf("the comment or summary shows the temporary baseline path")
				}
				if !regexp.MustCompile(`conformance baseline: run #\S*90 on main \(push,`).Match(sum) {
					t.Errorf("the summary does not say where the conformance baseline came from:\n%s", sum)
				}
			}
			io.Discard.Write(nil)
		})
	}
}

// TestActionHostModeStdio is the setup action's route: `mcp-eval action` on
// the host, inputs as flags, a stdio server that needs the host's runtime
// (here the example server, built for this machine), the token from
// GITHUB_TOKEN as a run step passes it.
func TestActionHostModeStdio(t *testing.T) {
	server := apptest.BuildExampleServer(t)
	dir := t.TempDir()
	f := &apptest.FakeGitHub{}
	apiURL := f.Serve(t, nil)
	const token = "ghs_0123456789abcdefHOSTMODE"
	vars, outputs, _ := pullRequestStep(dir, apiURL, map[string]string{"GITHUB_TOKEN": token})
	code, stdout, stderr := runAction(t, apptest.Env(vars), "--server-cmd", "'"+server+"'", "--runs=1")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	o := readOutputs(t, outputs)
	if o["passed"] != "true" {
		t.Errorf("passed = %q", o["passed"])
	}
	apptest.AssertPathOutputs(t, dir, o)
	if !strings.Contains(stdout, "::add-mask::"+token) {
		t.Error("GITHUB_TOKEN was not masked")
	}
	if len(f.Comments()) != 1 {
		t.Errorf("%d comments, want 1 (the token from GITHUB_TOKEN)", len(f.Comments()))
	}
	b, _ := os.ReadFile(filepath.Join(dir, "mcp-eval-report", "report.json"))
	if !bytes.Contains(b, []byte(`"transport": "stdio"`)) {
		t.Errorf("report.json is not of the stdio server:\n%.300s", b)
	}
}

// A run that cannot evaluate after one that passed: the same comment, the
// summary and the outputs now say so and why, instead of "passed".
func TestActionCouldNotEvaluateReplacesTheVerdict(t *testing.T) {
	clean := mcptest.Serve(t, mcptest.Options{})
	gone := httptest.NewServer(http.NotFoundHandler())
	goneURL := gone.URL + "/mcp"
	gone.Close() // nothing listens there any more

	f := &apptest.FakeGitHub{}
	apiURL := f.Serve(t, nil)
	const token = "ghs_0123456789abcdefEXIT3"
	dir := t.TempDir()
	step := func(t *testing.T, inputs map[string]string) (int, string, map[string]string, []byte) {
		vars, outputs, summary := pullRequestStep(dir, apiURL, map[string]string{
			"GITHUB_SERVER_URL": "https://github.com", "GITHUB_WORKFLOW": "mcp-eval", "GITHUB_JOB": "eval",
			"INPUT_GITHUB-TOKEN": token, "INPUT_RUNS": "1", "INPUT_TIMEOUT": "2s",
			// action.yml's default key, as the runner fills it in for a
			// job without a matrix: toJSON(matrix) is null.
			"INPUT_COMMENT-KEY": "mcp-eval / eval / null",
		})
		maps.Copy(vars, inputs)
		code, stdout, _ := runAction(t, apptest.Env(vars))
		sum, _ := os.ReadFile(summary)
		return code, stdout, readOutputs(t, outputs), sum
	}

	if code, _, o, _ := step(t, map[string]string{"INPUT_SERVER-URL": clean.URL}); code != 0 || o["passed"] != "true" {
		t.Fatalf("first run: exit %d, outputs %v", code, o)
	}
	if len(f.Comments()) != 1 || !strings.Contains(f.Comments()[0], "mcp-eval passed") {
		t.Fatalf("first run's comment: %q", f.Comments())
	}
	if c := f.Comments()[0]; !strings.Contains(c, "\n\nJob: mcp-eval / eval\n\n") || strings.Contains(c, "null") {
		t.Errorf("the verdict's Job line (want mcp-eval / eval, no null):\n%s", c)
	}
	for _, tt := range []struct {
		name   string
		inputs map[string]string
		code   string
		why    string
	}{
		{"exit 3: the server is gone", map[string]string{"INPUT_SERVER-URL": goneURL}, "3", "could not reach the server"},
		{"exit 3: a program the runner lacks", map[string]string{"INPUT_SERVER-CMD": "mcp-eval-no-such-runtime server.js"}, "3", `program "mcp-eval-no-such-runtime" not found`},
		{"exit 3: a server that exits, its log named on the host", map[string]string{"INPUT_SERVER-CMD": "sh -c 'echo boom >&2; exit 1'"}, "3", "mcp-eval-report/server.log"},
		{"exit 2: a bad input", map[string]string{"INPUT_SERVER-URL": clean.URL, "INPUT_LAYERS": "conformance,behaviuor"}, "2", `unknown layer "behaviuor"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, o, sum := step(t, tt.inputs)
			if strconv.Itoa(code) != tt.code {
				t.Fatalf("exit %d, want %s", code, tt.code)
			}
			if o["passed"] != "false" || o["exit-code"] != tt.code || !strings.Contains(o["error"], tt.why) {
				t.Errorf("outputs %v: want passed false, exit-code %s and the reason", o, tt.code)
			}
			// Paths relative to the workspace, as the host's next step sees
			// them, never the workspace the container had.
			if strings.Contains(o["error"], dir) || strings.Contains(o["error"], "/mcp-eval-report/server.log") {
				t.Errorf("the error output names a path of this step's workspace: %q", o["error"])
			}
			if !strings.Contains(string(sum), "could not evaluate the server (exit "+tt.code+")") {
				t.Errorf("summary does not say it could not evaluate:\n%s", sum)
			}
			if !strings.Contains(stdout, "::error title=mcp-eval::mcp-eval could not evaluate the server (exit "+tt.code+")") {
				t.Errorf("no error annotation:\n%s", stdout)
			}
			comments := f.Comments()
			if len(comments) != 1 {
				t.Fatalf("%d comments, want the one comment updated", len(comments))
			}
			c := comments[0]
			if strings.Contains(c, "mcp-eval passed") || !strings.Contains(c, "could not evaluate the server (exit "+tt.code+")") {
				t.Errorf("the comment still claims the old result or lacks the reason:\n%s", c)
			}
			// Which job it is about, as in a verdict's comment.
			if !strings.Contains(c, "\n\nJob: mcp-eval / eval\n\n") {
				t.Errorf("the comment has no Job line:\n%s", c)
			}
			if strings.Contains(c, token) || strings.Contains(string(sum), token) || strings.Contains(o["error"], token) {
				t.Error("the token leaked")
			}
		})
	}
}

// A scheduled run without models says why the model layers did not run
// (never "All layers"), and a header's expanded value is what is masked.
func TestActionScheduledWithoutModelsAndHeaderMask(t *testing.T) {
	clean := mcptest.Serve(t, mcptest.Options{})
	dir := t.TempDir()
	outputs, summary := apptest.StepFiles(dir)
	const secret = "mcp-header-secret-0123456789"
	vars := map[string]string{
		"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "schedule", "GITHUB_EVENT_PATH": eventFile("schedule.json"),
		"GITHUB_REF": "refs/heads/main", "GITHUB_STEP_SUMMARY": summary, "GITHUB_OUTPUT": outputs,
		"GITHUB_WORKSPACE": dir, "RUNNER_TEMP": dir, "MCP_TOKEN": secret,
		"INPUT_SERVER-URL": clean.URL, "INPUT_RUNS": "1", "INPUT_HEADERS": "Authorization: Bearer $MCP_TOKEN",
	}
	code, stdout, stderr := runAction(t, apptest.Env(vars))
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	// The expanded header value is what must be masked.
	apptest.MustContain(t, "stdout", stdout, "::add-mask::Bearer "+secret+"\n", "::add-mask::"+secret+"\n")
	sum, _ := os.ReadFile(summary)
	if bytes.Contains(sum, []byte("All layers")) || !bytes.Contains(sum, []byte("the models input is empty")) {
		t.Errorf("summary's layer note:\n%s", sum)
	}
	o := readOutputs(t, outputs)
	if o["layers"] != "conformance" || o["exit-code"] != "0" {
		t.Errorf("outputs %v", o)
	}
}

// Sharded jobs publish once: the merged report is given to the action,
// which gates it against the baseline and writes one summary and one
// comment without contacting any server.
func TestActionPublishesAGivenReport(t *testing.T) {
	clean := mcptest.Serve(t, mcptest.Options{})
	broken := mcptest.Serve(t, mcptest.Options{Defects: mcptest.ParseDefects("caching/tools-list")})
	baseDir, shardDir := t.TempDir(), t.TempDir()
	if code, stderr := conformanceRun(t, "--server-url", clean.URL, "--out", baseDir, "--runs", "1"); code != 0 {
		t.Fatalf("baseline run: %d %s", code, stderr)
	}
	conformanceRun(t, "--server-url", broken.URL, "--out", shardDir, "--runs", "1")
	clean.Close()
	broken.Close() // nothing may be contacted from here on
	merged := filepath.Join(shardDir, "merged.json")
	if err := pipeline.MergeFiles(merged, []string{filepath.Join(shardDir, "report.json")}, io.Discard); err != nil {
		t.Fatalf("merge: %v", err)
	}
	baseJSON, _ := os.ReadFile(filepath.Join(baseDir, "report.json"))

	f := &apptest.FakeGitHub{Baseline: zipReport(t, baseJSON)}
	apiURL := f.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(f.Baseline) }))
	dir := t.TempDir()
	vars, outputs, summary := pullRequestStep(dir, apiURL, map[string]string{
		"GITHUB_SERVER_URL":  "https://github.com",
		"INPUT_GITHUB-TOKEN": "ghs_0123456789abcdefMERGED", "INPUT_REPORT": merged,
	})
	code, _, stderr := runAction(t, apptest.Env(vars))
	if code != 1 {
		t.Fatalf("exit %d, want 1 (the merged report regressed against the baseline)\n%s", code, stderr)
	}
	o := readOutputs(t, outputs)
	if o["passed"] != "false" || o["exit-code"] != "1" {
		t.Errorf("outputs %v", o)
	}
	apptest.AssertPathOutputs(t, dir, o)
	if len(f.Comments()) != 1 || !strings.Contains(f.Comments()[0], "caching/tools-list") {
		t.Errorf("want one comment naming the regression: %q", f.Comments())
	}
	sum, _ := os.ReadFile(summary)
	if !bytes.Contains(sum, []byte("not run here")) {
		t.Errorf("the summary does not say the report was given:\n%s", sum)
	}
}

// What the action publishes goes through the run's redactor: a secret in
// the reason a run could not evaluate is masked in the comment, the
// summary, the outputs and the annotation.
func TestActionPublishesOnlyRedactedText(t *testing.T) {
	f := &apptest.FakeGitHub{}
	apiURL := f.Serve(t, nil)
	const secret = "sk-proj-0123456789_abcdef_SECRET"
	vars, outputs, summary := pullRequestStep(t.TempDir(), apiURL, map[string]string{
		"OPENAI_API_KEY":     secret,
		"INPUT_GITHUB-TOKEN": "ghs_0123456789abcdefREDACT",
		// A careless workflow: the key pasted where the program goes.
		"INPUT_SERVER-CMD": secret + " --stdio",
	})
	code, stdout, _ := runAction(t, apptest.Env(vars))
	if code != 3 {
		t.Fatalf("exit %d, want 3", code)
	}
	out, _ := os.ReadFile(outputs)
	sum, _ := os.ReadFile(summary)
	published := map[string]string{"outputs": string(out), "summary": string(sum), "annotations": stdout}
	if len(f.Comments()) != 1 {
		t.Fatalf("%d comments, want 1", len(f.Comments()))
	}
	published["comment"] = f.Comments()[0]
	for name, text := range published {
		if strings.Contains(text, secret) || strings.Contains(text, "0123456789\\_abcdef") {
			t.Errorf("the secret reached the %s", name)
		}
		// Markdown escapes the mask as \*\*\*.
		if name != "annotations" && !strings.Contains(text, "***") && !strings.Contains(text, `\*\*\*`) {
			t.Errorf("the %s shows no mask where the secret was:\n%s", name, text)
		}
	}
}

// Host mode with a Node stdio server, the case the Docker image cannot
// run: the real server-everything (installed by .ci/install-deps.sh) over
// stdio, legacy era, through `mcp-eval action` and its flags.
func TestActionHostModeNodeStdio(t *testing.T) {
	node, server := os.Getenv("MCP_EVAL_NODE"), os.Getenv("MCP_EVAL_SERVER_EVERYTHING")
	if node == "" || server == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("real servers not installed: run bash .ci/install-deps.sh and source .cache/deps/env.sh")
		}
		t.Skip("real servers not installed: run bash .ci/install-deps.sh and source .cache/deps/env.sh")
	}
	dir := t.TempDir()
	outputs, _ := apptest.StepFiles(dir)
	vars := map[string]string{
		"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "push", "GITHUB_REF": "refs/heads/main",
		"GITHUB_OUTPUT": outputs, "GITHUB_WORKSPACE": dir, "RUNNER_TEMP": dir,
	}
	code, stdout, stderr := runAction(t, apptest.Env(vars),
		"--server-cmd", fmt.Sprintf("'%s' '%s'", node, server), "--protocol-version", "2025-11-25", "--runs", "1")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	o := readOutputs(t, outputs)
	apptest.AssertPathOutputs(t, dir, o)
	var rep report.Report
	b, _ := os.ReadFile(filepath.Join(dir, filepath.FromSlash(o["report-path"])))
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Server.Transport != "stdio" || rep.Server.Era != "legacy" || o["passed"] != "true" {
		t.Errorf("transport %q era %q passed %q: want the Node server evaluated over stdio", rep.Server.Transport, rep.Server.Era, o["passed"])
	}
}

// TestActionDryRun: the Action's dry-run input plans the model layers
// whatever the event, writes the plan to the log and the job summary,
// calls no model and posts no comment.
func TestActionDryRun(t *testing.T) {
	apptest.AtRoot(t) // the shipped seed, named as at the checkout
	bin := apptest.BuildExampleServer(t)
	url, calls := apptest.NoModelCalls(t)
	dir := t.TempDir()
	f := &apptest.FakeGitHub{}
	apiURL := f.Serve(t, nil)
	vars, outputs, summary := pullRequestStep(dir, apiURL, map[string]string{
		"GITHUB_TOKEN": "ghs_0123456789abcdefDRYRUN", "INPUT_DRY-RUN": "true", "INPUT_MODELS": "ollama:qwen2.5:7b",
		"INPUT_SERVER-CMD": bin, "INPUT_GOLDEN": "examples/golden/seed.yaml", "OLLAMA_HOST": url,
	})
	code, stdout, stderr := runAction(t, apptest.Env(vars))
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	sum, _ := os.ReadFile(summary)
	for where, text := range map[string]string{"log": stdout, "summary": string(sum)} {
		if !strings.Contains(text, "dry run: examples/golden/seed.yaml is valid against") || !strings.Contains(text, "ollama:qwen2.5:7b") {
			t.Errorf("%s lacks the plan:\n%s", where, text)
		}
	}
	if o := readOutputs(t, outputs); o["passed"] != "true" || o["exit-code"] != "0" {
		t.Errorf("outputs %v", o)
	}
	if n := calls.Load(); n != 0 || len(f.Comments()) != 0 {
		t.Errorf("%d model requests, %d comments; want none", n, len(f.Comments()))
	}
}
