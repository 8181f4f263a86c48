package github

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-eval/mcp-eval/report"
)

// The fake GitHub REST API. Payloads follow the shapes of the REST docs
// (workflow runs, artifacts, issue comments, labels, error bodies) and
// go-github's types, including Link-header pagination and the 302 of the
// artifact download. Artifact bytes are served by a second server that
// stands for blob storage and fails the test if it ever sees a token.

const (
	testOwner  = "acme"
	testRepo   = "weather-mcp"
	testFull   = testOwner + "/" + testRepo
	testToken  = "ghs_testtoken123"
	workflowID = int64(161335)
	currentRun = int64(9000)
)

type fakeArtifact struct {
	ID      int64
	Name    string
	Expired bool
	Size    int64 // size_in_bytes; len(Blob) when 0
	Blob    []byte
	// Status, when set, is what the download endpoint answers instead of 302.
	Status int
	// BlobStatus, when set, is what blob storage answers instead of 200.
	BlobStatus int
	// Moved makes the download endpoint answer 301 to blob storage, which
	// go-github follows through the API client's own transport.
	Moved bool
}

type fakeRun struct {
	ID         int64
	Number     int
	Event      string // push when ""
	Branch     string // main when ""
	HeadRepo   string // testFull when ""
	Fork       bool
	Conclusion string // success when ""
	Created    time.Time
	Artifacts  []fakeArtifact
}

type fakeComment struct {
	ID    int64
	Body  string
	Login string
	Type  string // User or Bot
}

type fakeGitHub struct {
	t      testing.TB
	prefix string // path prefix of the API, e.g. /api/v3
	api    *httptest.Server
	blob   *httptest.Server

	mu       sync.Mutex
	runs     []fakeRun // newest first, as the API lists them
	comments []fakeComment
	labels   []string
	nextID   int64
	calls    []string // "METHOD /path?query" of every API request
	blobHits int

	// Status overrides per endpoint ("runs", "run", "artifacts",
	// "comments", "create", "edit", "labels"): answer with this code.
	fail map[string]int

	// token is the one credential the API accepts (testToken unless a
	// test sets a PAT); user is the login GET /user answers for it: ""
	// answers 403 as the API does for an installation token.
	token string
	user  string
}

func newFakeGitHub(t testing.TB, prefix string) *fakeGitHub {
	t.Helper()
	f := &fakeGitHub{t: t, prefix: prefix, nextID: 5000, fail: map[string]int{}, token: testToken}
	f.blob = httptest.NewServer(http.HandlerFunc(f.serveBlob))
	mux := http.NewServeMux()
	// Owner and repository are literal: a client that got them wrong gets
	// the 404 the real API would give.
	p := prefix + "/repos/" + testFull
	mux.HandleFunc("GET "+p+"/actions/runs/{id}", f.getRun)
	mux.HandleFunc("GET "+p+"/actions/workflows/{wid}/runs", f.listRuns)
	mux.HandleFunc("GET "+p+"/actions/runs/{id}/artifacts", f.listArtifacts)
	mux.HandleFunc("GET "+p+"/actions/artifacts/{id}/zip", f.downloadArtifact)
	mux.HandleFunc("GET "+p+"/issues/{n}/comments", f.listComments)
	mux.HandleFunc("POST "+p+"/issues/{n}/comments", f.createComment)
	mux.HandleFunc("PATCH "+p+"/issues/comments/{id}", f.editComment)
	mux.HandleFunc("GET "+p+"/issues/{n}/labels", f.listLabels)
	mux.HandleFunc("GET "+prefix+"/user", f.getUser)
	f.api = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.calls = append(f.calls, r.Method+" "+r.URL.RequestURI())
		f.mu.Unlock()
		f.mu.Lock()
		token := f.token
		f.mu.Unlock()
		if got := r.Header.Get("Authorization"); got != "Bearer "+token {
			t.Errorf("%s %s: Authorization = %q, want the bearer token", r.Method, r.URL.Path, got)
		}
		if ua := r.Header.Get("User-Agent"); !strings.HasPrefix(ua, "mcp-eval") {
			t.Errorf("%s %s: User-Agent = %q", r.Method, r.URL.Path, ua)
		}
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(f.api.Close)
	t.Cleanup(f.blob.Close)
	return f
}

