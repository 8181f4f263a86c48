// Package report owns the Report model that every layer fills and every
// renderer reads: the report.json contract of DESIGN.md, and the shared
// names (names.go) that every package uses for layers, score keys, case
// keys and the counts-against rule. It is pure: it imports only the
// standard library and internal/clip, and does no I/O of its own beyond
// the io.Writer a renderer is given.
package report

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
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
	// Interrupted says a signal stopped the run and the report holds only
	// what finished (why and when); such a report never passes its gate.
	Interrupted string `json:"interrupted,omitempty"`
	// History holds the headline scores of recent runs, oldest first, the
	// last entry being this run: CarryHistory carries it forward from the
	// baseline, and the summary draws it as a trend chart.
	History []HistoryEntry `json:"history,omitempty"`
	// RunID and RunURL name the CI run that wrote the report (GITHUB_RUN_ID
	// and its page in the Action), so that a verdict carried from it can
	// say where it was decided.
	RunID  string `json:"runId,omitempty"`
	RunURL string `json:"runUrl,omitempty"`
	// SurfaceDiff is the tool surface compared with the baseline's, change
	// by change (surfacediff.go); absent without a baseline.
	SurfaceDiff *SurfaceDiff `json:"surfaceDiff,omitempty"`
	// Selection says which golden cases ran and which carried the
	// baseline's verdict (--select affected, --rerun-failed); absent when
	// every case ran.
	Selection *Selection `json:"selection,omitempty"`
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
	// Answer is the share of runs whose final answer passed
	// expect_answer; absent when the case has none.
	Answer *float64 `json:"answer,omitempty"`
	// WilsonLow and WilsonHigh bound the 95% Wilson score interval of the
	// pass rate over the non-errored runs ([0, 1] when there were none).
	WilsonLow  float64 `json:"wilsonLow"`
	WilsonHigh float64 `json:"wilsonHigh"`
	// Flaky marks a case that passed some runs and failed others.
	Flaky bool     `json:"flaky,omitempty"`
	Tags  []string `json:"tags,omitempty"`
	// Draft: the golden case is marked draft: true (written by mcp-eval
	// init, not yet edited); it ran like any case.
	Draft bool `json:"draft,omitempty"`
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
	// RunOutcomes is each run's outcome in order: pass, fail or error
	// (--verbose shows them).
	RunOutcomes []string `json:"runOutcomes,omitempty"`
	// Skipped says why a case with status skip was not scored (a rubric
	// with --judge-model none).
	Skipped string `json:"skipped,omitempty"`
	// File and Line are where the case is defined in the golden file (a
	// variant's: its case's), for code scanning and annotations.
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	// JudgeReasons is the judge's verdict and reason on the first judged
	// runs ("run 1: pass: …"), passes included: what a pass rests on is
	// worth reading too.
	JudgeReasons []string `json:"judgeReasons,omitempty"`
	// Transcripts are the files, relative to the output folder, holding
	// the transcripts of the case's failed and errored runs (all its runs
	// when it is flaky), secrets masked.
	Transcripts []string `json:"transcripts,omitempty"`
	// InputTokens and OutputTokens sum the model usage of all the case's
	// runs, cached runs included (their transcripts carry the usage of the
	// run that filled the cache), and CostUSD prices them; set by Layer 3.
	// CostUSD is absent when the model has no price (cost unknown, not 0).
	InputTokens  int64    `json:"inputTokens,omitempty"`
	OutputTokens int64    `json:"outputTokens,omitempty"`
	CostUSD      *float64 `json:"costUsd,omitempty"`
	// DefinitionSHA256 hashes the golden case as written (its prompt and
	// expectations), so that a selection can tell an edited case from the
	// baseline's and run it again.
	DefinitionSHA256 string `json:"definitionSha256,omitempty"`
	// Carried says the case did not run: its verdict is the one of the run
	// it names (selection.go). The gate does not decide it again.
	Carried *CarriedFrom `json:"carried,omitempty"`
	// Decision is how the statistical gate (--gate statistical, the
	// default) decided the case; absent under --gate fixed, where the
	// status is the pass rate against the floor.
	Decision *CaseDecision `json:"decision,omitempty"`
}

