package github

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	gh "github.com/google/go-github/v93/github"

	"github.com/mcp-eval/mcp-eval/internal/clip"
	"github.com/mcp-eval/mcp-eval/internal/jsonfile"
	"github.com/mcp-eval/mcp-eval/report"
)

// Baseline describes the run a baseline report came from, for the summary:
// scheduled workflows stop after 60 days without activity in public repos,
// so the reader needs to see how old the baseline is.
type Baseline struct {
	RunID      int64     `json:"runId"`
	RunNumber  int       `json:"runNumber"`
	HTMLURL    string    `json:"htmlUrl,omitempty"`
	CreatedAt  time.Time `json:"createdAt"`
	Event      string    `json:"event,omitempty"` // the baseline run's event: push, schedule…
	Branch     string    `json:"branch,omitempty"`
	HeadSHA    string    `json:"headSha,omitempty"`
	ArtifactID int64     `json:"-"`
	// CarriedBy is the number of the newer run whose artifact carried this
	// layer forward (0 when the run that produced it was read directly).
	CarriedBy int `json:"-"`
}

// Age says how long ago the baseline run started, for the summary ("3
// days ago"); "" when unknown.
func (b Baseline) Age(now time.Time) string {
	if b.CreatedAt.IsZero() {
		return ""
	}
	d := now.Sub(b.CreatedAt)
	switch {
	case d < 0:
		return ""
	case d < time.Hour:
		return "less than an hour ago"
	case d < 48*time.Hour:
		return fmt.Sprintf("%d hours ago", int(d.Hours()))
	default:
		return fmt.Sprintf("%d days ago", int(d.Hours()/24))
	}
}

// String is one line for the summary, e.g. "run #412 on main (push,
// 2026-11-29 03:12 UTC, 1a2b3c4) https://github.com/o/r/actions/runs/9".
func (b Baseline) String() string { return b.Line(time.Time{}) }

// Line is String with the baseline's age when now is set ("3 days ago").
func (b Baseline) Line(now time.Time) string {
	if b.RunID == 0 {
		return "no baseline"
	}
	var info []string
	if b.Event != "" {
		info = append(info, b.Event)
	}
	if !b.CreatedAt.IsZero() {
		info = append(info, b.CreatedAt.UTC().Format("2006-01-02 15:04 UTC"))
	}
	if a := b.Age(now); a != "" && !now.IsZero() {
		info = append(info, a)
	}
	if b.HeadSHA != "" {
		info = append(info, b.HeadSHA[:min(7, len(b.HeadSHA))])
	}
	s := fmt.Sprintf("run #%d", b.RunNumber)
	if b.Branch != "" {
		s += " on " + b.Branch
	}
	if len(info) > 0 {
		s += " (" + strings.Join(info, ", ") + ")"
	}
	if b.HTMLURL != "" {
		s += " " + b.HTMLURL
	}
	return s
}

const (
	maxRunPages      = 10 // 1,000 runs listed at most; MaxRuns and MaxAge stop earlier
	maxArtifactPages = 3  // 300 artifacts per run at most
	maxZipEntries    = 10000
	maxSkipped       = 50
	baselinePerms    = "the workflow needs permissions: actions: read"
	reportEntry      = "report.json"
	// CarriedDir is the folder of the report directory (and so of its
	// artifact) that holds the layers a run did not produce itself: each
	// one a copy of the baseline it was compared with, with that baseline's
	// origin, so that a conformance-only push run passes the nightly
	// behaviour baseline on to the next run and the chain never breaks.
	CarriedDir = "carried"
)

// Carried is one layer a run carried forward: carried/<layer>.json.
type Carried struct {
	Layer  string         `json:"layer"`
	Origin Baseline       `json:"origin"`
	Report *report.Report `json:"report"`
}

// Baselines is the outcome of FetchBaselines: each layer's baseline from the
// newest green run that produced it (or carried it forward).
type Baselines struct {
	// Parts maps each found layer to the report it is compared with.
	Parts map[string]*report.Report
	// From maps each found layer to the run that produced it.
	From map[string]Baseline
	// Missing lists the requested layers no examined run had.
	Missing []string
	// Skipped says why runs were passed over, newest first.
	Skipped []string
	// Expired lists the run numbers, newest first, passed over because
	// their artifact had expired (or was deleted): the retention-days of
	// upload-artifact ran out, which a user fixes differently from a
	// corrupt artifact.
	Expired []int
	// Examined counts the runs whose artifact was read.
	Examined int
}