// env is the runner environment of a push to main in this repository.
func (f *fakeGitHub) env(apiURL string) Env {
	return Env{
		Actions:    true,
		EventName:  "push",
		Repository: testFull,
		RunID:      currentRun,
		Ref:        "refs/heads/main",
		APIURL:     apiURL,
		ServerURL:  "https://github.com",
	}
}

func (f *fakeGitHub) client(t testing.TB, cfg Config) *Client {
	t.Helper()
	cfg.Token = f.token
	c, err := NewClient(f.env(f.api.URL+f.prefix), Event{Name: "push"}, cfg)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	return c
}

func (f *fakeGitHub) callCount(prefix string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, c := range f.calls {
		if strings.HasPrefix(c, prefix) {
			n++
		}
	}
	return n
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// apiError writes GitHub's error body.
func apiError(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, map[string]any{
		"message":           msg,
		"documentation_url": "https://docs.github.com/rest",
		"status":            strconv.Itoa(code),
	})
}

func (f *fakeGitHub) failed(w http.ResponseWriter, endpoint string) bool {
	f.mu.Lock()
	code := f.fail[endpoint]
	f.mu.Unlock()
	if code == 0 {
		return false
	}
	msg := map[int]string{
		403: "Resource not accessible by integration",
		404: "Not Found",
		500: "Server Error",
		502: "Bad Gateway",
	}[code]
	apiError(w, code, msg)
	return true
}

func (f *fakeGitHub) base() string { return f.api.URL + f.prefix }

func repoJSON(full string, fork bool) map[string]any {
	owner, name, _ := strings.Cut(full, "/")
	return map[string]any{
		"id":        int64(len(full)) * 1000,
		"node_id":   "R_kgDO" + name,
		"name":      name,
		"full_name": full,
		"private":   false,
		"owner":     map[string]any{"login": owner, "id": 4242, "type": "Organization"},
		"html_url":  "https://github.com/" + full,
		"fork":      fork,
	}
}

func (f *fakeGitHub) runJSON(r fakeRun) map[string]any {
	ts := r.Created.UTC().Format(time.RFC3339)
	head := r.HeadRepo
	if head == "" {
		head = testFull
	}
	var conclusion any = r.Conclusion
	status := "completed"
	if r.Conclusion == "none" { // the run that is asking: still in progress
		conclusion, status = nil, "in_progress"
	}
	return map[string]any{
		"id":              r.ID,
		"name":            "eval",
		"node_id":         fmt.Sprintf("WFR_kwLO%d", r.ID),
		"head_branch":     r.Branch,
		"head_sha":        fmt.Sprintf("%040x", r.ID),
		"path":            ".github/workflows/eval.yml",
		"display_title":   "Improve the forecast tool",
		"run_number":      r.Number,
		"run_attempt":     1,
		"event":           r.Event,
		"status":          status,
		"conclusion":      conclusion,
		"workflow_id":     workflowID,
		"check_suite_id":  r.ID * 3,
		"url":             fmt.Sprintf("%s/repos/%s/actions/runs/%d", f.base(), testFull, r.ID),
		"html_url":        fmt.Sprintf("https://github.com/%s/actions/runs/%d", testFull, r.ID),
		"pull_requests":   []any{},
		"created_at":      ts,
		"updated_at":      ts,
		"run_started_at":  ts,
		"artifacts_url":   fmt.Sprintf("%s/repos/%s/actions/runs/%d/artifacts", f.base(), testFull, r.ID),
		"workflow_url":    fmt.Sprintf("%s/repos/%s/actions/workflows/%d", f.base(), testFull, workflowID),
		"head_commit":     map[string]any{"id": fmt.Sprintf("%040x", r.ID), "message": "Improve the forecast tool", "timestamp": ts},
		"repository":      repoJSON(testFull, false),
		"head_repository": repoJSON(head, r.Fork),
		"actor":           map[string]any{"login": "octocat", "id": 1, "type": "User"},
	}
}

func normalize(r fakeRun) fakeRun {
	if r.Event == "" {
		r.Event = "push"
	}
	if r.Branch == "" {
		r.Branch = "main"
	}
	if r.Conclusion == "" {
		r.Conclusion = "success"
	}
	if r.Created.IsZero() {
		r.Created = time.Date(2026, 11, 1, 3, 0, 0, 0, time.UTC).Add(time.Duration(r.ID) * time.Minute)
	}
	return r
}