// Rules and verdicts of CaseDecision.
const (
	RuleHard    = "hard"    // every judged run must pass
	RuleFloor   = "floor"   // group-sequential exact binomial test of the floor
	RuleErrored = "errored" // no run could be judged

	VerdictPass       = "pass"
	VerdictFail       = "fail"
	VerdictIncomplete = "incomplete"
)

// CaseDecision is the statistical gate's decision on one case on one
// model, with what it rests on: the looks of the group-sequential design,
// the judged runs and passes at the deciding look, the exact p-value of
// the floor test and the level that look could spend, the one-sided upper
// confidence bound that pairs with it, and the highest true pass rate the
// design catches with 80 % power.
type CaseDecision struct {
	Rule    string `json:"rule"`
	Verdict string `json:"verdict"`
	// Why is the decision in one sentence.
	Why string `json:"why"`
	// Looks are the cumulative runs after which the evidence is weighed;
	// Look is the 1-based look that decided (or the last one run).
	Looks []int `json:"looks"`
	Look  int   `json:"look"`
	// Judged and Passed count the non-errored runs up to that look.
	Judged int `json:"judged"`
	Passed int `json:"passed"`
	// Alpha is the floor test's whole level (its share of the run's
	// --alpha); Level what the deciding look could spend of it.
	Alpha float64 `json:"alpha,omitempty"`
	Level float64 `json:"level,omitempty"`
	// PValue is P(X ≤ passed | judged, floor), exact binomial.
	PValue *float64 `json:"pValue,omitempty"`
	// Upper is the one-sided upper confidence bound on the true pass rate
	// at Level (Clopper–Pearson): the test fails the case exactly when it
	// is at most the floor.
	Upper *float64 `json:"upper,omitempty"`
	// Detectable is the highest true pass rate the design catches with
	// 80 % power at Alpha.
	Detectable *float64 `json:"detectable,omitempty"`
	// Stopped says what ended the runs before the case was decided (a
	// spent --model-budget); set with the verdict incomplete.
	Stopped string `json:"stopped,omitempty"`
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
	// Model is the judge's provider:model when one judge graded every
	// tested model; empty when no judge was used or when ByModel is set.
	Model string `json:"model,omitempty"`
	// ByModel is each tested model's judge (model → judge) when they
	// differ: without --judge-model the tested models grade each other.
	ByModel map[string]string `json:"byModel,omitempty"`
	// PromptSHA256 is the hash of judge/judge_prompt.txt.
	PromptSHA256 string `json:"promptSha256"`
	// SemanticFallback says that at least one semantic argument match used
	// the deterministic token similarity instead of the judge.
	SemanticFallback bool `json:"semanticFallback,omitempty"`
	// PromptFile is the --judge-prompt file the prompt came from; absent
	// for the built-in judge/judge_prompt.txt.
	PromptFile string `json:"promptFile,omitempty"`
	// Disabled: --judge-model none; rubric cases were skipped and semantic
	// arguments used the deterministic fallback.
	Disabled bool `json:"disabled,omitempty"`
	// SelfGraded lists the tested models the judge is itself: their
	// rubric and semantic scores are a model grading its own runs.
	SelfGraded []string `json:"selfGraded,omitempty"`
	// Default: no --judge-model was given, so each of --models is graded
	// by the next (a single model by itself).
	Default bool `json:"default,omitempty"`
	// Calls, InputTokens and OutputTokens are the judge's own model use,
	// and CostUSD its price, kept apart from the tested models' cost; the
	// cost is absent when unknown.
	Calls        int64    `json:"calls,omitempty"`
	InputTokens  int64    `json:"inputTokens,omitempty"`
	OutputTokens int64    `json:"outputTokens,omitempty"`
	CostUSD      *float64 `json:"costUsd,omitempty"`
}