// FetchBaselines finds, for each of layers, that layer's result in the
// newest successful run of this workflow on the base branch that produced
// it, either in its report.json or in its carried/<layer>.json (a layer it
// carried forward, which keeps its original run as origin). Runs are
// listed newest first, through pages, until every layer is found or
// Config.MaxRuns runs were read or the runs get older than Config.MaxAge.
// Skipped: runs whose head repository is a fork, pull request runs,
// expired artifacts, corrupt or oversized archives, reports of another
// schemaVersion, and reports whose own gate failed (a run can conclude
// success with continue-on-error; its report must not become the bar).
// The error is a *Warning: NoBaseline when no layer was found, else the API
// problem that stopped the search.
func (c *Client) FetchBaselines(ctx context.Context, layers []string) (*Baselines, error) {
	bs, err := c.search(ctx, layers)
	if err != nil {
		return bs, err
	}
	if len(bs.Parts) == 0 {
		return bs, c.noneWarning(bs)
	}
	return bs, nil
}

func (c *Client) noneWarning(bs *Baselines) error {
	if c.runID == 0 {
		return &Warning{Kind: NoBaseline, Op: "baseline", Msg: "no baseline: GITHUB_RUN_ID is not set, so this run's workflow is unknown"}
	}
	if c.branch == "" {
		return &Warning{Kind: NoBaseline, Op: "baseline", Msg: "no baseline: the event names no branch to take it from"}
	}
	if bs.Examined == 0 && len(bs.Skipped) == 0 {
		return &Warning{Kind: NoBaseline, Op: "baseline", Msg: fmt.Sprintf("no baseline: this workflow has no earlier successful run on %s (a first run?)", c.branch)}
	}
	if n := len(bs.Expired); n > 0 && n == bs.Examined {
		return &Warning{Kind: NoBaseline, Op: "baseline", Msg: fmt.Sprintf("no baseline: the %q artifacts of the %d successful runs examined on %s have expired (newest: run #%d); a longer retention-days on upload-artifact keeps them", c.cfg.ArtifactName, n, c.branch, bs.Expired[0])}
	}
	msg := fmt.Sprintf("no baseline: none of the %d successful runs examined on %s has a usable %q artifact", bs.Examined, c.branch, c.cfg.ArtifactName)
	if n := len(bs.Expired); n > 0 {
		msg += fmt.Sprintf(" (%d expired, newest run #%d)", n, bs.Expired[0])
	}
	return &Warning{Kind: NoBaseline, Op: "baseline", Msg: msg}
}

// search walks the green runs until every layer of want is found (want
// nil: until a usable report, whose layers are all taken).
func (c *Client) search(ctx context.Context, want []string) (*Baselines, error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.BaselineTimeout)
	defer cancel()
	bs := &Baselines{Parts: map[string]*report.Report{}, From: map[string]Baseline{}}
	missing := func() []string { return bs.missing(want) }
	done := func() bool {
		if want == nil {
			return len(bs.Parts) > 0
		}
		return len(missing()) == 0
	}
	if c.runID == 0 || c.branch == "" {
		bs.Missing = missing()
		return bs, nil
	}
	cur, _, err := c.gh.Actions.GetWorkflowRunByID(ctx, c.owner, c.repo, c.runID)
	if err != nil {
		return bs, apiWarning("baseline", "no baseline: this run's workflow could not be looked up", baselinePerms, err)
	}
	oldest := c.cfg.now().Add(-c.cfg.MaxAge)
	// The workflow id, not the file name in GITHUB_WORKFLOW_REF, because a
	// reusable workflow's ref names the caller.
	opts := &gh.ListWorkflowRunsOptions{
		Branch:  c.branch,
		Status:  "success",
		Created: ">=" + oldest.UTC().Format("2006-01-02"),
		// Only drops the pull_requests array from each run: less to read.
		ExcludePullRequests: true,
		ListOptions:         gh.ListOptions{PerPage: 100},
	}
	tooOld := false
	for page := 0; page < maxRunPages && bs.Examined < c.cfg.MaxRuns && !done(); page++ {
		runs, resp, err := c.gh.Actions.ListWorkflowRunsByID(ctx, c.owner, c.repo, cur.GetWorkflowID(), opts)
		if err != nil {
			return bs, apiWarning("baseline", "no baseline: the workflow's runs could not be listed", baselinePerms, err)
		}
		var stop bool
		if stop, tooOld, err = c.examinePage(ctx, bs, runs.WorkflowRuns, want, oldest, done); err != nil {
			return bs, err
		}
		if stop || resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	bs.Missing = missing()
	if len(bs.Missing) > 0 && tooOld && len(bs.Skipped) < maxSkipped {
		bs.Skipped = append(bs.Skipped, fmt.Sprintf("runs before %s were not examined (older than %d days)", oldest.UTC().Format("2006-01-02"), int(c.cfg.MaxAge.Hours()/24)))
	}
	return bs, nil
}

