package action

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mcp-eval/mcp-eval/github"
)

func TestWorkspacePath(t *testing.T) {
	ws := filepath.FromSlash("/github/workspace")
	for _, tt := range []struct{ ws, in, want string }{
		{ws, filepath.Join(ws, "mcp-eval-report", "report.json"), "mcp-eval-report/report.json"},
		{ws, filepath.Join(ws, "a", "b", "c.sarif"), "a/b/c.sarif"},
		{ws, filepath.FromSlash("/tmp/out/report.json"), filepath.FromSlash("/tmp/out/report.json")},
		{ws, filepath.FromSlash("/github/workspace2/report.json"), filepath.FromSlash("/github/workspace2/report.json")},
		{"", filepath.FromSlash("/x/report.json"), filepath.FromSlash("/x/report.json")},
	} {
		if got := workspacePath(tt.ws, tt.in); got != tt.want {
			t.Errorf("workspacePath(%q, %q) = %q, want %q", tt.ws, tt.in, got, tt.want)
		}
	}
}

func TestActionFlags(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want map[string]string
		err  string
	}{
		{args: []string{"--server-url=http://x/mcp", "--runs", "3"}, want: map[string]string{"INPUT_SERVER-URL": "http://x/mcp", "INPUT_RUNS": "3", "INPUT_MODELS": "from-env"}},
		{args: []string{"--server-ur=http://x"}, err: "unknown flag --server-ur (did you mean --server-url?)"},
		{args: []string{"--runs"}, err: "flag --runs needs a value"},
		{args: []string{"conformance"}, err: `unexpected argument "conformance"`},
	} {
		got, err := actionFlags(tt.args, func(k string) string { return map[string]string{"INPUT_MODELS": "from-env", "INPUT_RUNS": "9"}[k] })
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%v: error %v, want %q", tt.args, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%v: %v", tt.args, err)
		}
		for k, v := range tt.want {
			if got(k) != v {
				t.Errorf("%v: %s = %q, want %q", tt.args, k, got(k), v)
			}
		}
	}
}

// TestMissingPermissionIsAnnotated: a permission the token lacks (no
// actions: read for the baseline) is a ::warning:: annotation on the run as
// well as a note of the summary; other trouble stays a note.
func TestMissingPermissionIsAnnotated(t *testing.T) {
	var stdout, stderr strings.Builder
	a := &action{stdout: &stdout, stderr: &stderr, red: tokenRedactor("")}
	a.warn(&github.Warning{Kind: github.Forbidden, Op: "baseline", Msg: "no baseline: listing the workflow's runs was refused (403; the workflow needs permissions: actions: read)"})
	a.warn(errors.New("no baseline: the API is down"))
	if got := stdout.String(); strings.Count(got, "::warning") != 1 || !strings.Contains(got, "permissions: actions: read") {
		t.Errorf("annotations:\n%s\nwant one ::warning:: naming the permission", got)
	}
	if len(a.notes) != 2 {
		t.Errorf("%d notes, want both in the summary", len(a.notes))
	}
}

// TestForkLabelNoUselessPermission: on a fork pull request the token is
// read-only whatever permissions: says, so the eval label is not read
// (no 403 whose hint names a permission that cannot help); the summary
// says why the label runs no model layer and what does.
func TestForkLabelNoUselessPermission(t *testing.T) {
	var mu sync.Mutex
	var asked []string
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked = append(asked, r.URL.Path)
		mu.Unlock()
		http.Error(w, `{"message":"Resource not accessible by integration"}`, http.StatusForbidden)
	}))
	defer api.Close()
	b, err := os.ReadFile("../../github/testdata/pull_request_fork.json")
	if err != nil {
		t.Fatal(err)
	}
	env := github.Env{Actions: true, EventName: "pull_request", Repository: "acme/weather-mcp", RunID: 1, APIURL: api.URL + "/"}
	ev, err := github.ParseEvent(env, b)
	if err != nil {
		t.Fatal(err)
	}
	client, err := github.NewClient(env, ev, github.Config{Token: "ghs_0123456789abcdefFORK"})
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr strings.Builder
	a := &action{env: env, ev: ev, in: github.Inputs{EvalLabel: "run-evals", Layers: "auto", Models: "openai:gpt-4.1-mini"},
		client: client, stdout: &stdout, stderr: &stderr, red: tokenRedactor("")}
	if _, _, err := a.selectLayers(t.Context()); err != nil {
		t.Fatal(err)
	}
	if strings.Join(a.sel.Layers, ",") != "conformance" {
		t.Errorf("layers %v, want conformance only on a fork", a.sel.Layers)
	}
	var notes []string
	for _, n := range a.notes {
		notes = append(notes, n.text)
	}
	all := strings.Join(notes, "\n")
	if len(asked) > 0 || strings.Contains(all, "pull-requests: read") || strings.Contains(stdout.String(), "::warning") {
		t.Errorf("the labels were read (%v) or a permission suggested:\n%s\n%s", asked, all, stdout.String())
	}
	for _, want := range []string{"`run-evals` label does not run the model layers here", "whatever the workflow's `permissions:` say",
		"examples/workflows/mcp-eval-fork-comment.yml"} {
		if !strings.Contains(all, want) {
			t.Errorf("the notes lack %q:\n%s", want, all)
		}
	}
}
