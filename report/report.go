// Package report owns the Report model that every layer fills and every
// renderer reads: the report.json contract of DESIGN.md. It is pure: it
// imports only the standard library and does no I/O of its own beyond the
// io.Writer a renderer is given.
package report

import (
	"encoding/json"
	"sort"
)

// SchemaVersion is the version of the report.json contract. Fields may be
// added freely; a rename or removal bumps it.
const SchemaVersion = 1

// Status is the outcome of one check or case.
type Status string

// The statuses a check or case can have. Error means the request timed out or
// got an answer that could not be read; it counts as a failure for hard checks.
const (
	StatusPass  Status = "pass"
	StatusFail  Status = "fail"
	StatusSkip  Status = "skip"
	StatusError Status = "error"
)

// Level is the spec's requirement level behind a check.
type Level string

// Requirement levels, as the spec's RFC 2119 keywords.
const (
	LevelMust   Level = "MUST"
	LevelShould Level = "SHOULD"
)

// Layer names, as used in --layers and in Check.Layer.
const (
	LayerConformance = "conformance"
	LayerBehavior    = "behavior"
	LayerResilience  = "resilience"
	LayerTelemetry   = "telemetry"
)

// Report is the whole result of one run: report.json.
type Report struct {
	SchemaVersion int                           `json:"schemaVersion"`
	Tool          Tool                          `json:"tool"`
	StartedAt     string                        `json:"startedAt,omitempty"`
	DurationMs    int64                         `json:"durationMs"`
	Layers        []string                      `json:"layers,omitempty"`
	Server        Server                        `json:"server"`
	Checks        []Check                       `json:"checks"`
	Cases         []Case                        `json:"cases"`
	Scores        map[string]float64            `json:"scores"`
	ScoresByModel map[string]map[string]float64 `json:"scoresByModel,omitempty"`
	// Confusion is the tool confusion matrix per model, sorted by model,
	// expected and selected tool; only cells with a count are listed.
	Confusion []ConfusionCell `json:"confusion,omitempty"`
	// Judge names the judge model and prompt behind the behavior scores.
	Judge     *JudgeInfo `json:"judge,omitempty"`
	Surface   Surface    `json:"surface"`
	Telemetry *Telemetry `json:"telemetry,omitempty"`
	Gate      *Gate      `json:"gate,omitempty"`
	// Strict records --strict: every failed or errored check and case fails
	// the run, warnings included. Renderers judge the report by it.
	Strict bool `json:"strict,omitempty"`
	// Commit is the source revision under test (GITHUB_SHA in the Action),
	// when the caller knows it. CarryHistory records it with the scores.
	Commit string `json:"commit,omitempty"`
	// History holds the headline scores of recent runs, oldest first, the
	// last entry being this run: CarryHistory carries it forward from the
	// baseline, and the summary draws it as a trend chart.
	History []HistoryEntry `json:"history,omitempty"`
}

// Tool names the program that wrote the report.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Server describes the server under test as the run saw it.
type Server struct {
	Target            string          `json:"target"`
	Transport         string          `json:"transport"` // http or stdio
	Era               string          `json:"era"`       // modern, legacy or unknown
	ProtocolVersion   string          `json:"protocolVersion,omitempty"`
	SupportedVersions []string        `json:"supportedVersions"`
	ServerInfo        json.RawMessage `json:"serverInfo,omitempty"`
	Capabilities      json.RawMessage `json:"capabilities,omitempty"`
	Fingerprint       string          `json:"fingerprint,omitempty"`
	// Migration lists what a legacy server must change to speak 2026-07-28;
	// empty for a modern server.
	Migration []string `json:"migration,omitempty"`
}

// Check is the result of one conformance or resilience check over all its runs.
type Check struct {
	ID    string `json:"id"`
	Layer string `json:"layer"`
	Group string `json:"group"`
	Level Level  `json:"level"`
	// Hard says whether a failure fails the run: every check of the seven
	// assertion groups, and MUST-level checks elsewhere.
	Hard     bool            `json:"hard"`
	Status   Status          `json:"status"`
	Runs     int             `json:"runs"`
	Passed   int             `json:"passed"`
	Title    string          `json:"title,omitempty"`
	Message  string          `json:"message,omitempty"`
	SpecRef  string          `json:"specRef,omitempty"`
	Evidence json.RawMessage `json:"evidence,omitempty"`
	// Info holds what a check observed but does not judge (for example the
	// exact code a server chose where the spec sets none).
	Info string `json:"info,omitempty"`
}

