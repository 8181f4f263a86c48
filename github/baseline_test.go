package github

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-eval/mcp-eval/report"
)

var (
	conf = []string{report.LayerConformance}
	full = []string{report.LayerConformance, report.LayerBehavior, report.LayerResilience, report.LayerTelemetry}
)

func art(id int64, blob []byte) fakeArtifact {
	return fakeArtifact{ID: id, Name: DefaultArtifactName, Blob: blob}
}

func wantWarning(t *testing.T, err error, kind WarningKind, substr string) *Warning {
	t.Helper()
	var w *Warning
	if !errors.As(err, &w) {
		t.Fatalf("error = %v (%T), want a *Warning", err, err)
	}
	if w.Kind != kind {
		t.Errorf("Warning.Kind = %d, want %d (%v)", w.Kind, kind, w)
	}
	if !strings.Contains(w.Error(), substr) {
		t.Errorf("warning %q does not say %q", w.Error(), substr)
	}
	return w
}

func skippedSays(t *testing.T, skipped []string, substr string) {
	t.Helper()
	for _, s := range skipped {
		if strings.Contains(s, substr) {
			return
		}
	}
	t.Errorf("Skipped = %q, want an entry saying %q", skipped, substr)
}

// fetchBaseline is FetchBaselines for one layer, as the search's tests
// read it: the report found for layer (nil when none), the run it came
// from, and why newer runs were passed over.
func fetchBaseline(ctx context.Context, c *Client, layer string) (*report.Report, Baseline, []string, error) {
	bs, err := c.FetchBaselines(ctx, []string{layer})
	if bs == nil {
		return nil, Baseline{}, nil, err
	}
	return bs.Parts[layer], bs.From[layer], bs.Skipped, err
}

func TestFetchBaselineFirstRun(t *testing.T) {
	t.Parallel()
	f := newFakeGitHub(t, "/api/v3")
	rep, b, skipped, err := fetchBaseline(t.Context(), f.client(t, Config{}), report.LayerConformance)
	if rep != nil {
		t.Errorf("report = %+v, want none", rep)
	}
	wantWarning(t, err, NoBaseline, "no earlier successful run on main")
	if b.RunID != 0 || len(skipped) != 0 {
		t.Errorf("Baseline = %+v, want empty", b)
	}
	if got := b.String(); got != "no baseline" {
		t.Errorf("String() = %q", got)
	}
}

func TestFetchBaselineFound(t *testing.T) {
	t.Parallel()
	f := newFakeGitHub(t, "/api/v3")
	created := time.Date(2026, 11, 29, 3, 12, 0, 0, time.UTC)
	f.addRuns(
		fakeRun{ID: 8000, Number: 412, Created: created, Artifacts: []fakeArtifact{
			{ID: 70, Name: "other-artifact", Blob: []byte("PK")},
			art(71, reportZip(t, conf, 0.9)),
		}},
		fakeRun{ID: 7000, Number: 400, Artifacts: []fakeArtifact{art(61, reportZip(t, conf, 0.5))}},
	)
	rep, b, skipped, err := fetchBaseline(t.Context(), f.client(t, Config{}), report.LayerConformance)
	if err != nil {
		t.Fatalf("FetchBaseline: %v", err)
	}
	if got := rep.Scores["conformance.passRate"]; got != 0.9 {
		t.Errorf("baseline score = %v, want the newest run's 0.9", got)
	}
	want := Baseline{
		RunID: 8000, RunNumber: 412, HTMLURL: "https://github.com/acme/weather-mcp/actions/runs/8000",
		CreatedAt: created, Event: "push", Branch: "main", HeadSHA: b.HeadSHA,
	}
	if !b.CreatedAt.Equal(want.CreatedAt) {
		t.Errorf("CreatedAt = %v, want %v", b.CreatedAt, want.CreatedAt)
	}
	b.CreatedAt = created
	if !equalBaseline(b, want) || len(skipped) != 0 {
		t.Errorf("Baseline = %+v (skipped %q)\nwant %+v, nothing skipped", b, skipped, want)
	}
	if s := b.String(); !strings.Contains(s, "run #412 on main (push, 2026-11-29 03:12 UTC") || !strings.HasSuffix(s, want.HTMLURL) {
		t.Errorf("String() = %q", s)
	}
	// The runs query: the base branch, green runs only, newest first.
	var q url.Values
	for _, c := range f.calls {
		if strings.Contains(c, "/actions/workflows/161335/runs?") {
			u, _ := url.Parse(c[len("GET "):])
			q = u.Query()
		}
	}
	for k, v := range map[string]string{"branch": "main", "status": "success", "per_page": "100", "exclude_pull_requests": "true"} {
		if q.Get(k) != v {
			t.Errorf("runs query %s = %q, want %q (query %v)", k, q.Get(k), v, q)
		}
	}
	if n := f.callCount("GET /api/v3/repos/acme/weather-mcp/actions/runs/7000/artifacts"); n != 0 {
		t.Errorf("older run's artifacts listed %d times; the search should stop at the first hit", n)
	}
}

