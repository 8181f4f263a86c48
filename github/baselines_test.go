package github

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-eval/mcp-eval/report"
)

// A report of the given layers: conformance has a check and its pass rate,
// behavior a case and its pass rate. gate is nil for a report without a
// gate, else whether its own gate passed.
func layeredReport(t testing.TB, layers []string, conf, behavior float64, gate *bool) *report.Report {
	t.Helper()
	r := &report.Report{
		SchemaVersion: report.SchemaVersion,
		Tool:          report.Tool{Name: "mcp-eval", Version: "v1.0.0"},
		Layers:        layers,
		Server:        report.Server{Target: "http://mcp:8080/mcp", Transport: "http", Era: "modern", Fingerprint: fmt.Sprintf("fp-%v", behavior)},
		Checks: []report.Check{
			{ID: "lifecycle/discover", Layer: report.LayerConformance, Group: "lifecycle", Level: report.LevelMust, Hard: true, Status: report.StatusPass, Runs: 1, Passed: 1},
		},
		Cases:  []report.Case{},
		Scores: map[string]float64{"conformance.passRate": conf},
	}
	if slices.Contains(layers, report.LayerBehavior) {
		r.Cases = append(r.Cases, report.Case{ID: "forecast-basic", Model: "openai:gpt-4.1-mini", Kind: "soft", Runs: 5, Passed: 4, PassRate: 0.8, Status: report.StatusPass})
		r.Scores["behavior.passRate"] = behavior
		r.ScoresByModel = map[string]map[string]float64{"openai:gpt-4.1-mini": {"behavior.passRate": behavior}}
	}
	if gate != nil {
		r.Gate = &report.Gate{Passed: *gate, Deltas: map[string]float64{}, Reasons: []string{}}
		if !*gate {
			r.Gate.Reasons = []string{"conformance.passRate fell by 0.2"}
		}
	}
	return r
}

func zipOf(t testing.TB, r *report.Report, extra ...zipEntry) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := report.WriteJSON(&b, r); err != nil {
		t.Fatal(err)
	}
	return makeZip(t, append([]zipEntry{{"report.json", b.Bytes()}}, extra...)...)
}

func ptrBool(b bool) *bool { return &b }

var confBehavior = []string{report.LayerConformance, report.LayerBehavior}

// The nightly run carries the behaviour layer; the pushes after it have
// conformance only (and no carried files: an older mcp-eval, say). Each
// layer's baseline comes from the newest run that produced it, and the
// lines say which.
func TestFetchBaselinesPerLayer(t *testing.T) {
	t.Parallel()
	f := newFakeGitHub(t, "/api/v3")
	f.addRuns(
		fakeRun{ID: 8300, Number: 830, Artifacts: []fakeArtifact{art(83, zipOf(t, layeredReport(t, conf, 1, 0, ptrBool(true))))}},
		fakeRun{ID: 8200, Number: 820, Artifacts: []fakeArtifact{art(82, zipOf(t, layeredReport(t, conf, 0.9, 0, nil)))}},
		fakeRun{ID: 8100, Number: 810, Event: "schedule", Artifacts: []fakeArtifact{art(81, zipOf(t, layeredReport(t, confBehavior, 0.8, 0.75, ptrBool(true))))}},
		fakeRun{ID: 8000, Number: 800, Event: "schedule", Artifacts: []fakeArtifact{art(80, zipOf(t, layeredReport(t, confBehavior, 0.7, 0.5, ptrBool(true))))}},
	)
	bs, err := f.client(t, Config{}).FetchBaselines(t.Context(), confBehavior)
	if err != nil {
		t.Fatal(err)
	}
	if bs.From[report.LayerConformance].RunNumber != 830 || bs.From[report.LayerBehavior].RunNumber != 810 {
		t.Errorf("conformance from #%d, behavior from #%d; want #830 and the nightly #810",
			bs.From[report.LayerConformance].RunNumber, bs.From[report.LayerBehavior].RunNumber)
	}
	if len(bs.Missing) != 0 {
		t.Errorf("Missing = %v", bs.Missing)
	}
	if n := f.callCount("GET /api/v3/repos/acme/weather-mcp/actions/runs/8000/artifacts"); n != 0 {
		t.Error("the search went past the run that completed the set")
	}
	base := Compose(bs.Parts, confBehavior)
	if base.Scores["conformance.passRate"] != 1 || base.Scores["behavior.passRate"] != 0.75 || len(base.Cases) != 1 {
		t.Errorf("composed baseline scores %v, %d cases; want conformance of #830 and behavior of #810", base.Scores, len(base.Cases))
	}
	if base.Server.Fingerprint != "fp-0.75" {
		t.Errorf("fingerprint %q: want the behaviour source's, for drift attribution", base.Server.Fingerprint)
	}
	now := time.Date(2026, 11, 9, 0, 0, 0, 0, time.UTC)
	lines := strings.Join(bs.Lines(confBehavior, now), "\n")
	for _, w := range []string{"conformance baseline: run #830 on main (push,", "behavior baseline: run #810 on main (schedule,", "days ago"} {
		if !strings.Contains(lines, w) {
			t.Errorf("lines lack %q:\n%s", w, lines)
		}
	}
}

