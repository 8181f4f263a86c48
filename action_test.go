package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/mcp-eval/mcp-eval/github/githubtest"
	"github.com/mcp-eval/mcp-eval/internal/mcptest"
	"github.com/mcp-eval/mcp-eval/report"
)

// TestActionYAML: action.yml runs the released image, and the README
// documents its inputs and outputs. The inputs and outputs themselves are
// made from the registries (app/action's TestDocsFromRegistry).
func TestActionYAML(t *testing.T) {
	var a actionYAML
	readYAML(t, "action.yml", &a)
	checkActionDocs(t, "action.yml", a)
	if a.Runs.Using != "docker" || !releasedImage.MatchString(a.Runs.Image) || len(a.Runs.Args) != 1 || a.Runs.Args[0] != "action" {
		t.Errorf("runs: %+v; want docker, a released docker://ghcr.io/mcp-eval/mcp-eval:vX.Y.Z (never a Dockerfile: no compile at job start), args [action]", a.Runs)
	}
}

// actionYAML is an action.yml as the tests read it: the Docker action's
// and the setup action's (a composite one).
type actionYAML struct {
	Inputs map[string]struct {
		Description string  `yaml:"description"`
		Default     *string `yaml:"default"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Description string `yaml:"description"`
		Value       string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string   `yaml:"using"`
		Image string   `yaml:"image"`
		Args  []string `yaml:"args"`
		Steps []struct {
			Shell string            `yaml:"shell"`
			Run   string            `yaml:"run"`
			Env   map[string]string `yaml:"env"`
		} `yaml:"steps"`
	} `yaml:"runs"`
}

// defaultOf is the default of input name ("" when it has none).
func (a *actionYAML) defaultOf(name string) string {
	if d := a.Inputs[name].Default; d != nil {
		return *d
	}
	return ""
}

// readYAML decodes the YAML file at path into v.
func readYAML(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// checkActionDocs: every input of the action at file has a description, a
// default and a row in the README's table, and the README names every
// output.
func checkActionDocs(t *testing.T, file string, a actionYAML) {
	t.Helper()
	readme, _ := os.ReadFile("README.md")
	for name, in := range a.Inputs {
		if in.Description == "" || in.Default == nil {
			t.Errorf("%s: input %s needs a description and a default", file, name)
		}
		if !bytes.Contains(readme, []byte("| `"+name+"` |")) {
			t.Errorf("README's table of %s lacks input %s", file, name)
		}
	}
	for name := range a.Outputs {
		if !bytes.Contains(readme, []byte("`"+name+"`")) {
			t.Errorf("README does not document output %s of %s", name, file)
		}
	}
}

// TestSetupActionYAML keeps setup/action.yml and the README's setup
// table in step, and its one step on the install script.
func TestSetupActionYAML(t *testing.T) {
	var a actionYAML
	readYAML(t, "setup/action.yml", &a)
	checkActionDocs(t, "setup/action.yml", a)
	if a.Runs.Using != "composite" || len(a.Runs.Steps) != 1 || a.Runs.Steps[0].Shell != "bash" ||
		!strings.Contains(a.Runs.Steps[0].Run, `"$GITHUB_ACTION_PATH/install.sh"`) ||
		a.Runs.Steps[0].Env["MCP_EVAL_VERSION"] != "${{ inputs.version }}" {
		t.Errorf("setup runs: %+v", a.Runs)
	}
}

var releasedImage = regexp.MustCompile(`^docker://ghcr\.io/mcp-eval/mcp-eval:v[0-9]+\.[0-9]+\.[0-9]+$`)

// TestReleaseWorkflowPinsActionImage keeps action.yml and the release
// workflow in agreement: the workflow pushes the image action.yml names
// (same repository, tagged with the release tag, both architectures, from
// the Dockerfile's release target), then rewrites action.yml to it before
// moving the tags and publishing. The rewrite itself is run on a copy.
func TestReleaseWorkflowPinsActionImage(t *testing.T) {
	var wf struct {
		On struct {
			Push struct {
				Tags []string `yaml:"tags"`
			} `yaml:"push"`
		} `yaml:"on"`
		Env  map[string]string `yaml:"env"`
		Jobs map[string]struct {
			Steps []struct {
				Name string            `yaml:"name"`
				Uses string            `yaml:"uses"`
				Run  string            `yaml:"run"`
				With map[string]string `yaml:"with"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	readYAML(t, ".github/workflows/release.yml", &wf)
	image := wf.Env["IMAGE"]
	if image != "ghcr.io/mcp-eval/mcp-eval" {
		t.Fatalf("release.yml env IMAGE = %q, want the repository action.yml names", image)
	}
	if len(wf.On.Push.Tags) != 1 || wf.On.Push.Tags[0] != "v*.*.*" {
		t.Errorf("release.yml must run on vX.Y.Z tags, has %v", wf.On.Push.Tags)
	}
	pushed, pinned, published := -1, -1, -1
	for _, job := range wf.Jobs {
		for i, st := range job.Steps {
			switch {
			case strings.HasPrefix(st.Uses, "docker/build-push-action@"):
				pushed = i
				if st.With["target"] != "release" || st.With["push"] != "true" ||
					!strings.Contains(st.With["platforms"], "linux/amd64") || !strings.Contains(st.With["platforms"], "linux/arm64") ||
					st.With["tags"] != "${{ env.IMAGE }}:${{ github.ref_name }}" {
					t.Errorf("image step %v: want target release, push, amd64+arm64, tag ${{ env.IMAGE }}:${{ github.ref_name }}", st.With)
				}
			case strings.Contains(st.Run, `scripts/pin-image.sh "$IMAGE" "$GITHUB_REF_NAME" action.yml setup/action.yml`):
				pinned = i
				if !strings.Contains(st.Run, `git tag -f "$GITHUB_REF_NAME"`) || !strings.Contains(st.Run, "git push -f origin") {
					t.Error("the pin step must move the release tag to the commit it makes")
				}
			case strings.Contains(st.Run, "gh release create"):
				published = i
			}
		}
	}
	if pushed < 0 || pinned < 0 || published < 0 || !(pushed < pinned && pinned < published) {
		t.Errorf("steps: push image %d, pin action.yml %d, publish %d: want them all, in that order", pushed, pinned, published)
	}

	// Both actions name the same release.
	var cur, curSetup actionYAML
	readYAML(t, "action.yml", &cur)
	readYAML(t, "setup/action.yml", &curSetup)
	if want := "docker://" + image + ":" + curSetup.defaultOf("version"); cur.Runs.Image != want {
		t.Errorf("action.yml runs %q but setup/action.yml installs %q: pin both to one release", cur.Runs.Image, curSetup.defaultOf("version"))
	}

	// The rewrite, on a copy: only runs.image changes.
	orig, err := os.ReadFile("action.yml")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	cp, setupCp := filepath.Join(tmp, "action.yml"), filepath.Join(tmp, "setup.yml")
	os.WriteFile(cp, orig, 0o644)
	setupOrig, err := os.ReadFile("setup/action.yml")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(setupCp, setupOrig, 0o644)
	if out, err := exec.Command("bash", "scripts/pin-image.sh", image, "v9.8.7", cp, setupCp).CombinedOutput(); err != nil {
		t.Fatalf("pin-image.sh: %v\n%s", err, out)
	}
	got, _ := os.ReadFile(cp)
	var a actionYAML
	readYAML(t, cp, &a)
	if a.Runs.Image != "docker://"+image+":v9.8.7" {
		t.Errorf("after pin-image.sh, runs.image = %q", a.Runs.Image)
	}
	ol, gl := strings.Split(string(orig), "\n"), strings.Split(string(got), "\n")
	if len(ol) != len(gl) {
		t.Fatalf("pin-image.sh changed the line count: %d → %d", len(ol), len(gl))
	}
	changed := 0
	for i := range ol {
		if ol[i] != gl[i] {
			changed++
		}
	}
	if changed > 1 {
		t.Errorf("pin-image.sh changed %d lines, want only runs.image", changed)
	}
	var setup actionYAML
	readYAML(t, setupCp, &setup)
	if v := setup.defaultOf("version"); v != "v9.8.7" {
		t.Errorf("after pin-image.sh, the setup action installs %q by default, want v9.8.7", v)
	}
	if out, err := exec.Command("bash", "scripts/pin-image.sh", image, "latest", cp, setupCp).CombinedOutput(); err == nil {
		t.Errorf("pin-image.sh accepted version latest: %s", out)
	}
}

// fakeGitHub serves the few REST endpoints the action uses, with the shapes
// of the real API, and a blob host that must never see the token.
type fakeGitHub struct {
	t        *testing.T
	baseline []byte // zip of the last green run's artifact; nil = none
	mu       sync.Mutex
	comments []string // bodies; comment i has id i+1, by github-actions[bot]
	edits    int
	blob     *httptest.Server
}

// serveFakeGitHub serves f's API and its artifact blob host (blob; nil
// answers 404 to everything) for the test's life, and returns the API's
// base URL as GITHUB_API_URL gives it.
func serveFakeGitHub(t *testing.T, f *fakeGitHub, blob http.Handler) string {
	t.Helper()
	f.t = t
	if blob == nil {
		blob = http.NotFoundHandler()
	}
	f.blob = httptest.NewServer(blob)
	t.Cleanup(f.blob.Close)
	api := httptest.NewServer(f.handler())
	t.Cleanup(api.Close)
	return api.URL + "/api/v3"
}

// stepFiles creates the step's GITHUB_OUTPUT and GITHUB_STEP_SUMMARY
// files in dir, empty, as the runner does.
func stepFiles(dir string) (outputs, summary string) {
	outputs, summary = filepath.Join(dir, "output"), filepath.Join(dir, "summary")
	os.WriteFile(outputs, nil, 0o644)
	os.WriteFile(summary, nil, 0o644)
	return outputs, summary
}

// pullRequestStep is the environment of an Action step on a labeled pull
// request of acme/weather-mcp, with its workspace in dir and the GitHub
// API at apiURL, plus more (inputs, secrets); it returns the variables and
// the output and summary files.
func pullRequestStep(dir, apiURL string, more map[string]string) (vars map[string]string, outputs, summary string) {
	outputs, summary = stepFiles(dir)
	vars = map[string]string{
		"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "pull_request",
		"GITHUB_EVENT_PATH": "github/testdata/pull_request_labeled.json", "GITHUB_REPOSITORY": "acme/weather-mcp",
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

func (f *fakeGitHub) handler() http.Handler {
	// A GitHub Enterprise Server-style base URL: the client must honour it.
	const p = "/api/v3/repos/acme/weather-mcp"
	mux := http.NewServeMux()
	js := func(w http.ResponseWriter, v any) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(v)
	}
	run := func(id int) map[string]any {
		repo := map[string]any{"id": 1, "full_name": "acme/weather-mcp", "fork": false, "owner": map[string]any{"login": "acme"}, "name": "weather-mcp"}
		return map[string]any{"id": id, "workflow_id": 7, "run_number": id, "event": "push", "head_branch": "main",
			"status": "completed", "conclusion": "success", "html_url": fmt.Sprintf("https://github.com/acme/weather-mcp/actions/runs/%d", id),
			"created_at": "2026-11-29T03:00:00Z", "head_repository": repo, "repository": repo}
	}
	mux.HandleFunc("GET "+p+"/actions/runs/100", func(w http.ResponseWriter, r *http.Request) { js(w, run(100)) })
	mux.HandleFunc("GET "+p+"/actions/workflows/7/runs", func(w http.ResponseWriter, r *http.Request) {
		runs := []any{}
		if f.baseline != nil {
			runs = append(runs, run(90))
		}
		js(w, map[string]any{"total_count": len(runs), "workflow_runs": runs})
	})
	mux.HandleFunc("GET "+p+"/actions/runs/90/artifacts", func(w http.ResponseWriter, r *http.Request) {
		js(w, map[string]any{"total_count": 1, "artifacts": []any{map[string]any{"id": 5, "name": "mcp-eval-report",
			"size_in_bytes": len(f.baseline), "expired": false, "archive_download_url": "x"}}})
	})
	mux.HandleFunc("GET "+p+"/actions/artifacts/5/zip", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", f.blob.URL+"/blob/5.zip?sig=abc")
		w.WriteHeader(http.StatusFound)
	})
	mux.HandleFunc("GET "+p+"/issues/7/labels", func(w http.ResponseWriter, r *http.Request) {
		js(w, []any{map[string]any{"name": "bug"}})
	})
	comment := func(i int) map[string]any {
		return map[string]any{"id": i + 1, "body": f.comments[i], "html_url": fmt.Sprintf("https://github.com/acme/weather-mcp/pull/7#issuecomment-%d", i+1),
			"user": map[string]any{"login": "github-actions[bot]", "type": "Bot"}}
	}
	mux.HandleFunc("GET "+p+"/issues/7/comments", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		list := []any{}
		for i := range f.comments {
			list = append(list, comment(i))
		}
		js(w, list)
	})
	mux.HandleFunc("POST "+p+"/issues/7/comments", func(w http.ResponseWriter, r *http.Request) {
		var c struct {
			Body string `json:"body"`
		}
		json.NewDecoder(r.Body).Decode(&c)
		f.mu.Lock()
		defer f.mu.Unlock()
		f.comments = append(f.comments, c.Body)
		w.WriteHeader(http.StatusCreated)
		js(w, comment(len(f.comments)-1))
	})
	mux.HandleFunc("PATCH "+p+"/issues/comments/{id}", func(w http.ResponseWriter, r *http.Request) {
		var c struct {
			Body string `json:"body"`
		}
		json.NewDecoder(r.Body).Decode(&c)
		id, _ := strconv.Atoi(r.PathValue("id"))
		f.mu.Lock()
		defer f.mu.Unlock()
		if id < 1 || id > len(f.comments) {
			http.NotFound(w, r)
			return
		}
		f.comments[id-1] = c.Body
		f.edits++
		js(w, comment(id-1))
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		f.t.Errorf("unexpected API call %s %s", r.Method, r.URL)
		http.NotFound(w, r)
	})
	return mux
}

func zipReport(t *testing.T, reportJSON []byte) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("report.json")
	w.Write(reportJSON)
	zw.Close()
	return buf.Bytes()
}

func TestActionEndToEnd(t *testing.T) {
	clean := mcptest.Serve(t, mcptest.Options{})
	broken := mcptest.Serve(t, mcptest.Options{Defects: mcptest.ParseDefects("caching/tools-list")})

	// The baseline: a green conformance run of the clean server.
	baseDir := t.TempDir()
	if code, _, stderr := runCLI(t, env(nil), "conformance", "--server-url", clean.URL, "--out", baseDir, "--runs", "1"); code != 0 {
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
			f := &fakeGitHub{baseline: tt.baseline}
			apiURL := serveFakeGitHub(t, f, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("Authorization") != "" {
					t.Error("the artifact blob host received the token")
				}
				w.Write(f.baseline)
			}))
			dir := t.TempDir()
			vars, outputs, summary := pullRequestStep(dir, apiURL, map[string]string{
				"GITHUB_SERVER_URL": "https://github.com",
				"GITHUB_SHA":        "abc123", "GITHUB_BASE_REF": "main", "GITHUB_HEAD_REF": "forecast-units",
				"INPUT_SERVER-URL": tt.server, "INPUT_GITHUB-TOKEN": token, "INPUT_RUNS": "1",
				"INPUT_LAYERS": "auto", "INPUT_COMMENT": "true", "INPUT_BASELINE-ARTIFACT": "mcp-eval-report",
				"INPUT_EVAL-LABEL": "run-evals",
			})
			code, stdout, stderr := runCLI(t, env(vars), "action")
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
			assertPathOutputs(t, dir, githubtest.Outputs(t, string(out)))
			if !bytes.Contains(sum, []byte("mcp-eval")) || !bytes.Contains(sum, []byte("### Notes")) {
				t.Errorf("summary:\n%s", sum)
			}
			// Our notes are Markdown: the label is one code span, not an
			// escaped backtick (issue 8: code spans escaped twice).
			if !bytes.Contains(sum, []byte("`run-evals`")) || bytes.Contains(sum, []byte("\\`")) {
				t.Errorf("the notes escape their own code spans:\n%s", sum)
			}
			// The payload says run-evals, the API says the label is gone (and
			// no models are configured): conformance only.
			if !bytes.Contains(out, []byte("conformance")) {
				t.Errorf("layers output missing:\n%s", out)
			}
			if len(f.comments) != 1 {
				t.Fatalf("%d comments posted, want 1", len(f.comments))
			}
			for _, w := range tt.wantIn {
				if !strings.Contains(f.comments[0], w) {
					t.Errorf("comment lacks %q:\n%s", w, f.comments[0])
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
				if strings.Contains(f.comments[0], dir) || strings.Contains(string(sum), "mcp-eval-baseline-") {
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

// assertPathOutputs checks what the next step on the host sees: each path
// output is relative (the host's working directory is the workspace) and
// names an existing file there.
func assertPathOutputs(t *testing.T, workspace string, outputs map[string]string) {
	t.Helper()
	for _, name := range []string{"report-path", "summary-path", "sarif-path"} {
		p, ok := outputs[name]
		if !ok {
			t.Errorf("output %s not set", name)
			continue
		}
		if filepath.IsAbs(p) || strings.HasPrefix(p, "..") {
			t.Errorf("output %s = %q: want a path relative to the workspace", name, p)
			continue
		}
		if _, err := os.Stat(filepath.Join(workspace, filepath.FromSlash(p))); err != nil {
			t.Errorf("output %s = %q does not exist in the workspace on the host: %v", name, p, err)
		}
	}
}

// TestActionHostModeStdio is the setup action's route: `mcp-eval action` on
// the host, inputs as flags, a stdio server that needs the host's runtime
// (here the example server, built for this machine), the token from
// GITHUB_TOKEN as a run step passes it.
func TestActionHostModeStdio(t *testing.T) {
	server := buildExampleServer(t)
	dir := t.TempDir()
	f := &fakeGitHub{}
	apiURL := serveFakeGitHub(t, f, nil)
	const token = "ghs_0123456789abcdefHOSTMODE"
	vars, outputs, _ := pullRequestStep(dir, apiURL, map[string]string{"GITHUB_TOKEN": token})
	code, stdout, stderr := runCLI(t, env(vars), "action", "--server-cmd", "'"+server+"'", "--runs=1")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	o := readOutputs(t, outputs)
	if o["passed"] != "true" {
		t.Errorf("passed = %q", o["passed"])
	}
	assertPathOutputs(t, dir, o)
	if !strings.Contains(stdout, "::add-mask::"+token) {
		t.Error("GITHUB_TOKEN was not masked")
	}
	if len(f.comments) != 1 {
		t.Errorf("%d comments, want 1 (the token from GITHUB_TOKEN)", len(f.comments))
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

	f := &fakeGitHub{}
	apiURL := serveFakeGitHub(t, f, nil)
	const token = "ghs_0123456789abcdefEXIT3"
	step := func(t *testing.T, inputs map[string]string) (int, string, map[string]string, []byte) {
		vars, outputs, summary := pullRequestStep(t.TempDir(), apiURL, map[string]string{
			"GITHUB_SERVER_URL": "https://github.com", "GITHUB_WORKFLOW": "mcp-eval", "GITHUB_JOB": "eval",
			"INPUT_GITHUB-TOKEN": token, "INPUT_RUNS": "1", "INPUT_TIMEOUT": "2s",
		})
		maps.Copy(vars, inputs)
		code, stdout, _ := runCLI(t, env(vars), "action")
		sum, _ := os.ReadFile(summary)
		return code, stdout, readOutputs(t, outputs), sum
	}

	if code, _, o, _ := step(t, map[string]string{"INPUT_SERVER-URL": clean.URL}); code != 0 || o["passed"] != "true" {
		t.Fatalf("first run: exit %d, outputs %v", code, o)
	}
	if len(f.comments) != 1 || !strings.Contains(f.comments[0], "mcp-eval passed") {
		t.Fatalf("first run's comment: %q", f.comments)
	}
	for _, tt := range []struct {
		name   string
		inputs map[string]string
		code   string
		why    string
	}{
		{"exit 3: the server is gone", map[string]string{"INPUT_SERVER-URL": goneURL}, "3", "could not reach the server"},
		{"exit 3: a program the runner lacks", map[string]string{"INPUT_SERVER-CMD": "mcp-eval-no-such-runtime server.js"}, "3", `program "mcp-eval-no-such-runtime" not found`},
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
			if !strings.Contains(string(sum), "could not evaluate the server (exit "+tt.code+")") {
				t.Errorf("summary does not say it could not evaluate:\n%s", sum)
			}
			if !strings.Contains(stdout, "::error title=mcp-eval::mcp-eval could not evaluate the server (exit "+tt.code+")") {
				t.Errorf("no error annotation:\n%s", stdout)
			}
			f.mu.Lock()
			defer f.mu.Unlock()
			if len(f.comments) != 1 {
				t.Fatalf("%d comments, want the one comment updated", len(f.comments))
			}
			c := f.comments[0]
			if strings.Contains(c, "mcp-eval passed") || !strings.Contains(c, "could not evaluate the server (exit "+tt.code+")") {
				t.Errorf("the comment still claims the old result or lacks the reason:\n%s", c)
			}
			if strings.Contains(c, token) || strings.Contains(string(sum), token) || strings.Contains(o["error"], token) {
				t.Error("the token leaked")
			}
		})
	}
}

// TestExampleWorkflows holds the example workflows to what the README
// promises: third-party actions pinned by full commit SHA, no permissions
// at the top and the least per job, a concurrency group that a push can
// never use to cancel the nightly run, and labeled events that re-run the
// job only for the eval label.
func TestExampleWorkflows(t *testing.T) {
	files, err := filepath.Glob("examples/workflows/*.yml")
	if err != nil || len(files) < 4 {
		t.Fatalf("example workflows: %v %v", files, err)
	}
	ci, _ := filepath.Glob(".github/workflows/*.yml")
	pinned := regexp.MustCompile(`^[\w.-]+/[\w./-]+@[0-9a-f]{40}$`)
	for _, file := range append(files, ci...) {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var wf struct {
			On          map[string]any `yaml:"on"`
			Permissions any            `yaml:"permissions"`
			Concurrency struct {
				Group  string `yaml:"group"`
				Cancel string `yaml:"cancel-in-progress"`
			} `yaml:"concurrency"`
			Jobs map[string]struct {
				If          string         `yaml:"if"`
				Permissions map[string]any `yaml:"permissions"`
				Steps       []struct {
					Uses string `yaml:"uses"`
				} `yaml:"steps"`
			} `yaml:"jobs"`
		}
		if err := yaml.Unmarshal(b, &wf); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for name, job := range wf.Jobs {
			for _, st := range job.Steps {
				if st.Uses == "" || strings.HasPrefix(st.Uses, "mcp-eval/mcp-eval") || strings.HasPrefix(st.Uses, "./") {
					continue
				}
				if !pinned.MatchString(st.Uses) {
					t.Errorf("%s job %s: %s is not pinned by a full commit SHA", file, name, st.Uses)
				}
			}
			if strings.HasPrefix(file, "examples/") && job.Permissions == nil {
				t.Errorf("%s job %s: no permissions block (the least it needs)", file, name)
			}
		}
		if !strings.HasPrefix(file, "examples/") {
			continue
		}
		if p, ok := wf.Permissions.(map[string]any); !ok || len(p) != 0 {
			t.Errorf("%s: top-level permissions %v, want {} (each job names its own)", file, wf.Permissions)
		}
		if _, ok := wf.On["schedule"]; ok {
			if !strings.Contains(wf.Concurrency.Group, "github.event_name == 'schedule'") || !strings.Contains(wf.Concurrency.Group, "github.run_id") {
				t.Errorf("%s: concurrency group %q lets a push share (and cancel) the nightly run's group", file, wf.Concurrency.Group)
			}
			if wf.Concurrency.Cancel != "${{ github.event_name == 'pull_request' }}" {
				t.Errorf("%s: cancel-in-progress %q, want pull requests only", file, wf.Concurrency.Cancel)
			}
		}
		if pr, ok := wf.On["pull_request"].(map[string]any); ok && strings.Contains(fmt.Sprint(pr["types"]), "labeled") {
			for name, job := range wf.Jobs {
				if job.If != "" && !strings.Contains(job.If, "github.event.label.name == 'run-evals'") {
					t.Errorf("%s job %s: a labeled event must re-run only for the run-evals label (if: %q)", file, name, job.If)
				}
			}
		}
	}
}

// A scheduled run without models says why the model layers did not run
// (never "All layers"), and a header's expanded value is what is masked.
func TestActionScheduledWithoutModelsAndHeaderMask(t *testing.T) {
	clean := mcptest.Serve(t, mcptest.Options{})
	dir := t.TempDir()
	outputs, summary := stepFiles(dir)
	const secret = "mcp-header-secret-0123456789"
	vars := map[string]string{
		"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "schedule", "GITHUB_EVENT_PATH": "github/testdata/schedule.json",
		"GITHUB_REF": "refs/heads/main", "GITHUB_STEP_SUMMARY": summary, "GITHUB_OUTPUT": outputs,
		"GITHUB_WORKSPACE": dir, "RUNNER_TEMP": dir, "MCP_TOKEN": secret,
		"INPUT_SERVER-URL": clean.URL, "INPUT_RUNS": "1", "INPUT_HEADERS": "Authorization: Bearer $MCP_TOKEN",
	}
	code, stdout, stderr := runCLI(t, env(vars), "action")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	// The expanded header value is what must be masked.
	mustContain(t, "stdout", stdout, "::add-mask::Bearer "+secret+"\n", "::add-mask::"+secret+"\n")
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
	if code, _, stderr := runCLI(t, env(nil), "conformance", "--server-url", clean.URL, "--out", baseDir, "--runs", "1"); code != 0 {
		t.Fatalf("baseline run: %d %s", code, stderr)
	}
	runCLI(t, env(nil), "conformance", "--server-url", broken.URL, "--out", shardDir, "--runs", "1")
	clean.Close()
	broken.Close() // nothing may be contacted from here on
	merged := filepath.Join(shardDir, "merged.json")
	if code, _, stderr := runCLI(t, env(nil), "merge", "-o", merged, filepath.Join(shardDir, "report.json")); code != 0 {
		t.Fatalf("merge: %d %s", code, stderr)
	}
	baseJSON, _ := os.ReadFile(filepath.Join(baseDir, "report.json"))

	f := &fakeGitHub{baseline: zipReport(t, baseJSON)}
	apiURL := serveFakeGitHub(t, f, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(f.baseline) }))
	dir := t.TempDir()
	vars, outputs, summary := pullRequestStep(dir, apiURL, map[string]string{
		"GITHUB_SERVER_URL":  "https://github.com",
		"INPUT_GITHUB-TOKEN": "ghs_0123456789abcdefMERGED", "INPUT_REPORT": merged,
	})
	code, _, stderr := runCLI(t, env(vars), "action")
	if code != 1 {
		t.Fatalf("exit %d, want 1 (the merged report regressed against the baseline)\n%s", code, stderr)
	}
	o := readOutputs(t, outputs)
	if o["passed"] != "false" || o["exit-code"] != "1" {
		t.Errorf("outputs %v", o)
	}
	assertPathOutputs(t, dir, o)
	if len(f.comments) != 1 || !strings.Contains(f.comments[0], "caching/tools-list") {
		t.Errorf("want one comment naming the regression: %q", f.comments)
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
	f := &fakeGitHub{}
	apiURL := serveFakeGitHub(t, f, nil)
	const secret = "sk-proj-0123456789_abcdef_SECRET"
	vars, outputs, summary := pullRequestStep(t.TempDir(), apiURL, map[string]string{
		"OPENAI_API_KEY":     secret,
		"INPUT_GITHUB-TOKEN": "ghs_0123456789abcdefREDACT",
		// A careless workflow: the key pasted where the program goes.
		"INPUT_SERVER-CMD": secret + " --stdio",
	})
	code, stdout, _ := runCLI(t, env(vars), "action")
	if code != 3 {
		t.Fatalf("exit %d, want 3", code)
	}
	out, _ := os.ReadFile(outputs)
	sum, _ := os.ReadFile(summary)
	published := map[string]string{"outputs": string(out), "summary": string(sum), "annotations": stdout}
	if len(f.comments) != 1 {
		t.Fatalf("%d comments, want 1", len(f.comments))
	}
	published["comment"] = f.comments[0]
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
	outputs, _ := stepFiles(dir)
	vars := map[string]string{
		"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "push", "GITHUB_REF": "refs/heads/main",
		"GITHUB_OUTPUT": outputs, "GITHUB_WORKSPACE": dir, "RUNNER_TEMP": dir,
	}
	code, stdout, stderr := runCLI(t, env(vars), "action",
		"--server-cmd", fmt.Sprintf("'%s' '%s'", node, server), "--protocol-version", "2025-11-25", "--runs", "1")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	o := readOutputs(t, outputs)
	assertPathOutputs(t, dir, o)
	var rep report.Report
	b, _ := os.ReadFile(filepath.Join(dir, filepath.FromSlash(o["report-path"])))
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Server.Transport != "stdio" || rep.Server.Era != "legacy" || o["passed"] != "true" {
		t.Errorf("transport %q era %q passed %q: want the Node server evaluated over stdio", rep.Server.Transport, rep.Server.Era, o["passed"])
	}
}