func equalBaseline(a, b Baseline) bool {
	return a.RunID == b.RunID && a.RunNumber == b.RunNumber && a.HTMLURL == b.HTMLURL &&
		a.CreatedAt.Equal(b.CreatedAt) && a.Event == b.Event && a.Branch == b.Branch &&
		a.HeadSHA == b.HeadSHA
}

// The nightly run has the behaviour layer; the push after it has only
// conformance. A behaviour baseline must come from the nightly run, a
// conformance baseline from the newest.
func TestFetchBaselinePrefersRunWithLayer(t *testing.T) {
	t.Parallel()
	f := newFakeGitHub(t, "/api/v3")
	f.addRuns(
		fakeRun{ID: 8100, Number: 420, Artifacts: []fakeArtifact{art(81, reportZip(t, conf, 1))}},
		fakeRun{ID: 8000, Number: 419, Event: "schedule", Artifacts: []fakeArtifact{art(80, reportZip(t, full, 0.8))}},
	)
	c := f.client(t, Config{})
	rep, b, skipped, err := fetchBaseline(t.Context(), c, report.LayerBehavior)
	if err != nil {
		t.Fatal(err)
	}
	if rep == nil || b.RunID != 8000 || !slices.Contains(rep.Layers, report.LayerBehavior) {
		t.Fatalf("got run %d (report %v), want the scheduled run 8000 with behavior", b.RunID, rep)
	}
	skippedSays(t, skipped, "run #420 (id 8100): its report has no behavior layer")

	_, b, _, err = fetchBaseline(t.Context(), c, report.LayerConformance)
	if err != nil || b.RunID != 8100 {
		t.Errorf("conformance baseline = run %d, %v; want the newest run 8100", b.RunID, err)
	}
}

// A layer no green run has gets no baseline (no other layer's report
// stands in), and both runs are named as passed over for lacking it; the
// layers they do have are found, so it is no warning.
func TestFetchBaselineWithoutLayer(t *testing.T) {
	t.Parallel()
	f := newFakeGitHub(t, "/api/v3")
	f.addRuns(
		fakeRun{ID: 8100, Number: 420, Artifacts: []fakeArtifact{art(81, reportZip(t, conf, 1))}},
		fakeRun{ID: 8000, Number: 419, Artifacts: []fakeArtifact{art(80, reportZip(t, conf, 0.7))}},
	)
	rep, b, skipped, err := fetchBaseline(t.Context(), f.client(t, Config{}), report.LayerTelemetry)
	if err != nil {
		t.Fatal(err)
	}
	if rep != nil || b.RunID != 0 {
		t.Errorf("got run %d (report %v); want none", b.RunID, rep)
	}
	if len(skipped) != 2 {
		t.Errorf("Skipped = %q, want both runs named", skipped)
	}
	skippedSays(t, skipped, "run #419 (id 8000): its report has no telemetry layer")
}

