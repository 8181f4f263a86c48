package apptest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// FakeGitHub serves the few REST endpoints the action uses, with the
// shapes of the real API, on a GitHub Enterprise Server-style base URL
// (the client must honour it), and a blob host that must never see the
// token.
type FakeGitHub struct {
	// Baseline is the zip of the last green run's artifact; nil: none.
	Baseline []byte

	t        testing.TB
	mu       sync.Mutex
	comments []string // bodies; comment i has id i+1, by github-actions[bot]
	blob     *httptest.Server
}

// Serve serves f's API and its artifact blob host (blob; nil answers 404
// to everything) for the test's life, and returns the API's base URL as
// GITHUB_API_URL gives it.
func (f *FakeGitHub) Serve(t testing.TB, blob http.Handler) string {
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

// Comments are the bodies of the pull request's comments, oldest first.
func (f *FakeGitHub) Comments() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.comments)
}

func (f *FakeGitHub) handler() http.Handler {
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
		if f.Baseline != nil {
			runs = append(runs, run(90))
		}
		js(w, map[string]any{"total_count": len(runs), "workflow_runs": runs})
	})
	mux.HandleFunc("GET "+p+"/actions/runs/90/artifacts", func(w http.ResponseWriter, r *http.Request) {
		js(w, map[string]any{"total_count": 1, "artifacts": []any{map[string]any{"id": 5, "name": "mcp-eval-report",
			"size_in_bytes": len(f.Baseline), "expired": false, "archive_download_url": "x"}}})
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
		js(w, comment(id-1))
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		f.t.Errorf("unexpected API call %s %s", r.Method, r.URL)
		http.NotFound(w, r)
	})
	return mux
}

// StepFiles creates the step's GITHUB_OUTPUT and GITHUB_STEP_SUMMARY
// files in dir, empty, as the runner does.
func StepFiles(dir string) (outputs, summary string) {
	outputs, summary = filepath.Join(dir, "output"), filepath.Join(dir, "summary")
	os.WriteFile(outputs, nil, 0o644)
	os.WriteFile(summary, nil, 0o644)
	return outputs, summary
}

// AssertPathOutputs checks what the next step on the host sees: each path
// output is relative (the host's working directory is the workspace) and
// names an existing file there.
func AssertPathOutputs(t testing.TB, workspace string, outputs map[string]string) {
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