// examinePage examines one page of runs, newest first, until the search
// is done or has read its MaxRuns runs (stop), or reaches a run older than
// oldest (stop and tooOld).
func (c *Client) examinePage(ctx context.Context, bs *Baselines, runs []*gh.WorkflowRun, want []string, oldest time.Time, done func() bool) (stop, tooOld bool, err error) {
	for _, run := range runs {
		if bs.Examined >= c.cfg.MaxRuns || done() {
			return true, false, nil
		}
		if run.GetID() == c.runID {
			continue // a re-run of a green run lists itself
		}
		if t := run.GetCreatedAt().Time; !t.IsZero() && t.Before(oldest) {
			return true, true, nil
		}
		if err := c.examine(ctx, bs, run, want); err != nil {
			return true, false, err
		}
	}
	return false, false, nil
}

// examine takes from run's artifact the baselines of want that bs still
// lacks (every layer it has, with want nil), or records why run is
// passed over.
func (c *Client) examine(ctx context.Context, bs *Baselines, run *gh.WorkflowRun, want []string) error {
	if why := c.unsuitable(run); why != "" {
		bs.skip(run, why)
		return nil
	}
	bs.Examined++
	rep, carried, why, err := c.reportFromRun(ctx, run)
	if err != nil {
		return err
	}
	if why != "" {
		if strings.Contains(why, expiredWord) {
			bs.Expired = append(bs.Expired, run.GetRunNumber())
		}
		bs.skip(run, why)
		return nil
	}
	if !rep.Passed() {
		bs.skip(run, "its report's own gate failed (the run concluded success anyway, e.g. continue-on-error)")
		return nil
	}
	if took := bs.take(rep, carried, describe(run), want); len(took) == 0 && want != nil {
		bs.skip(run, fmt.Sprintf("its report has no %s layer", strings.Join(bs.missing(want), " or ")))
	}
	return nil
}

// unsuitable says why a listed run cannot be a baseline, or "".
// skip records why run was passed over, up to maxSkipped reasons.
func (bs *Baselines) skip(run *gh.WorkflowRun, why string) {
	if len(bs.Skipped) < maxSkipped {
		bs.Skipped = append(bs.Skipped, fmt.Sprintf("run #%d (id %d): %s", run.GetRunNumber(), run.GetID(), why))
	}
}

// missing returns the layers of want that have no baseline yet.
func (bs *Baselines) missing(want []string) []string {
	var m []string
	for _, l := range want {
		if _, ok := bs.Parts[l]; !ok {
			m = append(m, l)
		}
	}
	return m
}

// take gives each layer still without a baseline rep's (run d) or the one
// rep carried forward, and returns the layers of want it took. Every layer
// is taken from the newest run that has it, wanted or not: the ones not
// wanted are what this run carries forward.
func (bs *Baselines) take(rep *report.Report, carried map[string]Carried, d Baseline, want []string) []string {
	var took []string
	for _, l := range allLayers {
		if _, ok := bs.Parts[l]; ok {
			continue
		}
		switch cr, ok := carried[l]; {
		case slices.Contains(rep.Layers, l):
			bs.Parts[l], bs.From[l] = rep, d
		case ok:
			o := cr.Origin
			o.CarriedBy = d.RunNumber
			bs.Parts[l], bs.From[l] = cr.Report, o
		default:
			continue
		}
		if slices.Contains(want, l) {
			took = append(took, l)
		}
	}
	return took
}