func TestFetchBaselineSkips(t *testing.T) {
	t.Parallel()
	good := func(t *testing.T) fakeRun {
		return fakeRun{ID: 1000, Number: 1, Artifacts: []fakeArtifact{art(10, reportZip(t, conf, 0.75))}}
	}
	rep := reportJSON(t, full, 1)
	zipped := reportZip(t, full, 1)
	bomb := append([]byte(`{"schemaVersion":1,"pad":"`), bytes.Repeat([]byte(" "), 2<<20)...)
	bomb = append(bomb, `"}`...)
	tests := []struct {
		name string
		// run is the newest run, number 2 (id 2000), whose one artifact
		// art(20, …) holds blob, or a zip of entries, or else zipped;
		// edit changes the artifact's listing.
		run     fakeRun
		blob    []byte
		entries []zipEntry
		edit    func(a *fakeArtifact)
		skip    string // what Skipped must say about the newest run
		cfg     Config
	}{
		{
			name: "pull request run from a fork branch named main",
			run:  fakeRun{Event: "pull_request", HeadRepo: "mallory/weather-mcp", Fork: true},
			skip: "a pull_request run",
		},
		{
			name: "push run whose head repository is a fork",
			run:  fakeRun{HeadRepo: "mallory/weather-mcp", Fork: true},
			skip: "head repository mallory/weather-mcp is a fork",
		},
		{
			name: "head repository with another name",
			run:  fakeRun{HeadRepo: "acme/weather-mcp-mirror"},
			skip: "is a fork",
		},
		{
			name: "expired artifact",
			edit: func(a *fakeArtifact) { a.Expired = true },
			skip: "has expired",
		},
		{
			name: "artifact expired between listing and download (410)",
			edit: func(a *fakeArtifact) { a.Status = 410 },
			skip: "expired or was deleted (410)",
		},
		{
			name: "no artifact of that name",
			blob: []byte("x"),
			edit: func(a *fakeArtifact) { a.Name = "coverage" },
			skip: `no artifact named "mcp-eval-report"`,
		},
		{
			name: "corrupt zip",
			blob: append(zipped[:len(zipped)/2:len(zipped)/2], bytes.Repeat([]byte{0xde}, 40)...),
			skip: "corrupt zip archive",
		},
		{
			name: "not a zip at all",
			blob: []byte("<html>login</html>"),
			skip: "not a zip archive",
		},
		{
			name: "oversized zip by its listed size",
			edit: func(a *fakeArtifact) { a.Size = 60 << 20 },
			skip: "over the 52428800-byte cap",
		},
		{
			name:    "oversized zip whose listed size lies",
			entries: []zipEntry{{"report.json", rep}, {"noise.bin", randomBytes(t, 8<<10)}},
			edit:    func(a *fakeArtifact) { a.Size = 100 },
			cfg:     Config{MaxZipBytes: 4 << 10},
			skip:    "over the 4096-byte cap",
		},
		{
			name:    "report.json entry over the cap (zip bomb)",
			entries: []zipEntry{{"report.json", bomb}},
			cfg:     Config{MaxReportBytes: 1 << 20},
			skip:    "over the 1048576-byte cap",
		},
		{
			name:    "report.json with a ../ path",
			entries: []zipEntry{{"../report.json", rep}},
			skip:    "unsafe path",
		},
		{
			name:    "another entry escaping the archive",
			entries: []zipEntry{{"report.json", rep}, {"a/../../../etc/cron.d/x", []byte("* * * * * root id")}},
			skip:    `unsafe path: "a/../../../etc/cron.d/x"`,
		},
		{
			name:    "absolute path",
			entries: []zipEntry{{"/report.json", rep}},
			skip:    "unsafe path",
		},
		{
			name:    "zip without report.json",
			entries: []zipEntry{{"summary.md", []byte("#")}},
			skip:    "holds no report.json",
		},
		{
			name:    "report of another schemaVersion",
			entries: []zipEntry{{"report.json", bytes.Replace(rep, []byte(`"schemaVersion": 1`), []byte(`"schemaVersion": 2`), 1)}},
			skip:    "schemaVersion 2; this mcp-eval reads 1",
		},
		{
			name:    "report.json that is not JSON",
			entries: []zipEntry{{"report.json", []byte("{nope")}},
			skip:    "not valid JSON",
		},
		{
			name: "blob storage refuses (403)",
			edit: func(a *fakeArtifact) { a.BlobStatus = 403 },
			skip: "artifact storage answered 403",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			blob := zipped
			switch {
			case tt.blob != nil:
				blob = tt.blob
			case tt.entries != nil:
				blob = makeZip(t, tt.entries...)
			}
			a := art(20, blob)
			if tt.edit != nil {
				tt.edit(&a)
			}
			newest := tt.run
			newest.ID, newest.Number, newest.Artifacts = 2000, 2, []fakeArtifact{a}
			f := newFakeGitHub(t, "/api/v3")
			f.addRuns(newest, good(t))
			rep, b, skipped, err := fetchBaseline(t.Context(), f.client(t, tt.cfg), report.LayerConformance)
			if err != nil {
				t.Fatalf("FetchBaseline: %v", err)
			}
			if b.RunID != 1000 || rep.Scores["conformance.passRate"] != 0.75 {
				t.Errorf("baseline = run %d, want the older good run 1000", b.RunID)
			}
			skippedSays(t, skipped, "run #2 (id 2000): ")
			skippedSays(t, skipped, tt.skip)
		})
	}
}