func (f *fakeGitHub) addRuns(runs ...fakeRun) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, r := range runs {
		f.runs = append(f.runs, normalize(r))
	}
}

func (f *fakeGitHub) getRun(w http.ResponseWriter, r *http.Request) {
	if f.failed(w, "run") {
		return
	}
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if id != currentRun {
		apiError(w, 404, "Not Found")
		return
	}
	writeJSON(w, 200, f.runJSON(normalize(fakeRun{ID: currentRun, Number: 99, Conclusion: "none"})))
}

// page applies per_page and page to n items and sets the Link header the
// way GitHub does.
func page(w http.ResponseWriter, r *http.Request, n int) (lo, hi int) {
	per, _ := strconv.Atoi(r.URL.Query().Get("per_page"))
	if per <= 0 {
		per = 30
	}
	pg, _ := strconv.Atoi(r.URL.Query().Get("page"))
	if pg <= 0 {
		pg = 1
	}
	last := max(1, (n+per-1)/per)
	link := func(p int, rel string) string {
		u := *r.URL
		q := u.Query()
		q.Set("page", strconv.Itoa(p))
		q.Set("per_page", strconv.Itoa(per))
		u.RawQuery = q.Encode()
		return fmt.Sprintf("<http://%s%s>; rel=%q", r.Host, u.RequestURI(), rel)
	}
	var links []string
	if pg < last {
		links = append(links, link(pg+1, "next"), link(last, "last"))
	}
	if pg > 1 {
		links = append(links, link(1, "first"), link(pg-1, "prev"))
	}
	if len(links) > 0 {
		w.Header().Set("Link", strings.Join(links, ", "))
	}
	lo = min(n, (pg-1)*per)
	return lo, min(n, lo+per)
}

func (f *fakeGitHub) listRuns(w http.ResponseWriter, r *http.Request) {
	if f.failed(w, "runs") {
		return
	}
	if wid := r.PathValue("wid"); wid != strconv.FormatInt(workflowID, 10) {
		apiError(w, 404, "Not Found")
		return
	}
	q := r.URL.Query()
	f.mu.Lock()
	var sel []map[string]any
	for _, run := range f.runs {
		// The real API filters on these; the fake does too so that the
		// client's query is what decides.
		if b := q.Get("branch"); b != "" && run.Branch != b {
			continue
		}
		if s := q.Get("status"); s != "" && run.Conclusion != s {
			continue
		}
		sel = append(sel, f.runJSON(run))
	}
	f.mu.Unlock()
	lo, hi := page(w, r, len(sel))
	writeJSON(w, 200, map[string]any{"total_count": len(sel), "workflow_runs": append([]map[string]any{}, sel[lo:hi]...)})
}

func (f *fakeGitHub) findRun(id int64) (fakeRun, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, r := range f.runs {
		if r.ID == id {
			return r, true
		}
	}
	return fakeRun{}, false
}

func (f *fakeGitHub) findArtifact(id int64) (fakeArtifact, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, r := range f.runs {
		for _, a := range r.Artifacts {
			if a.ID == id {
				return a, true
			}
		}
	}
	return fakeArtifact{}, false
}

func (f *fakeGitHub) listArtifacts(w http.ResponseWriter, r *http.Request) {
	if f.failed(w, "artifacts") {
		return
	}
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	run, ok := f.findRun(id)
	if !ok {
		apiError(w, 404, "Not Found")
		return
	}
	var arts []map[string]any
	for _, a := range run.Artifacts {
		size := a.Size
		if size == 0 {
			size = int64(len(a.Blob))
		}
		ts := run.Created.UTC().Format(time.RFC3339)
		arts = append(arts, map[string]any{
			"id":                   a.ID,
			"node_id":              fmt.Sprintf("MDg6QXJ0aWZhY3Q%d", a.ID),
			"name":                 a.Name,
			"size_in_bytes":        size,
			"url":                  fmt.Sprintf("%s/repos/%s/actions/artifacts/%d", f.base(), testFull, a.ID),
			"archive_download_url": fmt.Sprintf("%s/repos/%s/actions/artifacts/%d/zip", f.base(), testFull, a.ID),
			"expired":              a.Expired,
			"created_at":           ts,
			"updated_at":           ts,
			"expires_at":           run.Created.Add(90 * 24 * time.Hour).UTC().Format(time.RFC3339),
			"workflow_run": map[string]any{
				"id": run.ID, "repository_id": 1296269, "head_repository_id": 1296269,
				"head_branch": run.Branch, "head_sha": fmt.Sprintf("%040x", run.ID),
			},
		})
	}
	lo, hi := page(w, r, len(arts))
	writeJSON(w, 200, map[string]any{"total_count": len(arts), "artifacts": append([]map[string]any{}, arts[lo:hi]...)})
}

