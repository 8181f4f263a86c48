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

	gh "github.com/google/go-github/v66/github"

	"github.com/mcp-eval/mcp-eval/report"
)

// Baseline describes the run a baseline report came from, for the summary:
// scheduled workflows stop after 60 days without activity in public repos,
// so the reader needs to see how old the baseline is.
type Baseline struct {
	RunID      int64
	RunNumber  int
	HTMLURL    string
	CreatedAt  time.Time
	Event      string // the baseline run's event: push, schedule…
	Branch     string
	HeadSHA    string
	ArtifactID int64
	// HasLayer is false when none of the examined runs had the requested
	// layer and the newest usable report stands in, so that at least the
	// layers it does have are compared.
	HasLayer bool
	// Skipped says why newer green runs were passed over (fork head,
	// expired artifact, corrupt zip…), newest first; at most maxSkipped.
	Skipped []string
}

// String is one line for the summary, e.g. "run #412 on main (push,
// 2026-11-29 03:12 UTC, 1a2b3c4) https://github.com/o/r/actions/runs/9".
func (b Baseline) String() string {
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
	maxRunPages      = 3 // 300 runs listed at most
	maxArtifactPages = 3 // 300 artifacts per run at most
	maxZipEntries    = 10000
	maxSkipped       = 50
	baselinePerms    = "the workflow needs permissions: actions: read"
	reportEntry      = "report.json"
)

// FetchBaseline finds the baseline for layer: report.json in the
// configured artifact of the newest successful run of this workflow on the
// base branch whose report contains layer (any report when layer is ""). If
// no examined run has the layer, the newest usable report stands in, with
// HasLayer false. Runs whose head repository is a fork, pull request runs,
// expired artifacts, corrupt or oversized archives and reports of another
// schemaVersion are skipped, and the search is capped at Config.MaxRuns
// runs. The error is always a *Warning: NoBaseline when nothing usable was
// found, else the API problem that stopped the search.
func (c *Client) FetchBaseline(ctx context.Context, layer string) (*report.Report, Baseline, error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.BaselineTimeout)
	defer cancel()
	var skipped []string
	skip := func(run *gh.WorkflowRun, why string) {
		if len(skipped) < maxSkipped {
			skipped = append(skipped, fmt.Sprintf("run #%d (id %d): %s", run.GetRunNumber(), run.GetID(), why))
		}
	}
	none := func(msg string) (*report.Report, Baseline, error) {
		return nil, Baseline{Skipped: skipped}, &Warning{Kind: NoBaseline, Op: "baseline", Msg: msg}
	}
	if c.runID == 0 {
		return none("no baseline: GITHUB_RUN_ID is not set, so this run's workflow is unknown")
	}
	if c.branch == "" {
		return none("no baseline: the event names no branch to take it from")
	}
	cur, _, err := c.gh.Actions.GetWorkflowRunByID(ctx, c.owner, c.repo, c.runID)
	if err != nil {
		return nil, Baseline{}, apiWarning("baseline", "no baseline: this run's workflow could not be looked up", baselinePerms, err)
	}
	// The workflow id, not the file name in GITHUB_WORKFLOW_REF, because a
	// reusable workflow's ref names the caller.
	opts := &gh.ListWorkflowRunsOptions{
		Branch: c.branch,
		Status: "success",
		// Only drops the pull_requests array from each run: less to read.
		ExcludePullRequests: true,
		ListOptions:         gh.ListOptions{PerPage: 100},
	}
	var (
		fallback *report.Report
		fbDesc   Baseline
		examined int
	)
	for page := 0; page < maxRunPages && examined < c.cfg.MaxRuns; page++ {
		runs, resp, err := c.gh.Actions.ListWorkflowRunsByID(ctx, c.owner, c.repo, cur.GetWorkflowID(), opts)
		if err != nil {
			return nil, Baseline{Skipped: skipped}, apiWarning("baseline", "no baseline: the workflow's runs could not be listed", baselinePerms, err)
		}
		for _, run := range runs.WorkflowRuns {
			if examined >= c.cfg.MaxRuns {
				break
			}
			if run.GetID() == c.runID {
				continue // a re-run of a green run lists itself
			}
			if why := c.unsuitable(run); why != "" {
				skip(run, why)
				continue
			}
			examined++
			rep, why, err := c.reportFromRun(ctx, run)
			if err != nil {
				return nil, Baseline{Skipped: skipped}, err
			}
			if why != "" {
				skip(run, why)
				continue
			}
			d := describe(run)
			if layer == "" || slices.Contains(rep.Layers, layer) {
				d.HasLayer, d.Skipped = true, skipped
				return rep, d, nil
			}
			skip(run, fmt.Sprintf("its report has no %s layer", layer))
			if fallback == nil {
				fallback, fbDesc = rep, d
			}
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	if fallback != nil {
		fbDesc.Skipped = skipped
		return fallback, fbDesc, nil
	}
	if examined == 0 && len(skipped) == 0 {
		return none(fmt.Sprintf("no baseline: this workflow has no earlier successful run on %s (a first run?)", c.branch))
	}
	return none(fmt.Sprintf("no baseline: none of the %d successful runs examined on %s has a usable %q artifact", examined, c.branch, c.cfg.ArtifactName))
}

// unsuitable says why a listed run cannot be a baseline, or "".
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
func (c *Client) reportFromRun(ctx context.Context, run *gh.WorkflowRun) (*report.Report, string, error) {
	art, why, err := c.findArtifact(ctx, run.GetID())
	if err != nil || why != "" {
		return nil, why, err
	}
	if size := art.GetSizeInBytes(); size > c.cfg.MaxZipBytes {
		return nil, fmt.Sprintf("artifact %q is %d bytes, over the %d-byte cap", c.cfg.ArtifactName, size, c.cfg.MaxZipBytes), nil
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
		case code == http.StatusNotFound || code == http.StatusGone:
			return nil, fmt.Sprintf("artifact %q expired or was deleted (%d)", c.cfg.ArtifactName, code), nil
		case code == http.StatusUnauthorized || code == http.StatusForbidden:
			return nil, "", &Warning{Kind: Forbidden, Op: "baseline", Msg: fmt.Sprintf("no baseline: downloading the artifact was refused (%d; %s)", code, baselinePerms), Err: err}
		case code >= 500 || code == 0:
			return nil, "", apiWarning("baseline", "no baseline: the artifact download failed", baselinePerms, err)
		default:
			return nil, fmt.Sprintf("the artifact download answered %d", code), nil
		}
	}
	data, why, err := c.download(ctx, loc)
	if err != nil || why != "" {
		return nil, why, err
	}
	rep, why := decodeArtifact(data, c.cfg.MaxReportBytes)
	if why != "" {
		return nil, fmt.Sprintf("artifact %q: %s", c.cfg.ArtifactName, why), nil
	}
	return rep, "", nil
}