// With only a bad run there is no baseline, and the warning carries the
// reason for the summary.
func TestFetchBaselineNothingUsable(t *testing.T) {
	t.Parallel()
	f := newFakeGitHub(t, "/api/v3")
	f.addRuns(fakeRun{ID: 2000, Number: 2, Artifacts: []fakeArtifact{art(20, []byte("PK\x03\x04garbage"))}})
	rep, _, skipped, err := fetchBaseline(t.Context(), f.client(t, Config{}), report.LayerConformance)
	if rep != nil {
		t.Fatal("got a report from a corrupt zip")
	}
	wantWarning(t, err, NoBaseline, `none of the 1 successful runs examined on main has a usable "mcp-eval-report" artifact`)
	skippedSays(t, skipped, "corrupt zip archive")
}

// The redirect target is another host. The blob server fails the test on
// any Authorization header; here we also check that it was reached and
// that the API itself did get the token (newFakeGitHub checks each call).
func TestFetchBaselineRedirectWithoutToken(t *testing.T) {
	t.Parallel()
	f := newFakeGitHub(t, "/api/v3")
	f.addRuns(fakeRun{ID: 1000, Number: 1, Artifacts: []fakeArtifact{art(10, reportZip(t, conf, 1))}})
	if _, _, _, err := fetchBaseline(t.Context(), f.client(t, Config{}), report.LayerConformance); err != nil {
		t.Fatal(err)
	}
	if f.blobHits != 1 {
		t.Errorf("blob storage hit %d times, want 1", f.blobHits)
	}
	if f.callCount("GET /api/v3/repos/acme/weather-mcp/actions/artifacts/10/zip") != 1 {
		t.Errorf("download endpoint not called: %q", f.calls)
	}
}