// Case is the result of one golden case for one model over all its runs.
type Case struct {
	ID        string   `json:"id"`
	Model     string   `json:"model"`
	Kind      string   `json:"kind"`
	Runs      int      `json:"runs"`
	Passed    int      `json:"passed"`
	Errored   int      `json:"errored"`
	PassRate  float64  `json:"passRate"`
	Floor     float64  `json:"floor"`
	Status    Status   `json:"status"`
	Selection *float64 `json:"selection"`
	Arguments *float64 `json:"arguments"`
	Sequence  *float64 `json:"sequence"`
	Judge     *float64 `json:"judge"`
	// WilsonLow and WilsonHigh bound the 95% Wilson score interval of the
	// pass rate over the non-errored runs ([0, 1] when there were none).
	WilsonLow  float64 `json:"wilsonLow"`
	WilsonHigh float64 `json:"wilsonHigh"`
	// Flaky marks a case that passed some runs and failed others.
	Flaky bool     `json:"flaky,omitempty"`
	Tags  []string `json:"tags,omitempty"`
	// Negative marks a case whose model must call no tool; with it, the
	// behavior scores can be recomputed from the cases alone (merge).
	Negative bool `json:"negative,omitempty"`
	// SemanticFallback says a semantic argument match used the
	// deterministic token similarity because no judge model was available.
	SemanticFallback bool `json:"semanticFallback,omitempty"`
	// Failures says why runs failed and Errors why runs errored, one line
	// per run ("run 2: …"), the first few of each.
	Failures []string `json:"failures,omitempty"`
	Errors   []string `json:"errors,omitempty"`
}

// ConfusionCell is one cell of a model's tool confusion matrix: how many
// non-errored runs of single-tool and negative cases that expected one tool
// ("none" for a negative case) called another first ("none" when no tool).
type ConfusionCell struct {
	Model    string `json:"model"`
	Expected string `json:"expected"`
	Selected string `json:"selected"`
	Count    int    `json:"count"`
}

// JudgeInfo records the LLM judge of Layer 1, so that a change of judge
// model or prompt is visible next to the scores it produced.
type JudgeInfo struct {
	// Model is the judge's provider:model; empty when no judge was used.
	Model string `json:"model,omitempty"`
	// PromptSHA256 is the hash of golden/judge_prompt.txt.
	PromptSHA256 string `json:"promptSha256"`
	// SemanticFallback says that at least one semantic argument match used
	// the deterministic token similarity instead of the judge.
	SemanticFallback bool `json:"semanticFallback,omitempty"`
}

// Surface keeps per-item hashes of the server's tool surface so that a diff
// against a baseline can name what changed.
type Surface struct {
	Tools     []SurfaceItem `json:"tools"`
	Prompts   []SurfaceItem `json:"prompts,omitempty"`
	Resources []SurfaceItem `json:"resourceTemplates,omitempty"`
}

// SurfaceItem is one tool, prompt or resource template, hashed.
type SurfaceItem struct {
	Name              string `json:"name"`
	DescriptionSHA256 string `json:"descriptionSha256"`
	InputSchemaSHA256 string `json:"inputSchemaSha256,omitempty"`
	SHA256            string `json:"sha256,omitempty"`
}

// Telemetry holds Layer 3 measurements.
type Telemetry struct {
	ToolCalls map[string]Latency    `json:"toolCalls,omitempty"`
	Models    map[string]ModelUsage `json:"models,omitempty"`
}

// Latency summarises a set of timed calls.
type Latency struct {
	P50Ms float64 `json:"p50Ms"`
	P95Ms float64 `json:"p95Ms"`
	Count int     `json:"count"`
}

// ModelUsage summarises the calls made to one model.
type ModelUsage struct {
	P50Ms        float64 `json:"p50Ms"`
	P95Ms        float64 `json:"p95Ms"`
	InputTokens  int64   `json:"inputTokens"`
	OutputTokens int64   `json:"outputTokens"`
	CostUSD      float64 `json:"costUsd"`
}

// Gate is the decision against the baseline, filled by the gate package.
type Gate struct {
	Passed   bool               `json:"passed"`
	Baseline string             `json:"baseline"`
	Deltas   map[string]float64 `json:"deltas"`
	Reasons  []string           `json:"reasons"`
	// Notes are remarks that did not fail the gate: warnings, drops excused
	// as model drift or as not significant, the absence of a baseline.
	Notes []string `json:"notes,omitempty"`
	// Scores details every score key against the baseline, sorted by key.
	Scores []GateScore `json:"scores,omitempty"`
	// Regressions passed in the baseline and fail now; StillFailing failed in
	// both; New fail now and were absent from the baseline (or there was no
	// baseline); Fixed failed in the baseline and pass now. Non-blocking
	// failures (SHOULD-level checks without --strict) are listed too, marked.
	Regressions  []GateItem `json:"regressions,omitempty"`
	StillFailing []GateItem `json:"stillFailing,omitempty"`
	New          []GateItem `json:"new,omitempty"`
	Fixed        []GateItem `json:"fixed,omitempty"`
	// Waived are the failures a waiver accepted.
	Waived []GateItem `json:"waived,omitempty"`
	// StaleWaivers and ExpiredWaivers name waiver ids (as written in the
	// waiver file) that no longer match a failure or are past their expiry.
	StaleWaivers   []string `json:"staleWaivers,omitempty"`
	ExpiredWaivers []string `json:"expiredWaivers,omitempty"`
	// Drift is set when scores fell while the server fingerprint stayed the
	// same: likely model drift, not the change under test.
	Drift        bool   `json:"drift,omitempty"`
	DriftMessage string `json:"driftMessage,omitempty"`
	// Floors are the recorded score floors (a ceiling for lower-is-better
	// keys) that the next run gates on; they only tighten (--ratchet).
	Floors map[string]float64 `json:"floors,omitempty"`
}