func (f *fakeGitHub) downloadArtifact(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	a, ok := f.findArtifact(id)
	switch {
	case !ok:
		apiError(w, 404, "Not Found")
	case a.Status == http.StatusGone || a.Expired:
		apiError(w, 410, "Artifact has expired")
	case a.Status != 0:
		apiError(w, a.Status, http.StatusText(a.Status))
	case a.Moved:
		w.Header().Set("Location", fmt.Sprintf("%s/blob/%d.zip?sig=s3cr3t", f.blob.URL, id))
		w.WriteHeader(http.StatusMovedPermanently)
	default:
		// A signed, short-lived blob URL, as GitHub hands out.
		w.Header().Set("Location", fmt.Sprintf("%s/blob/%d.zip?sig=s3cr3t&se=2026-11-30T12%%3A00%%3A00Z", f.blob.URL, id))
		w.WriteHeader(http.StatusFound)
	}
}

func (f *fakeGitHub) serveBlob(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.blobHits++
	f.mu.Unlock()
	if auth := r.Header.Get("Authorization"); auth != "" {
		f.t.Errorf("blob storage received Authorization %q: the token leaked past the redirect", auth)
	}
	if r.URL.Query().Get("sig") == "" {
		http.Error(w, "missing signature", http.StatusForbidden)
		return
	}
	idStr := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/blob/"), ".zip")
	id, _ := strconv.ParseInt(idStr, 10, 64)
	a, ok := f.findArtifact(id)
	if !ok {
		http.Error(w, "BlobNotFound", http.StatusNotFound)
		return
	}
	if a.BlobStatus != 0 {
		http.Error(w, http.StatusText(a.BlobStatus), a.BlobStatus)
		return
	}
	w.Header().Set("Content-Type", "application/zip")
	_, _ = w.Write(a.Blob)
}

func (f *fakeGitHub) commentJSON(c fakeComment) map[string]any {
	typ := c.Type
	if typ == "" {
		typ = "User"
	}
	m := map[string]any{
		"id":                 c.ID,
		"node_id":            fmt.Sprintf("IC_kwDO%d", c.ID),
		"url":                fmt.Sprintf("%s/repos/%s/issues/comments/%d", f.base(), testFull, c.ID),
		"html_url":           fmt.Sprintf("https://github.com/%s/pull/7#issuecomment-%d", testFull, c.ID),
		"issue_url":          fmt.Sprintf("%s/repos/%s/issues/7", f.base(), testFull),
		"body":               c.Body,
		"user":               map[string]any{"login": c.Login, "id": 41898282, "node_id": "MDM6Qm90NDE4OTgyODI=", "type": typ, "site_admin": false},
		"created_at":         "2026-11-29T10:00:00Z",
		"updated_at":         "2026-11-29T10:00:00Z",
		"author_association": "NONE",
	}
	if typ == "Bot" {
		m["performed_via_github_app"] = map[string]any{"id": 15368, "slug": "github-actions", "name": "GitHub Actions"}
	}
	return m
}

// listPage answers a paged list (op, as f.failed knows it) with the page
// of items that r asks for; items runs under f.mu.
func (f *fakeGitHub) listPage(w http.ResponseWriter, r *http.Request, op string, items func() []map[string]any) {
	if f.failed(w, op) {
		return
	}
	f.mu.Lock()
	all := items()
	f.mu.Unlock()
	lo, hi := page(w, r, len(all))
	writeJSON(w, 200, append([]map[string]any{}, all[lo:hi]...))
}

func (f *fakeGitHub) listComments(w http.ResponseWriter, r *http.Request) {
	f.listPage(w, r, "comments", func() []map[string]any {
		var all []map[string]any
		for _, c := range f.comments {
			all = append(all, f.commentJSON(c))
		}
		return all
	})
}