func (c *Client) unsuitable(run *gh.WorkflowRun) string {
	if concl := run.GetConclusion(); concl != "" && concl != "success" {
		return "concluded " + concl
	}
	// Pull request runs are listed under their head branch, so a fork's
	// branch named like the base branch shows up here; its artifact is
	// whatever the fork's code uploaded.
	if ev := run.GetEvent(); strings.HasPrefix(ev, "pull_request") {
		return "a " + ev + " run, not a run of the branch itself"
	}
	hr := run.GetHeadRepository()
	if hr == nil {
		return "its head repository is unknown"
	}
	if hr.GetFork() || !strings.EqualFold(hr.GetFullName(), c.owner+"/"+c.repo) {
		return fmt.Sprintf("its head repository %s is a fork", hr.GetFullName())
	}
	return ""
}

func describe(run *gh.WorkflowRun) Baseline {
	return Baseline{
		RunID:     run.GetID(),
		RunNumber: run.GetRunNumber(),
		HTMLURL:   run.GetHTMLURL(),
		CreatedAt: run.GetCreatedAt().Time,
		Event:     run.GetEvent(),
		Branch:    run.GetHeadBranch(),
		HeadSHA:   run.GetHeadSHA(),
	}
}

// reportFromRun downloads and decodes the run's report. A reason to skip
// the run comes back as a string; an error (a *Warning) ends the search,
// because the next run would meet the same outage or permission problem.
func (c *Client) reportFromRun(ctx context.Context, run *gh.WorkflowRun) (*report.Report, map[string]Carried, string, error) {
	art, why, err := c.findArtifact(ctx, run.GetID())
	if err != nil || why != "" {
		return nil, nil, why, err
	}
	if size := art.GetSizeInBytes(); size > c.cfg.MaxZipBytes {
		return nil, nil, fmt.Sprintf("artifact %q is %d bytes, over the %d-byte cap", c.cfg.ArtifactName, size, c.cfg.MaxZipBytes), nil
	}
	// maxRedirects 1 follows a 301 for a renamed repository; the token
	// goes only to the API host (authTransport) either way.
	loc, resp, err := c.gh.Actions.DownloadArtifact(ctx, c.owner, c.repo, art.GetID(), 1)
	if err != nil {
		code := 0
		if resp != nil {
			code = resp.StatusCode
		}
		switch {
		case code == 0 && strings.Contains(err.Error(), "cross-host redirect"):
			// go-github refuses a 301 to another origin: its transport
			// would carry the token there.
			return nil, nil, "the artifact download redirected to another host, which is not followed (the token would go with it)", nil
		case code == http.StatusNotFound || code == http.StatusGone:
			return nil, nil, fmt.Sprintf("artifact %q "+expiredWord+" or was deleted (%d)", c.cfg.ArtifactName, code), nil
		case code == http.StatusUnauthorized || code == http.StatusForbidden:
			return nil, nil, "", &Warning{Kind: Forbidden, Op: "baseline", Msg: fmt.Sprintf("no baseline: downloading the artifact was refused (%d; %s)", code, baselinePerms), Err: err}
		case code >= 500 || code == 0:
			return nil, nil, "", apiWarning("baseline", "no baseline: the artifact download failed", baselinePerms, err)
		default:
			return nil, nil, fmt.Sprintf("the artifact download answered %d", code), nil
		}
	}
	data, why, err := c.download(ctx, loc)
	if err != nil || why != "" {
		return nil, nil, why, err
	}
	rep, carried, why := decodeArtifact(data, c.cfg.MaxReportBytes)
	if why != "" {
		return nil, nil, fmt.Sprintf("artifact %q: %s", c.cfg.ArtifactName, why), nil
	}
	return rep, carried, "", nil
}

// expiredWord is in every reason that counts a run in Baselines.Expired.
const expiredWord = "expired"