// JudgeOf is the judge that graded model's runs: ByModel's, else Model
// (a report from before ByModel names one judge for every model).
func (j *JudgeInfo) JudgeOf(model string) string {
	if j == nil {
		return ""
	}
	if s, ok := j.ByModel[model]; ok {
		return s
	}
	return j.Model
}

// Off says that no judge graded anything.
func (j *JudgeInfo) Off() bool {
	return j == nil || j.Disabled || j.Model == "" && len(j.ByModel) == 0
}

// Judges names the judges: Model, or which graded which ("b graded a, a
// graded b", in model order); "" when none.
func (j *JudgeInfo) Judges() string {
	if j == nil || j.Model != "" || len(j.ByModel) == 0 {
		return j.judgeModel()
	}
	models := make([]string, 0, len(j.ByModel))
	for m := range j.ByModel {
		models = append(models, m)
	}
	sort.Strings(models)
	parts := make([]string, len(models))
	for i, m := range models {
		parts[i] = j.ByModel[m] + " graded " + m
	}
	return strings.Join(parts, ", ")
}

func (j *JudgeInfo) judgeModel() string {
	if j == nil {
		return ""
	}
	return j.Model
}

// Surface keeps per-item hashes of the server's tool surface so that a diff
// against a baseline can name what changed.
type Surface struct {
	Tools     []SurfaceItem `json:"tools"`
	Prompts   []SurfaceItem `json:"prompts,omitempty"`
	Resources []SurfaceItem `json:"resourceTemplates,omitempty"`
}

// SurfaceItem is one tool, prompt or resource template, hashed. A tool
// also keeps what a semantic diff reads (title, description, schemas,
// annotations, canonical JSON without _meta), within a budget the
// surface package sets; past it only the hashes are kept.
type SurfaceItem struct {
	Name               string `json:"name"`
	DescriptionSHA256  Digest `json:"descriptionSha256"`
	InputSchemaSHA256  Digest `json:"inputSchemaSha256,omitzero"`
	OutputSchemaSHA256 Digest `json:"outputSchemaSha256,omitzero"`
	AnnotationsSHA256  Digest `json:"annotationsSha256,omitzero"`
	SHA256             Digest `json:"sha256,omitzero"`
	// The definition, when recorded; its members are written inline (an
	// embedded pointer), so report.json reads as one object a tool. Apart
	// from the item: most tools of a big server have none, and inline its
	// members were 104 bytes of every one of 100 000 items. Read it with
	// Def, which is nil-safe.
	*SurfaceDefinition
}

// SurfaceDefinition is what a semantic diff reads of a tool.
type SurfaceDefinition struct {
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema,omitempty"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  json.RawMessage `json:"annotations,omitempty"`
	// Defined says the definition is recorded; without it only the hashes
	// can be compared.
	Defined bool `json:"defined,omitempty"`
}

// Def returns the item's recorded definition, or nil when only its hashes
// were kept.
func (it SurfaceItem) Def() *SurfaceDefinition {
	if it.SurfaceDefinition == nil || !it.Defined {
		return nil
	}
	return it.SurfaceDefinition
}

// Telemetry holds Layer 3 measurements. Percentiles are nearest-rank over
// the calls in Count; SamplesMs keep enough of them for merge to recompute
// the percentiles of several shards (see the telemetry package).
type Telemetry struct {
	ToolCalls map[string]Latency    `json:"toolCalls,omitempty"`
	Models    map[string]ModelUsage `json:"models,omitempty"`
	// ToolList estimates the tokens the tool definitions cost every
	// conversation before the first word.
	ToolList *ToolListFootprint `json:"toolList,omitempty"`
	// Prices names the price table behind every costUsd.
	Prices *PriceTable `json:"prices,omitempty"`
	// Notes say what the figures cannot: unpriced models, latencies replayed
	// from the result cache, shards merged without samples.
	Notes []string `json:"notes,omitempty"`
}