// A green run whose report's own gate failed (continue-on-error) is never
// a baseline.
func TestFetchBaselinesSkipsFailedGate(t *testing.T) {
	t.Parallel()
	f := newFakeGitHub(t, "/api/v3")
	f.addRuns(
		fakeRun{ID: 8200, Number: 820, Artifacts: []fakeArtifact{art(82, zipOf(t, layeredReport(t, confBehavior, 0.5, 0.2, ptrBool(false))))}},
		fakeRun{ID: 8100, Number: 810, Artifacts: []fakeArtifact{art(81, zipOf(t, layeredReport(t, confBehavior, 0.9, 0.8, ptrBool(true))))}},
	)
	bs, err := f.client(t, Config{}).FetchBaselines(t.Context(), confBehavior)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range confBehavior {
		if bs.From[l].RunNumber != 810 {
			t.Errorf("%s baseline from #%d, want #810 (the newer run's gate failed)", l, bs.From[l].RunNumber)
		}
	}
	skippedSays(t, bs.Skipped, "run #820 (id 8200): its report's own gate failed")
	// FetchBaseline applies the same rule.
	_, b, _, err := fetchBaseline(t.Context(), f.client(t, Config{}), report.LayerConformance)
	if err != nil || b.RunNumber != 810 {
		t.Errorf("FetchBaseline = #%d, %v; want #810", b.RunNumber, err)
	}
}

// 150 green runs, 100 per page: the search follows the Link header to the
// second page, and stops at MaxRuns runs read.
func TestFetchBaselinesAcrossPages(t *testing.T) {
	t.Parallel()
	t.Run("found on page 2", func(t *testing.T) {
		t.Parallel()
		f := newFakeGitHub(t, "/api/v3")
		for i := range 150 {
			id := int64(20000 - i)
			switch {
			case i < 120: // pull request runs listed under the branch: skipped unread
				f.addRuns(fakeRun{ID: id, Number: int(id), Event: "pull_request", Artifacts: []fakeArtifact{art(id, zipOf(t, layeredReport(t, conf, 1, 0, nil)))}})
			case i == 130:
				f.addRuns(fakeRun{ID: id, Number: int(id), Event: "schedule", Artifacts: []fakeArtifact{art(id, zipOf(t, layeredReport(t, confBehavior, 0.9, 0.6, ptrBool(true))))}})
			default:
				f.addRuns(fakeRun{ID: id, Number: int(id), Artifacts: []fakeArtifact{art(id, zipOf(t, layeredReport(t, conf, 1, 0, nil)))}})
			}
		}
		bs, err := f.client(t, Config{}).FetchBaselines(t.Context(), confBehavior)
		if err != nil {
			t.Fatal(err)
		}
		if got := bs.From[report.LayerBehavior].RunID; got != 20000-130 {
			t.Errorf("behavior baseline from run %d, want %d on the second page", got, 20000-130)
		}
		if got := bs.From[report.LayerConformance].RunID; got != 20000-120 {
			t.Errorf("conformance baseline from run %d, want the newest push %d", got, 20000-120)
		}
		if f.callCount("GET /api/v3/repos/acme/weather-mcp/actions/workflows/161335/runs?") != 2 {
			t.Errorf("want two pages listed: %d", f.callCount("GET /api/v3/repos/acme/weather-mcp/actions/workflows/161335/runs?"))
		}
	})
	t.Run("bounded by MaxRuns", func(t *testing.T) {
		t.Parallel()
		f := newFakeGitHub(t, "/api/v3")
		for i := range 150 {
			id := int64(20000 - i)
			f.addRuns(fakeRun{ID: id, Number: int(id), Artifacts: []fakeArtifact{art(id, zipOf(t, layeredReport(t, conf, 1, 0, nil)))}})
		}
		bs, err := f.client(t, Config{}).FetchBaselines(t.Context(), confBehavior)
		if err != nil {
			t.Fatal(err)
		}
		if bs.Examined != 100 || !slices.Equal(bs.Missing, []string{report.LayerBehavior}) {
			t.Errorf("examined %d, missing %v; want the default cap of 100 and behavior missing", bs.Examined, bs.Missing)
		}
		if n := f.callCount("GET /api/v3/repos/acme/weather-mcp/actions/artifacts/"); n != 100 {
			t.Errorf("%d artifact downloads, want 100", n)
		}
		if line := bs.Lines(confBehavior, time.Now())[1]; !strings.Contains(line, "behavior baseline: none found in the last 100 runs") {
			t.Errorf("line %q", line)
		}
	})
	t.Run("bounded by MaxAge", func(t *testing.T) {
		t.Parallel()
		f := newFakeGitHub(t, "/api/v3")
		now := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
		f.addRuns(
			fakeRun{ID: 8200, Number: 820, Created: now.Add(-24 * time.Hour), Artifacts: []fakeArtifact{art(82, zipOf(t, layeredReport(t, conf, 1, 0, nil)))}},
			fakeRun{ID: 8100, Number: 810, Created: now.Add(-100 * 24 * time.Hour), Artifacts: []fakeArtifact{art(81, zipOf(t, layeredReport(t, confBehavior, 1, 1, nil)))}},
		)
		bs, err := f.client(t, Config{Now: func() time.Time { return now }}).FetchBaselines(t.Context(), confBehavior)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := bs.From[report.LayerBehavior]; ok {
			t.Error("a 100-day-old run became the behavior baseline")
		}
		skippedSays(t, bs.Skipped, "older than 90 days")
	})
}