// GateScore is one score key compared with the baseline.
type GateScore struct {
	Key string `json:"key"`
	// Direction is "higher" or "lower": which way is better.
	Direction string   `json:"direction"`
	Base      *float64 `json:"base"`    // nil when the baseline lacks the key
	Current   *float64 `json:"current"` // nil when this run lacks the key
	Delta     float64  `json:"delta"`   // current - base, 0 unless both exist
	// Floor is the recorded floor (ceiling for lower-is-better keys) this
	// run was held to, if any.
	Floor *float64 `json:"floor,omitempty"`
	// Drop says the score moved the wrong way by more than --max-drop;
	// BelowFloor that it is worse than the recorded floor.
	Drop       bool `json:"drop,omitempty"`
	BelowFloor bool `json:"belowFloor,omitempty"`
	// Failed says the score counts against the gate.
	Failed bool `json:"failed,omitempty"`
	// Drift says a drop was attributed to model drift.
	Drift bool `json:"drift,omitempty"`
	// Tested says a significance test ran (counts were derivable for both
	// sides); PValue is its one-sided p-value.
	Tested      bool     `json:"tested,omitempty"`
	Significant bool     `json:"significant,omitempty"`
	PValue      *float64 `json:"pValue,omitempty"`
	// The pooled good/total counts behind the test.
	BasePassed int `json:"basePassed,omitempty"`
	BaseTotal  int `json:"baseTotal,omitempty"`
	Passed     int `json:"passed,omitempty"`
	Total      int `json:"total,omitempty"`
}

// GateItem is one check or case as the gate classified it.
type GateItem struct {
	Kind       string `json:"kind"` // "check" or "case"
	ID         string `json:"id"`
	Model      string `json:"model,omitempty"`
	Hard       bool   `json:"hard"`
	Status     Status `json:"status"`
	BaseStatus Status `json:"baseStatus,omitempty"`
	Runs       int    `json:"runs"`
	Passed     int    `json:"passed"`
	BaseRuns   int    `json:"baseRuns,omitempty"`
	BasePassed int    `json:"basePassed,omitempty"`
	// PassRate and Floor are set for cases.
	PassRate float64 `json:"passRate,omitempty"`
	Floor    float64 `json:"floor,omitempty"`
	// PValue is the one-sided Fisher exact p-value of the change against
	// the baseline, when both sides had runs.
	PValue      *float64 `json:"pValue,omitempty"`
	Significant bool     `json:"significant,omitempty"`
	// Blocking says the failure counts against the gate (before waivers).
	Blocking     bool   `json:"blocking"`
	Waived       bool   `json:"waived,omitempty"`
	WaiverReason string `json:"waiverReason,omitempty"`
}

// Key names the item as a waiver does: the id, and for a case "id@model".
func (i GateItem) Key() string {
	if i.Model == "" {
		return i.ID
	}
	return i.ID + "@" + i.Model
}

// Failed reports whether the check counts against the run: a hard check that
// failed or errored, or, with strict, any check that did.
func (c Check) Failed(strict bool) bool {
	if c.Status != StatusFail && c.Status != StatusError {
		return false
	}
	return c.Hard || strict
}

// HardFailures returns the checks that fail the run.
func (r *Report) HardFailures(strict bool) []Check {
	var out []Check
	for _, c := range r.Checks {
		if c.Failed(strict) {
			out = append(out, c)
		}
	}
	return out
}

// Sort puts checks and cases in their canonical order (by id, then model) so
// that every rendering is deterministic.
func (r *Report) Sort() {
	sort.SliceStable(r.Checks, func(i, j int) bool { return r.Checks[i].ID < r.Checks[j].ID })
	sort.SliceStable(r.Cases, func(i, j int) bool {
		if r.Cases[i].ID != r.Cases[j].ID {
			return r.Cases[i].ID < r.Cases[j].ID
		}
		return r.Cases[i].Model < r.Cases[j].Model
	})
}

// ConformancePassRate is hard conformance checks passed over hard
// conformance checks that ran (skips excluded). It reports false when no
// hard check ran.
func (r *Report) ConformancePassRate() (float64, bool) {
	var n, ok int
	for _, c := range r.Checks {
		if c.Layer != LayerConformance || !c.Hard || c.Status == StatusSkip {
			continue
		}
		n++
		if c.Status == StatusPass {
			ok++
		}
	}
	if n == 0 {
		return 0, false
	}
	return float64(ok) / float64(n), true
}