// Latency summarises a set of timed calls.
type Latency struct {
	P50Ms float64 `json:"p50Ms"`
	P95Ms float64 `json:"p95Ms"`
	// P99Ms is the 99th percentile; with fewer than 100 calls it is the
	// slowest call.
	P99Ms float64 `json:"p99Ms,omitempty"`
	// Count is the number of calls in the percentiles.
	Count int `json:"count"`
	// Errors counts calls that got no usable answer (transport failure,
	// timeout, an HTTP error from a model API); they are not in the
	// percentiles.
	Errors int `json:"errors,omitempty"`
	// Source is "live" (measured by this run), "cache" (replayed from the
	// result cache's transcripts because no call was made) or "mixed"
	// (merged shards of both kinds).
	Source string `json:"source,omitempty"`
	// CachedCount counts calls replayed from cached transcripts.
	CachedCount int `json:"cachedCount,omitempty"`
	// SamplesMs are the latencies in milliseconds, ascending: all of them
	// up to 1000, else 1000 evenly spaced order statistics, each standing
	// for Count/len(SamplesMs) calls.
	SamplesMs []float64 `json:"samplesMs,omitempty"`
}

// ModelUsage summarises the calls made to one model.
type ModelUsage struct {
	P50Ms float64 `json:"p50Ms"`
	P95Ms float64 `json:"p95Ms"`
	P99Ms float64 `json:"p99Ms,omitempty"`
	// Count, Errors, Source, CachedCount and SamplesMs are as in Latency;
	// one call is one HTTP request to the model API.
	Count        int    `json:"count,omitempty"`
	Errors       int    `json:"errors,omitempty"`
	Source       string `json:"source,omitempty"`
	CachedCount  int    `json:"cachedCount,omitempty"`
	InputTokens  int64  `json:"inputTokens"`
	OutputTokens int64  `json:"outputTokens"`
	// TokensUnknown says that at least one answer carried no usage: the
	// token counts are then a lower bound (0 when no answer had any), never
	// a measurement of 0.
	TokensUnknown bool `json:"tokensUnknown,omitempty"`
	// CachedInputTokens and CacheWriteTokens are the parts of InputTokens
	// read from and written to the provider's prompt cache, and
	// ReasoningTokens the part of OutputTokens spent on hidden reasoning;
	// each is priced at its own rate.
	CachedInputTokens int64 `json:"cachedInputTokens,omitempty"`
	CacheWriteTokens  int64 `json:"cacheWriteTokens,omitempty"`
	ReasoningTokens   int64 `json:"reasoningTokens,omitempty"`
	// CostUSD prices the tokens; it is 0 and CostUnknown is set when the
	// model has no price in the table.
	CostUSD float64 `json:"costUsd"`
	// CostUnknown says that no price was found for the model, so CostUSD
	// is not a measurement.
	CostUnknown bool `json:"costUnknown,omitempty"`
	// Price is the price the cost was computed with.
	Price     *Price    `json:"price,omitempty"`
	SamplesMs []float64 `json:"samplesMs,omitempty"`
}

// Price is what one model costs, in US dollars per million tokens.
type Price struct {
	InputPerMTok  float64 `json:"inputPerMTok"`
	OutputPerMTok float64 `json:"outputPerMTok"`
	// CachedInputPerMTok prices prompt-cache hits, CacheWritePerMTok
	// prompt-cache writes.
	CachedInputPerMTok float64 `json:"cachedInputPerMTok"`
	CacheWritePerMTok  float64 `json:"cacheWritePerMTok"`
	// Source is where the price came from: "built-in 2025-11-25" or the
	// price file and line.
	Source string `json:"source"`
}

// PriceTable names the price table a run used.
type PriceTable struct {
	// Date is when the built-in prices were checked; prices change.
	Date string `json:"date"`
	// Files are the price files that overrode or extended it.
	Files []string `json:"files,omitempty"`
}