// A conformance-only run carries the behaviour baseline forward; the next
// run finds it there with its original run as origin, without reading
// further back.
func TestCarryForwardKeepsTheChain(t *testing.T) {
	t.Parallel()
	nightly := layeredReport(t, confBehavior, 0.8, 0.7, ptrBool(true))
	origin := Baseline{RunID: 7000, RunNumber: 700, HTMLURL: "https://github.com/acme/weather-mcp/actions/runs/7000", Event: "schedule", Branch: "main",
		CreatedAt: time.Date(2026, 11, 20, 3, 17, 0, 0, time.UTC)}
	push := layeredReport(t, conf, 1, 0, ptrBool(true))
	dir := t.TempDir()
	wrote, err := CarryForward(dir, push, &Baselines{
		Parts: map[string]*report.Report{report.LayerConformance: push, report.LayerBehavior: nightly},
		From:  map[string]Baseline{report.LayerBehavior: origin},
	}, nil)
	if err != nil || !slices.Equal(wrote, []string{report.LayerBehavior}) {
		t.Fatalf("CarryForward = %v, %v; want behavior only (the run produced conformance)", wrote, err)
	}
	carried, err := os.ReadFile(filepath.Join(dir, CarriedDir, "behavior.json"))
	if err != nil {
		t.Fatal(err)
	}

	f := newFakeGitHub(t, "/api/v3")
	f.addRuns(
		fakeRun{ID: 8200, Number: 820, Artifacts: []fakeArtifact{art(82, zipOf(t, push, zipEntry{"carried/behavior.json", carried}))}},
		fakeRun{ID: 7000, Number: 700, Artifacts: []fakeArtifact{art(70, zipOf(t, nightly))}},
	)
	bs, err := f.client(t, Config{}).FetchBaselines(t.Context(), confBehavior)
	if err != nil {
		t.Fatal(err)
	}
	b := bs.From[report.LayerBehavior]
	if b.RunNumber != 700 || b.CarriedBy != 820 || bs.Parts[report.LayerBehavior].Scores["behavior.passRate"] != 0.7 {
		t.Errorf("behavior baseline = %+v (score %v); want run #700 carried by #820, 0.7", b, bs.Parts[report.LayerBehavior].Scores)
	}
	if n := f.callCount("GET /api/v3/repos/acme/weather-mcp/actions/runs/7000/artifacts"); n != 0 {
		t.Error("the carried layer should end the search at the newest run")
	}
	if line := bs.Lines(confBehavior, time.Now())[1]; !strings.Contains(line, "run #700 on main (schedule,") || !strings.Contains(line, "carried forward by run #820") {
		t.Errorf("line %q", line)
	}

	// A carried entry that lies about its layer is ignored.
	bad := bytes.Replace(carried, []byte(`"layer": "behavior"`), []byte(`"layer": "telemetry"`), 1)
	_, got, why := decodeArtifact(zipOf(t, push, zipEntry{"carried/behavior.json", bad}), 1<<20)
	if why != "" || len(got) != 0 {
		t.Errorf("a mislabelled carried entry was accepted: %v %q", got, why)
	}
}

// TestClientOwnsItsTransport: a client made without a Transport does not
// use http.DefaultTransport, whose idle connections anything in the process
// may close (httptest.Server.Close does, for every test beside it): a
// baseline fetched while the shared transport is closed over and over
// still arrives ("http: CloseIdleConnections called" before).
func TestClientOwnsItsTransport(t *testing.T) {
	t.Parallel()
	f := newFakeGitHub(t, "/api/v3")
	for i := range 150 {
		id := int64(30000 - i)
		f.addRuns(fakeRun{ID: id, Number: int(id), Artifacts: []fakeArtifact{art(id, zipOf(t, layeredReport(t, conf, 1, 0, nil)))}})
	}
	c := f.client(t, Config{})
	if c.cfg.Transport == http.DefaultTransport {
		t.Fatal("the client uses http.DefaultTransport")
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
				http.DefaultTransport.(*http.Transport).CloseIdleConnections()
				runtime.Gosched()
			}
		}
	}()
	defer func() { close(stop); <-done }()
	for range 5 {
		if _, err := c.FetchBaselines(t.Context(), confBehavior); err != nil {
			t.Fatal(err)
		}
	}
}