// findArtifact returns the run's non-expired artifact with the configured
// name. v66 cannot filter by name on the server, so it is matched here.
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
		return nil, fmt.Sprintf("artifact %q has expired", c.cfg.ArtifactName), nil
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

// decodeArtifact reads report.json out of a downloaded artifact: normally a
// zip; upload-artifact's archive: false uploads the single file as is.
func decodeArtifact(data []byte, maxReport int64) (*report.Report, string) {
	var b []byte
	switch t := bytes.TrimLeft(data, " \t\r\n"); {
	case bytes.HasPrefix(data, []byte("PK")):
		var why string
		if b, why = reportFromZip(data, maxReport); why != "" {
			return nil, why
		}
	case bytes.HasPrefix(t, []byte("{")):
		if int64(len(data)) > maxReport {
			return nil, fmt.Sprintf("report.json is over the %d-byte cap", maxReport)
		}
		b = data
	default:
		return nil, "not a zip archive"
	}
	return decodeReport(b)
}

// reportFromZip returns the report.json entry of a zip, reading nothing
// else. The archive is untrusted (a past run wrote it, possibly from code
// under review), so an entry with an unsafe path rejects the whole archive
// even though nothing is extracted to disk, and the entry is read through a
// size cap because its header may lie.
func reportFromZip(data []byte, maxReport int64) ([]byte, string) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if errors.Is(err, zip.ErrInsecurePath) {
		return nil, "the zip holds an entry with an unsafe path"
	}
	if err != nil {
		return nil, "corrupt zip archive: " + err.Error()
	}
	if len(zr.File) > maxZipEntries {
		return nil, fmt.Sprintf("the zip holds %d entries, over the cap of %d", len(zr.File), maxZipEntries)
	}
	var pick *zip.File
	for _, f := range zr.File {
		if !safeEntryName(f.Name) {
			return nil, "the zip holds an entry with an unsafe path: " + strconv.Quote(clip(f.Name, 200))
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
		return nil, "the zip holds no " + reportEntry
	}
	if pick.UncompressedSize64 > uint64(maxReport) {
		return nil, fmt.Sprintf("%s is %d bytes, over the %d-byte cap", pick.Name, pick.UncompressedSize64, maxReport)
	}
	rc, err := pick.Open()
	if err != nil {
		return nil, "corrupt zip archive: " + err.Error()
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, maxReport+1))
	if err != nil {
		return nil, "corrupt zip archive: " + err.Error()
	}
	if int64(len(b)) > maxReport {
		return nil, fmt.Sprintf("%s is over the %d-byte cap", pick.Name, maxReport)
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
	var head struct {
		SchemaVersion *int `json:"schemaVersion"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return nil, "report.json is not valid JSON: " + clip(err.Error(), 200)
	}
	if head.SchemaVersion == nil {
		return nil, "report.json has no schemaVersion"
	}
	if v := *head.SchemaVersion; v != report.SchemaVersion {
		return nil, fmt.Sprintf("report.json has schemaVersion %d; this mcp-eval reads %d", v, report.SchemaVersion)
	}
	var r report.Report
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, "report.json does not match the report format: " + clip(err.Error(), 200)
	}
	return &r, ""
}