// ToolListFootprint estimates what the tool list costs every conversation:
// the tool definitions are sent to the model with every request.
type ToolListFootprint struct {
	Tools int `json:"tools"`
	// Bytes is the size of the definitions as the model is given them
	// (name, description and input schema as compact JSON).
	Bytes int `json:"bytes"`
	// EstimatedTokens is an estimate, not a provider's count: see Method.
	EstimatedTokens int64 `json:"estimatedTokens"`
	// Method says how the estimate was made.
	Method string `json:"method"`
	// PerTool is the estimate for each tool, to find the heavy ones.
	PerTool map[string]int64 `json:"perTool,omitempty"`
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
	// Perf compares p95 latency per tool and model and cost per case run
	// with the baseline (--max-latency-increase, --max-cost-increase).
	Perf []GatePerf `json:"perf,omitempty"`
	// Rules are the policy the decision followed, in words, one a line,
	// each naming the flag that changes it.
	Rules []string `json:"rules,omitempty"`
	// BaselineRun describes the run the baseline came from.
	BaselineRun *GateBaseline `json:"baselineRun,omitempty"`
	// Statistics describes the statistical gate's family of tests; absent
	// under --gate fixed.
	Statistics *GateStatistics `json:"statistics,omitempty"`
}

// Gate methods (--gate).
const (
	GateStatistical = "statistical"
	GateFixed       = "fixed"
)

// GateStatistics is the statistical gate's design and what it could see:
// the run's false-alarm rate, how it was spent over the tests, the suite
// tests, and the smallest regressions detectable with 80 % power.
type GateStatistics struct {
	Method string  `json:"method"`
	Alpha  float64 `json:"alpha"`
	// Procedure names the multiplicity control and the tests, in words.
	Procedure string `json:"procedure"`
	// Cases is the number of soft case × model decisions in the family.
	Cases int `json:"cases"`
	// FloorLevel, BaseLevel and SuiteLevel are the levels of one case's
	// floor test, one case's comparison with the baseline, and one model's
	// suite test.
	FloorLevel float64 `json:"floorLevel"`
	BaseLevel  float64 `json:"baseLevel,omitempty"`
	SuiteLevel float64 `json:"suiteLevel,omitempty"`
	// Runs and MaxRuns bound the runs of a soft case: the first look and
	// the last.
	Runs    int `json:"runs"`
	MaxRuns int `json:"maxRuns"`
	// RunsUsed is the runs of every case together; FixedRuns what the
	// first look alone would have cost.
	RunsUsed  int `json:"runsUsed"`
	FixedRuns int `json:"fixedRuns"`
	// Detectable is the highest true pass rate at which a soft case with
	// the default floor is caught with 80 % power (the worst over cases).
	Detectable *float64 `json:"detectable,omitempty"`
	// Suite are the pooled comparisons with the baseline, one per model.
	Suite []SuiteTest `json:"suite,omitempty"`
	// WithinNoise are the cases whose pass rate fell against the baseline
	// without the drop being significant.
	WithinNoise []GateItem `json:"withinNoise,omitempty"`
	// Incomplete are the cases left undecided when a budget ran out.
	Incomplete []string `json:"incomplete,omitempty"`
}

// Methods of SuiteTest.
const (
	SuitePooled           = "pooled Fisher exact"
	SuiteStratified       = "stratified exact"
	SuiteStratifiedNormal = "stratified CMH normal"
)

// SuiteTest is one model's pooled comparison of every soft case with the
// baseline: one-sided Fisher exact test of all judged runs pooled when
// both runs gave every case the same design, else the stratified exact
// test (cases as strata) of the first looks.
type SuiteTest struct {
	Model      string  `json:"model"`
	BasePassed int     `json:"basePassed"`
	BaseTotal  int     `json:"baseTotal"`
	Passed     int     `json:"passed"`
	Total      int     `json:"total"`
	Strata     int     `json:"strata"`
	PValue     float64 `json:"pValue"`
	Level      float64 `json:"level"`
	// Method is SuitePooled or SuiteStratified (SuiteStratifiedNormal past
	// the exact convolution's bound).
	Method string `json:"method"`
	// Significant: the pooled pass rate fell beyond chance at Level.
	Significant bool `json:"significant"`
	// DetectableDrop is the smallest uniform drop of the pass rate the test
	// catches with 80 % power (normal approximation).
	DetectableDrop float64 `json:"detectableDrop"`
	// Drift: the drop came with an unchanged server fingerprint.
	Drift bool `json:"drift,omitempty"`
}