// findArtifact returns the run's non-expired artifact with the configured
// name. go-github cannot filter a run's artifacts by name on the server,
// so it is matched here.
func (c *Client) findArtifact(ctx context.Context, runID int64) (*gh.Artifact, string, error) {
	opts := &gh.ListOptions{PerPage: 100}
	expired := false
	for range maxArtifactPages {
		list, resp, err := c.gh.Actions.ListWorkflowRunArtifacts(ctx, c.owner, c.repo, runID, opts)
		if err != nil {
			return nil, "", apiWarning("baseline", "no baseline: the artifacts of a run could not be listed", baselinePerms, err)
		}
		for _, a := range list.Artifacts {
			if a.GetName() != c.cfg.ArtifactName {
				continue
			}
			if a.GetExpired() {
				expired = true
				continue
			}
			return a, "", nil
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	if expired {
		return nil, fmt.Sprintf("artifact %q has "+expiredWord, c.cfg.ArtifactName), nil
	}
	return nil, fmt.Sprintf("no artifact named %q", c.cfg.ArtifactName), nil
}

// download fetches the signed artifact URL with the plain client: the URL
// carries its own short-lived credentials (valid for one minute), and the
// GitHub token must not reach blob storage.
func (c *Client) download(ctx context.Context, loc *url.URL) ([]byte, string, error) {
	if loc == nil || (loc.Scheme != "https" && loc.Scheme != "http") {
		return nil, "the artifact download gave no usable address", nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, loc.String(), nil)
	if err != nil {
		return nil, "the artifact download gave no usable address", nil
	}
	req.Header.Set("User-Agent", c.cfg.UserAgent)
	resp, err := c.blob.Do(req)
	if err != nil {
		// Strip the signed query from the message: it is a credential.
		return nil, "", &Warning{Kind: Unavailable, Op: "baseline", Msg: "no baseline: the artifact could not be downloaded from " + loc.Host, Err: errors.Unwrap(err)}
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode >= 500:
		return nil, "", &Warning{Kind: Unavailable, Op: "baseline", Msg: fmt.Sprintf("no baseline: artifact storage at %s answered %d", loc.Host, resp.StatusCode)}
	case resp.StatusCode != http.StatusOK:
		return nil, fmt.Sprintf("artifact storage answered %d", resp.StatusCode), nil
	case resp.ContentLength > c.cfg.MaxZipBytes:
		return nil, fmt.Sprintf("the artifact is %d bytes, over the %d-byte cap", resp.ContentLength, c.cfg.MaxZipBytes), nil
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, c.cfg.MaxZipBytes+1))
	if err != nil {
		return nil, "the artifact download broke off", nil
	}
	if int64(len(data)) > c.cfg.MaxZipBytes {
		return nil, fmt.Sprintf("the artifact is over the %d-byte cap", c.cfg.MaxZipBytes), nil
	}
	return data, "", nil
}

// decodeArtifact reads report.json out of a downloaded artifact, and the
// layers it carried (carried/<layer>.json beside it): normally a zip;
// upload-artifact's archive: false uploads the single file as is. A carried
// entry that does not decode is ignored: the run's own report still counts.
func decodeArtifact(data []byte, maxReport int64) (*report.Report, map[string]Carried, string) {
	var (
		b       []byte
		carried map[string][]byte
	)
	switch t := bytes.TrimLeft(data, " \t\r\n"); {
	case bytes.HasPrefix(data, []byte("PK")):
		var why string
		if b, carried, why = reportFromZip(data, maxReport); why != "" {
			return nil, nil, why
		}
	case bytes.HasPrefix(t, []byte("{")):
		if int64(len(data)) > maxReport {
			return nil, nil, fmt.Sprintf("report.json is over the %d-byte cap", maxReport)
		}
		b = data
	default:
		return nil, nil, "not a zip archive"
	}
	rep, why := decodeReport(b)
	if why != "" {
		return nil, nil, why
	}
	out := map[string]Carried{}
	for layer, cb := range carried {
		var c Carried
		if json.Unmarshal(cb, &c) != nil || c.Layer != layer || c.Report == nil ||
			c.Report.SchemaVersion != report.SchemaVersion || !slices.Contains(c.Report.Layers, layer) {
			continue
		}
		out[layer] = c
	}
	return rep, out, ""
}

// reportFromZip returns the report.json entry of a zip and the carried
// layers beside it, reading nothing else. The archive is untrusted (a past
// run wrote it, possibly from code under review), so an entry with an
// unsafe path rejects the whole archive even though nothing is extracted to
// disk, and each entry is read through a size cap because its header may
// lie.
func reportFromZip(data []byte, maxReport int64) ([]byte, map[string][]byte, string) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if errors.Is(err, zip.ErrInsecurePath) {
		return nil, nil, "the zip holds an entry with an unsafe path"
	}
	if err != nil {
		return nil, nil, "corrupt zip archive: " + err.Error()
	}
	if len(zr.File) > maxZipEntries {
		return nil, nil, fmt.Sprintf("the zip holds %d entries, over the cap of %d", len(zr.File), maxZipEntries)
	}
	var pick *zip.File
	for _, f := range zr.File {
		if !safeEntryName(f.Name) {
			return nil, nil, "the zip holds an entry with an unsafe path: " + strconv.Quote(clip.Within(f.Name, 200))
		}
		if strings.HasSuffix(f.Name, "/") || path.Base(f.Name) != reportEntry {
			continue
		}
		// upload-artifact stores paths relative to the common root, so the
		// report is normally at the top; take the shallowest otherwise.
		if pick == nil || strings.Count(f.Name, "/") < strings.Count(pick.Name, "/") {
			pick = f
		}
	}
	if pick == nil {
		return nil, nil, "the zip holds no " + reportEntry
	}
	b, why := readEntry(pick, maxReport)
	if why != "" {
		return nil, nil, why
	}
	dir := path.Dir(pick.Name)
	carried := map[string][]byte{}
	for _, f := range zr.File {
		name := f.Name
		if dir != "." {
			var ok bool
			if name, ok = strings.CutPrefix(name, dir+"/"); !ok {
				continue
			}
		}
		rest, ok := strings.CutPrefix(name, CarriedDir+"/")
		if !ok || !strings.HasSuffix(rest, ".json") || strings.Contains(rest, "/") {
			continue
		}
		layer := strings.TrimSuffix(rest, ".json")
		if !slices.Contains(allLayers, layer) {
			continue
		}
		if cb, why := readEntry(f, maxReport); why == "" {
			carried[layer] = cb
		}
	}
	return b, carried, ""
}