// A 301 from the download endpoint to another host is not followed at all
// (go-github refuses it, since its transport would carry the token); the
// run is skipped, the token never leaves the API host.
func TestFetchBaselineMovedRedirectWithoutToken(t *testing.T) {
	t.Parallel()
	f := newFakeGitHub(t, "/api/v3")
	a := art(20, reportZip(t, conf, 1))
	a.Moved = true
	f.addRuns(fakeRun{ID: 2000, Number: 2, Artifacts: []fakeArtifact{a}},
		fakeRun{ID: 1000, Number: 1, Artifacts: []fakeArtifact{art(10, reportZip(t, conf, 0.75))}})
	_, b, skipped, err := fetchBaseline(t.Context(), f.client(t, Config{}), report.LayerConformance)
	if err != nil || b.RunID != 1000 {
		t.Errorf("baseline = run %d, %v; want the older run", b.RunID, err)
	}
	if f.blobHits != 1 {
		t.Errorf("blob hits = %d, want 1 (the good run only; the 301 is not followed)", f.blobHits)
	}
	skippedSays(t, skipped, "redirected to another host, which is not followed")
}

func TestFetchBaselineSkipsCurrentRun(t *testing.T) {
	t.Parallel()
	f := newFakeGitHub(t, "/api/v3")
	// A re-run of a green run lists itself as successful.
	f.addRuns(
		fakeRun{ID: currentRun, Number: 99, Artifacts: []fakeArtifact{art(99, reportZip(t, conf, 0.1))}},
		fakeRun{ID: 1000, Number: 1, Artifacts: []fakeArtifact{art(10, reportZip(t, conf, 1))}},
	)
	_, b, _, err := fetchBaseline(t.Context(), f.client(t, Config{}), report.LayerConformance)
	if err != nil || b.RunID != 1000 {
		t.Errorf("baseline = run %d, %v; want 1000, never the current run", b.RunID, err)
	}
}

func TestFetchBaselineCapsSearch(t *testing.T) {
	t.Parallel()
	f := newFakeGitHub(t, "/api/v3")
	for i := range 30 {
		id := int64(3000 - i)
		f.addRuns(fakeRun{ID: id, Number: int(id), Artifacts: []fakeArtifact{{ID: id, Name: "coverage", Blob: []byte("x")}}})
	}
	_, _, skipped, err := fetchBaseline(t.Context(), f.client(t, Config{MaxRuns: 5}), report.LayerConformance)
	wantWarning(t, err, NoBaseline, "none of the 5 successful runs examined")
	if n := f.callCount("GET /api/v3/repos/acme/weather-mcp/actions/runs/"); n != 1+5 { // the current run + 5 artifact lists
		t.Errorf("%d run/artifact calls, want 6 (cap 5): %q", n, f.calls)
	}
	if len(skipped) != 5 {
		t.Errorf("Skipped has %d entries, want 5", len(skipped))
	}
}

func TestFetchBaselineAPIFailures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		endpoint string
		code     int
		kind     WarningKind
		says     string
	}{
		{"runs list forbidden", "runs", 403, Forbidden, "permissions: actions: read"},
		{"current run forbidden", "run", 403, Forbidden, "permissions: actions: read"},
		{"runs list outage", "runs", 502, Unavailable, "GitHub answered 502"},
		{"artifact list outage", "artifacts", 500, Unavailable, "GitHub answered 500"},
		{"current run not found", "run", 404, NotFound, "not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFakeGitHub(t, "/api/v3")
			f.addRuns(fakeRun{ID: 1000, Number: 1, Artifacts: []fakeArtifact{art(10, reportZip(t, conf, 1))}})
			f.fail[tt.endpoint] = tt.code
			rep, _, _, err := fetchBaseline(t.Context(), f.client(t, Config{}), report.LayerConformance)
			if rep != nil {
				t.Error("got a report despite the failure")
			}
			wantWarning(t, err, tt.kind, tt.says)
		})
	}
}

func TestFetchBaselineBlobOutage(t *testing.T) {
	t.Parallel()
	f := newFakeGitHub(t, "/api/v3")
	a := art(10, reportZip(t, conf, 1))
	a.BlobStatus = 503
	f.addRuns(fakeRun{ID: 1000, Number: 1, Artifacts: []fakeArtifact{a}})
	_, _, _, err := fetchBaseline(t.Context(), f.client(t, Config{}), report.LayerConformance)
	w := wantWarning(t, err, Unavailable, "answered 503")
	if strings.Contains(w.Error(), "s3cr3t") {
		t.Errorf("warning %q leaks the signed URL", w.Error())
	}
}