// GateBaseline is where a baseline came from: its run and its server.
type GateBaseline struct {
	StartedAt   string `json:"startedAt,omitempty"`
	Commit      string `json:"commit,omitempty"`
	ToolVersion string `json:"toolVersion,omitempty"`
	Fingerprint string `json:"fingerprint,omitempty"`
	// SameServer says the baseline's server fingerprint equals this run's:
	// score drops are then attributed to model drift.
	SameServer bool `json:"sameServer"`
}

// GatePerf is one latency or cost figure compared with the baseline.
type GatePerf struct {
	// Kind is PerfTool (p95 of tools/call), PerfModel (p95 of model
	// calls) or PerfCase (cost per run of a case on a model).
	Kind  string `json:"kind"`
	ID    string `json:"id"`
	Model string `json:"model,omitempty"`
	// Metric is MetricP95 or MetricCostPerRun.
	Metric  string  `json:"metric"`
	Base    float64 `json:"base"`
	Current float64 `json:"current"`
	// Increase is (current - base) / base.
	Increase float64 `json:"increase"`
	// Limit is the allowed relative increase it was held to; absent when
	// no limit was set (the figure is shown, not judged).
	Limit *float64 `json:"limit,omitempty"`
	// Exceeded says Increase is above Limit; Failed that it counts against
	// the gate (the policy makes these warnings unless told otherwise).
	Exceeded bool `json:"exceeded,omitempty"`
	Failed   bool `json:"failed,omitempty"`
}

// GateScore is one score key compared with the baseline.
type GateScore struct {
	Key string `json:"key"`
	// Direction is which way is better: ScoreDirection(Key).
	Direction Direction `json:"direction"`
	Base      *float64  `json:"base"`    // nil when the baseline lacks the key
	Current   *float64  `json:"current"` // nil when this run lacks the key
	Delta     float64   `json:"delta"`   // current - base, 0 unless both exist
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
	Kind       string `json:"kind"` // ItemCheck or ItemCase
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
	// Level is the significance level the comparison was held to: its
	// share of --alpha under the statistical gate.
	Level *float64 `json:"level,omitempty"`
	// Reason says how a case that passed its own floor regressed: a
	// significant drop against the baseline.
	Reason string `json:"reason,omitempty"`
	// Blocking says the failure counts against the gate (before waivers).
	Blocking     bool   `json:"blocking"`
	Waived       bool   `json:"waived,omitempty"`
	WaiverReason string `json:"waiverReason,omitempty"`
	// WaiverFile and WaiverLine locate the waiver that accepted it.
	WaiverFile string `json:"waiverFile,omitempty"`
	WaiverLine int    `json:"waiverLine,omitempty"`
}

// Key names the item as a waiver does: the id, and for a case
// CaseKey(id, model).
func (i GateItem) Key() string {
	if i.Model == "" {
		return i.ID
	}
	return CaseKey(i.ID, i.Model)
}

// Failed reports whether the check counts against the run: a hard check that
// failed or errored, or, with strict, any check that did. It is, with
// Case.Failed, the one rule every renderer, the gate and the exit code follow
// (before waivers); a failed check that does not count is a warning.
func (c Check) Failed(strict bool) bool {
	return c.Status.Failed() && (c.Hard || strict)
}

// Default floors of a case by kind, for a report that did not record one.
const (
	HardFloor = 1.0
	SoftFloor = 0.8
)

// FloorOrDefault is the case's floor, or its kind's default when the report
// did not record one.
func (c Case) FloorOrDefault() float64 {
	switch {
	case c.Floor > 0:
		return c.Floor
	case c.Hard():
		return HardFloor
	}
	return SoftFloor
}