// commentBody reads the body of a comment create or edit request (op, as
// f.failed knows it), answering as GitHub does when the call is set to
// fail, the request has no body, or the body is over GitHub's limit; ok is
// false once it has answered.
func (f *fakeGitHub) commentBody(w http.ResponseWriter, r *http.Request, op string) (body string, ok bool) {
	if f.failed(w, op) {
		return "", false
	}
	var in struct {
		Body *string `json:"body"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Body == nil {
		apiError(w, 422, "Invalid request.")
		return "", false
	}
	if len([]rune(*in.Body)) > 65536 {
		writeJSON(w, 422, map[string]any{
			"message": "Validation Failed",
			"errors":  []any{map[string]any{"resource": "IssueComment", "code": "custom", "field": "body", "message": "body is too long (maximum is 65536 characters)"}},
		})
		return "", false
	}
	return *in.Body, true
}

func (f *fakeGitHub) createComment(w http.ResponseWriter, r *http.Request) {
	body, ok := f.commentBody(w, r, "create")
	if !ok {
		return
	}
	f.mu.Lock()
	f.nextID++
	// The author is whoever the token is.
	c := fakeComment{ID: f.nextID, Body: body, Login: "github-actions[bot]", Type: "Bot"}
	if f.user != "" {
		c.Login, c.Type = f.user, "User"
	}
	f.comments = append(f.comments, c)
	f.mu.Unlock()
	writeJSON(w, 201, f.commentJSON(c))
}

func (f *fakeGitHub) editComment(w http.ResponseWriter, r *http.Request) {
	body, ok := f.commentBody(w, r, "edit")
	if !ok {
		return
	}
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range f.comments {
		if f.comments[i].ID == id {
			// GitHub stores line breaks as CRLF in edited bodies at times;
			// the client must not take that for a change.
			f.comments[i].Body = strings.ReplaceAll(body, "\n", "\r\n")
			writeJSON(w, 200, f.commentJSON(f.comments[i]))
			return
		}
	}
	apiError(w, 404, "Not Found")
}

// getUser is GET /user: the token's own account, or the 403 an
// installation token (GITHUB_TOKEN) gets.
func (f *fakeGitHub) getUser(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	user := f.user
	f.mu.Unlock()
	if user == "" {
		apiError(w, 403, "Resource not accessible by integration")
		return
	}
	writeJSON(w, 200, map[string]any{"login": user, "id": 583231, "node_id": "MDQ6VXNlcjU4MzIzMQ==", "type": "User", "site_admin": false})
}

func (f *fakeGitHub) listLabels(w http.ResponseWriter, r *http.Request) {
	f.listPage(w, r, "labels", func() []map[string]any {
		var all []map[string]any
		for i, l := range f.labels {
			all = append(all, map[string]any{
				"id": 208045946 + i, "node_id": fmt.Sprintf("MDU6TGFiZWwy%d", i),
				"url":  fmt.Sprintf("%s/repos/%s/labels/%s", f.base(), testFull, l),
				"name": l, "description": "", "color": "f29513", "default": false,
			})
		}
		return all
	})
}

// Fixtures for artifacts.

func reportJSON(t testing.TB, layers []string, score float64) []byte {
	t.Helper()
	r := &report.Report{
		SchemaVersion: report.SchemaVersion,
		Tool:          report.Tool{Name: "mcp-eval", Version: "v1.0.0"},
		Layers:        layers,
		Server:        report.Server{Target: "http://mcp:8080/mcp", Transport: "http", Era: "modern"},
		Checks: []report.Check{
			{ID: "lifecycle/discover", Layer: report.LayerConformance, Group: "lifecycle", Level: report.LevelMust, Hard: true, Status: report.StatusPass, Runs: 1, Passed: 1},
		},
		Scores: map[string]float64{"conformance.passRate": score},
	}
	var b bytes.Buffer
	if err := report.WriteJSON(&b, r); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

type zipEntry struct {
	Name string
	Data []byte
}

func makeZip(t testing.TB, entries ...zipEntry) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, e := range entries {
		w, err := zw.Create(e.Name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(e.Data); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// reportZip is an artifact as upload-artifact builds it from the report
// directory: report.json beside the other outputs.
func reportZip(t testing.TB, layers []string, score float64) []byte {
	return makeZip(t,
		zipEntry{"junit.xml", []byte("<testsuites/>")},
		zipEntry{"report.json", reportJSON(t, layers, score)},
		zipEntry{"summary.md", []byte("# mcp-eval\n")},
	)
}