func readEntry(f *zip.File, maxReport int64) ([]byte, string) {
	if f.UncompressedSize64 > uint64(maxReport) {
		return nil, fmt.Sprintf("%s is %d bytes, over the %d-byte cap", f.Name, f.UncompressedSize64, maxReport)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, "corrupt zip archive: " + err.Error()
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, maxReport+1))
	if err != nil {
		return nil, "corrupt zip archive: " + err.Error()
	}
	if int64(len(b)) > maxReport {
		return nil, fmt.Sprintf("%s is over the %d-byte cap", f.Name, maxReport)
	}
	return b, ""
}

// safeEntryName accepts relative, slash-separated names without "." or
// ".." elements. Backslashes and colons are refused too: upload-artifact
// never writes them, and they are how paths escape on Windows.
func safeEntryName(name string) bool {
	if name == "" || strings.ContainsAny(name, "\\:\x00") {
		return false
	}
	n := strings.TrimSuffix(name, "/")
	return n != "." && fs.ValidPath(n)
}

// decodeReport checks schemaVersion before anything else, so that a report
// written by a newer mcp-eval is named as such rather than half-read.
func decodeReport(b []byte) (*report.Report, string) {
	// A name given twice (or a BOM) is refused with its line, as the
	// --baseline file is (internal/jsonfile): which value a reader keeps
	// is unpredictable (RFC 8259 §4).
	if err := jsonfile.Check(b); err != nil {
		return nil, "report.json: " + err.Error()
	}
	var head struct {
		SchemaVersion *int `json:"schemaVersion"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return nil, "report.json is not valid JSON: " + clip.Within(err.Error(), 200)
	}
	if head.SchemaVersion == nil {
		return nil, "report.json has no schemaVersion"
	}
	if v := *head.SchemaVersion; v != report.SchemaVersion {
		return nil, fmt.Sprintf("report.json has schemaVersion %d; this mcp-eval reads %d", v, report.SchemaVersion)
	}
	var r report.Report
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, "report.json does not match the report format: " + clip.Within(err.Error(), 200)
	}
	return &r, ""
}