// Failed reports whether the case counts against the run: it failed or
// errored, or its pass rate is below its floor. Every case is held to its
// floor whatever its kind (a soft case's floor is only lower), so a case is
// never a mere warning; strict changes nothing here. The status is trusted
// first; the pass rate is checked too, so that a report whose status and
// numbers disagree still cannot slip under the floor. A skipped case ran
// nothing and counts against nothing.
func (c Case) Failed() bool {
	if c.Status == StatusSkip {
		return false
	}
	if c.Decision != nil {
		// The statistical gate decided the status on the evidence: a soft
		// case whose runs dipped below its floor by chance passes.
		return c.Status.Failed()
	}
	return c.Status.Failed() || c.PassRate < c.FloorOrDefault()-1e-9
}

// AllErrored says no run of the case could be judged: every one errored
// (the model provider or a judge failed), so the case says nothing about the
// server.
func (c Case) AllErrored() bool {
	return c.Status == StatusError && c.Runs > 0 && c.Errored >= c.Runs
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
	ok, n := r.conformanceCounts()
	if n == 0 {
		return 0, false
	}
	return float64(ok) / float64(n), true
}

// conformanceCounts returns the hard conformance checks that passed and
// those that ran (skips excluded): the counts behind ConformancePassRate.
func (r *Report) conformanceCounts() (passed, ran int) {
	for _, c := range r.Checks {
		if c.Layer != LayerConformance || !c.Hard || c.Status == StatusSkip {
			continue
		}
		ran++
		if c.Status == StatusPass {
			passed++
		}
	}
	return passed, ran
}

// AddScores merges pooled and per-model scores into the report, as each
// layer's summary and mcp-eval merge do.
func (r *Report) AddScores(scores map[string]float64, byModel map[string]map[string]float64) {
	if r.Scores == nil {
		r.Scores = map[string]float64{}
	}
	for k, v := range scores {
		r.Scores[k] = v
	}
	for m, sc := range byModel {
		if r.ScoresByModel == nil {
			r.ScoresByModel = map[string]map[string]float64{}
		}
		if r.ScoresByModel[m] == nil {
			r.ScoresByModel[m] = map[string]float64{}
		}
		for k, v := range sc {
			r.ScoresByModel[m][k] = v
		}
	}
}

// Run is one run of a check, before the runs are folded into the Check.
type Run struct {
	Status   Status
	Message  string
	Evidence json.RawMessage
	Info     string
}

// FoldRuns folds the runs of a check into c: it passes only if every run
// that ran passed (runs that skipped, such as those after a server restart
// failed, do not count); it is skip when every run skipped, fail when any
// failed, error when any errored otherwise. The first run that ended that
// way supplies the message and evidence, and the message says how many runs
// passed; the first run with info supplies the info.
func FoldRuns(c Check, runs []Run) Check {
	c.Runs, c.Passed = len(runs), 0
	var bad *Run
	fails, errs, skips := 0, 0, 0
	for i := range runs {
		r := &runs[i]
		switch r.Status {
		case StatusPass:
			c.Passed++
		case StatusSkip:
			skips++
		case StatusFail:
			fails++
		default:
			errs++
		}
		if r.Status != StatusPass && bad == nil {
			bad = r
		}
		if c.Info == "" && r.Info != "" {
			c.Info = r.Info
		}
	}
	switch {
	case skips == len(runs):
		c.Status, c.Runs, c.Passed = StatusSkip, 0, 0
	case fails > 0:
		c.Status = StatusFail
	case errs > 0:
		c.Status = StatusError
	default:
		c.Status, c.Runs = StatusPass, c.Passed
		return c
	}
	// The message comes from the first run that ended the way the check
	// did, so a failure is explained by a failing run.
	for i := range runs {
		if runs[i].Status == c.Status {
			bad = &runs[i]
			break
		}
	}
	c.Message, c.Evidence = bad.Message, bad.Evidence
	if c.Status != StatusSkip && len(runs) > 1 {
		c.Message = fmt.Sprintf("%s (%d of %d runs passed)", c.Message, c.Passed, len(runs))
	}
	return c
}