// GITHUB_API_URL on GitHub Enterprise Server is https://HOST/api/v3; given
// without the suffix, go-github adds it.
func TestGHESBaseURL(t *testing.T) {
	t.Parallel()
	for _, suffix := range []string{"/api/v3", "/api/v3/", ""} {
		t.Run("suffix "+suffix, func(t *testing.T) {
			t.Parallel()
			f := newFakeGitHub(t, "/api/v3")
			f.addRuns(fakeRun{ID: 1000, Number: 1, Artifacts: []fakeArtifact{art(10, reportZip(t, conf, 1))}})
			env := f.env(f.api.URL + suffix)
			c, err := NewClient(env, Event{Name: "push"}, Config{Token: testToken})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := c.gh.BaseURL(), f.api.URL+"/api/v3/"; got != want {
				t.Errorf("BaseURL = %s, want %s", got, want)
			}
			if _, _, _, err := fetchBaseline(t.Context(), c, report.LayerConformance); err != nil {
				t.Errorf("FetchBaseline on GHES: %v", err)
			}
			if f.blobHits != 1 {
				t.Errorf("blob hits = %d", f.blobHits)
			}
		})
	}
}

func TestNewClientDefaults(t *testing.T) {
	t.Parallel()
	env, err := ReadEnv(mapEnv(map[string]string{"GITHUB_REPOSITORY": testFull, "GITHUB_RUN_ID": "1"}))
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewClient(env, Event{}, Config{Token: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if got := c.gh.BaseURL(); got != "https://api.github.com/" {
		t.Errorf("BaseURL = %s, want https://api.github.com/", got)
	}
	if c.gh.UserAgent() != "mcp-eval" {
		t.Errorf("UserAgent = %q", c.gh.UserAgent())
	}
	// GHE.com: api.<sub>.ghe.com keeps its path.
	env.APIURL = "https://api.octocorp.ghe.com"
	c, err = NewClient(env, Event{}, Config{Token: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if got := c.gh.BaseURL(); got != "https://api.octocorp.ghe.com/" {
		t.Errorf("GHE.com BaseURL = %s", got)
	}

	_, err = NewClient(env, Event{}, Config{})
	wantWarning(t, err, Forbidden, "github-token input is empty")
	env.Repository = ""
	_, err = NewClient(env, Event{}, Config{Token: "t"})
	wantWarning(t, err, Unavailable, "GITHUB_REPOSITORY is not set")
}

// The token transport adds the header for the API host only.
func TestAuthTransportScopesToken(t *testing.T) {
	t.Parallel()
	var seen []string
	rt := &authTransport{token: "tok", host: "api.github.com", scheme: "https",
		base: roundTripFunc(func(r *http.Request) (*http.Response, error) {
			seen = append(seen, r.URL.Host+"="+r.Header.Get("Authorization"))
			return nil, errors.New("offline")
		})}
	for _, u := range []string{"https://api.github.com/x", "https://API.GITHUB.COM/y", "https://blob.core.windows.net/z", "http://api.github.com/w"} {
		req, err := http.NewRequest(http.MethodGet, u, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = rt.RoundTrip(req)
		if req.Header.Get("Authorization") != "" {
			t.Errorf("%s: the caller's request was modified", u)
		}
	}
	want := []string{"api.github.com=Bearer tok", "API.GITHUB.COM=Bearer tok", "blob.core.windows.net=", "api.github.com="}
	if !slices.Equal(seen, want) {
		t.Errorf("headers = %q, want %q", seen, want)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func randomBytes(t testing.TB, n int) []byte {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDecodeArtifactPlainJSON(t *testing.T) {
	t.Parallel()
	// upload-artifact's archive: false stores the file itself.
	rep, _, why := decodeArtifact(reportJSON(t, conf, 0.5), 1<<20)
	if why != "" || rep.Scores["conformance.passRate"] != 0.5 {
		t.Errorf("decodeArtifact(json) = %v, %q", rep, why)
	}
	// report.json in a subdirectory, shallowest wins.
	z := makeZip(t, zipEntry{"deep/x/report.json", []byte("{}")}, zipEntry{"out/report.json", reportJSON(t, conf, 0.25)})
	rep, _, why = decodeArtifact(z, 1<<20)
	if why != "" || rep.Scores["conformance.passRate"] != 0.25 {
		t.Errorf("decodeArtifact(nested) = %v, %q", rep, why)
	}
	for _, tc := range []struct{ b, why string }{
		{`{"schemaVersion":1,"scores":"nope"}`, "does not match the report format"},
		{`{"tool":{}}`, "no schemaVersion"},
		{"{\"schemaVersion\":1,\n\"scores\":{\"conformance.passRate\":0,\"conformance.passRate\":1}}", `report.json: line 2: member "conformance.passRate" twice in one object`},
	} {
		if _, _, why := decodeArtifact([]byte(tc.b), 1<<20); !strings.Contains(why, tc.why) {
			t.Errorf("decodeArtifact(%s) = %q, want %q", tc.b, why, tc.why)
		}
	}
}

func TestSafeEntryName(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{
		"report.json": true, "out/report.json": true, "dir/": true,
		"../report.json": false, "a/../../b": false, "/etc/passwd": false, `..\evil`: false,
		"C:/x": false, "./report.json": false, "a//b": false, "": false, "a\x00b": false,
	} {
		if got := safeEntryName(name); got != want {
			t.Errorf("safeEntryName(%q) = %v, want %v", name, got, want)
		}
	}
}

// Expired artifacts are named expired: when every examined run's artifact
// has expired the warning says so and names the newest such run (a
// retention problem, not a corrupt artifact); when an older run's artifact
// is taken, the baseline line names the run used and the newer runs whose
// artifacts expired.
func TestFetchBaselineExpired(t *testing.T) {
	t.Parallel()
	expired := func(id int64) fakeArtifact {
		a := art(id, reportZip(t, conf, 1))
		a.Expired = true
		return a
	}
	gone := art(31, reportZip(t, conf, 1))
	gone.Status = 410
	f := newFakeGitHub(t, "/api/v3")
	f.addRuns(fakeRun{ID: 3000, Number: 3, Artifacts: []fakeArtifact{expired(30)}}, fakeRun{ID: 2000, Number: 2, Artifacts: []fakeArtifact{gone}})
	bs, err := f.client(t, Config{}).FetchBaselines(t.Context(), []string{report.LayerConformance})
	wantWarning(t, err, NoBaseline, `the "mcp-eval-report" artifacts of the 2 successful runs examined on main have expired (newest: run #3)`)
	if bs == nil || !slices.Equal(bs.Expired, []int{3, 2}) {
		t.Fatalf("Expired = %v, want [3 2]", bs)
	}

	f = newFakeGitHub(t, "/api/v3")
	f.addRuns(fakeRun{ID: 3000, Number: 3, Artifacts: []fakeArtifact{expired(30)}}, fakeRun{ID: 2000, Number: 2, Artifacts: []fakeArtifact{gone}},
		fakeRun{ID: 1000, Number: 1, Artifacts: []fakeArtifact{art(10, reportZip(t, conf, 0.75))}})
	bs, err = f.client(t, Config{}).FetchBaselines(t.Context(), []string{report.LayerConformance})
	if err != nil {
		t.Fatal(err)
	}
	lines := bs.Lines([]string{report.LayerConformance}, time.Now())
	if len(lines) != 1 || !strings.Contains(lines[0], "run #1") || !strings.HasSuffix(lines[0], "; the artifacts of the newer runs #3, #2 have expired") {
		t.Errorf("baseline lines %q: want run #1 named, and the newer runs #3, #2 as expired", lines)
	}
}
