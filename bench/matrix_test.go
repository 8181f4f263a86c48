package bench

// The Layer 1 matrix at scale (10 000 cases × 6 models, split over a job
// matrix with --shard i/n): generated shard reports, as 20 shard jobs
// would upload them, are joined by the mcp-eval binary's merge (wall time
// and peak RSS of the child), and the merged report is gated against a
// baseline of the same size and rendered in-process: report.json,
// summary.md (GitHub's job summary takes at most 1 MiB) and the PR
// comment (at most 65 536 characters), whose sizes are printed. The
// summary and the comment must fit by summarising: neither may be cut.
//
//	MCP_EVAL_BENCH_MATRIX=1 go test ./bench -run TestMatrixScale -v
//	MCP_EVAL_BENCH_MATRIX=1 BENCH_MATRIX_CASES=1000,10000 BENCH_MATRIX_SHARDS=20 go test ./bench -run TestMatrixScale -v
//
// It is opt-in: it writes about 80 MB of reports and takes tens of seconds.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-eval/mcp-eval/gate"
	"github.com/mcp-eval/mcp-eval/report"
	"github.com/mcp-eval/mcp-eval/tasks"
)

var matrixModels = []string{"openai:gpt-4.1-mini", "openai:gpt-4.1", "anthropic:claude-sonnet-4-5", "anthropic:claude-haiku-4-5", "ollama:qwen3:8b", "openrouter:google/gemini-2.5-flash"}

func TestMatrixScale(t *testing.T) {
	if os.Getenv("MCP_EVAL_BENCH_MATRIX") != "1" {
		t.Skip("matrix bench: set MCP_EVAL_BENCH_MATRIX=1 to run it")
	}
	if raceEnabled() {
		t.Skip("speed test: meaningless under -race")
	}
	sizes := envInts(t, "BENCH_MATRIX_CASES", []int{10000}, 1)
	shards := envInts(t, "BENCH_MATRIX_SHARDS", []int{20}, 1)[0]
	bin := benchBinary(t)
	t.Logf("%6s %6s %6s %9s %9s %10s %11s %11s %10s %10s %9s", "cases", "pairs", "shards", "merge", "merge CPU", "merge RSS", "report.json", "summary.md", "comment", "gate CPU", "render CPU")
	for _, n := range sizes {
		matrixRun(t, bin, n, shards)
	}
}

// matrixRun generates n cases on every model split in shards reports,
// merges them with bin, gates and renders the result, and checks the
// outputs' bounds.
func matrixRun(t *testing.T, bin string, n, shards int) {
	dir := t.TempDir()
	matrixPlan(t, dir, n, shards)
	var paths []string
	for s := range shards {
		p := filepath.Join(dir, fmt.Sprintf("shard-%02d.json", s+1))
		writeReport(t, p, matrixReport(n, s, shards, 1))
		paths = append(paths, p)
	}
	basePath := filepath.Join(dir, "baseline.json")
	writeReport(t, basePath, matrixReport(n, 0, 1, 2))

	merged := filepath.Join(dir, "merged.json")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"merge", "-o", merged}, paths...)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Start()
	var peak *peakRSS
	if err == nil {
		peak = watchRSS(cmd.Process.Pid)
		err = cmd.Wait()
	}
	wall := time.Since(start)
	rss := peak.bytes(cmd.ProcessState)
	// CPU time too: on a shared machine the wall time says more about the
	// neighbours than about the merge.
	var cpu time.Duration
	if cmd.ProcessState != nil {
		cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	if err != nil {
		t.Fatalf("merge: %v\n%s", err, out.String())
	}

	r := readReport(t, merged)
	base := readReport(t, basePath)
	if len(r.Cases) != n*len(matrixModels) {
		t.Fatalf("merged %d cases, want %d", len(r.Cases), n*len(matrixModels))
	}
	gcpu := selfCPU(t)
	gate.Evaluate(r, base, gate.Policy{Method: gate.MethodStatistical}).Apply(r)
	gateCPU := selfCPU(t) - gcpu

	rcpu := selfCPU(t)
	var js, md, comment bytes.Buffer
	if err := report.WriteJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	if err := report.WriteMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	if err := report.WriteComment(&comment, r, report.CommentOptions{MaxBytes: 65536, RunURL: "https://github.com/o/r/actions/runs/1"}); err != nil {
		t.Fatal(err)
	}
	renderCPU := selfCPU(t) - rcpu
	chars := len([]rune(comment.String()))
	t.Logf("%6d %6d %6d %8.2fs %8.2fs %8.1fMB %9.1fMB %9.0fKiB %10d %9.2fs %8.2fs", n, len(r.Cases), shards, wall.Seconds(), cpu.Seconds(), float64(rss)/(1<<20),
		float64(js.Len())/(1<<20), float64(md.Len())/(1<<10), chars, gateCPU, renderCPU)
	if md.Len() > 1<<20 {
		t.Errorf("summary.md is %d bytes, more than GitHub's 1 MiB job summary", md.Len())
	}
	if chars > 65536 || strings.Contains(comment.String(), "This comment was cut") {
		t.Errorf("the comment is %d characters and cut: it must fit by summarising", chars)
	}
	if !strings.Contains(md.String(), "not listed") {
		t.Errorf("summary.md at %d cases does not say what it summarised", n)
	}
}

// matrixReport is shard s of n of a generated run of cases × the six
// models (every n-th case, as --shard does), seeded by seed: about 93 %
// of the pairs pass, 4 % fail their floor with reasons and transcripts,
// 3 % are flaky; each model has 1 000 latency samples, as a real shard's
// telemetry keeps.
func matrixReport(cases, s, n int, seed uint64) *report.Report {
	rng := rand.New(rand.NewPCG(seed, 0x6d6174726978))
	r := &report.Report{SchemaVersion: report.SchemaVersion, Tool: report.Tool{Name: "mcp-eval", Version: "dev"},
		StartedAt: "2026-12-01T03:00:00Z", DurationMs: 3600000, Layers: []string{report.LayerBehavior, report.LayerTelemetry},
		Server: report.Server{Target: "http://server:8080/mcp", Transport: "http", Era: "modern", ProtocolVersion: "2026-07-28", SupportedVersions: []string{"2026-07-28"}, Fingerprint: "f1ee7"},
		Checks: []report.Check{}, Scores: map[string]float64{}, Commit: "0123456789abcdef", Telemetry: &report.Telemetry{Models: map[string]report.ModelUsage{}}}
	for i := range 50 {
		r.Surface.Tools = append(r.Surface.Tools, report.SurfaceItem{Name: fmt.Sprintf("tool_%02d", i), DescriptionSHA256: sha256.Sum256([]byte("a"))})
	}
	for i := s; i < cases; i += n {
		id := fmt.Sprintf("case-%05d-%s", i, []string{"search", "create", "update", "negative", "chain"}[i%5])
		for _, m := range matrixModels {
			r.Cases = append(r.Cases, matrixCase(rng, id, m, i))
		}
	}
	for _, m := range matrixModels {
		u := report.ModelUsage{P50Ms: 800, P95Ms: 2400, Count: cases * 6 / n, InputTokens: int64(cases) * 3000 / int64(n), OutputTokens: int64(cases) * 200 / int64(n), CostUSD: 1.5}
		for k := range 1000 {
			u.SamplesMs = append(u.SamplesMs, 300+float64(k)*2.5+rng.Float64())
		}
		r.Telemetry.Models[m] = u
	}
	return r
}

func matrixCase(rng *rand.Rand, id, model string, i int) report.Case {
	one, zero := 1.0, 0.0
	c := report.Case{ID: id, Model: model, Kind: "soft", Runs: 3, Passed: 3, PassRate: 1, Floor: 0.8, Status: report.StatusPass,
		Selection: &one, Arguments: &one, WilsonLow: 0.44, WilsonHigh: 1, Tags: []string{"area-" + fmt.Sprint(i%17)},
		RunOutcomes: []string{"pass", "pass", "pass"}, File: "golden/tasks.yaml", Line: 3 + 6*i,
		InputTokens: 9000, OutputTokens: 600, DefinitionSHA256: fmt.Sprintf("%064x", i)}
	if i%4 == 0 {
		c.Kind, c.Floor = "hard", 1
	}
	cost := 0.0042
	c.CostUSD = &cost
	switch x := rng.Float64(); {
	case x < 0.04:
		c.Passed, c.PassRate, c.Status, c.Selection = 0, 0, report.StatusFail, &zero
		c.RunOutcomes = []string{"fail", "fail", "fail"}
		c.WilsonLow, c.WilsonHigh = 0, 0.56
		for k := 1; k <= 3; k++ {
			c.Failures = append(c.Failures, fmt.Sprintf("run %d: selected tool_%02d, want tool_%02d (the description of tool_%02d reads as the better match)", k, i%50, (i+1)%50, i%50))
			c.Transcripts = append(c.Transcripts, fmt.Sprintf("transcripts/%s@%s/run-%d.json", id, strings.ReplaceAll(model, ":", "_"), k))
		}
	case x < 0.07:
		c.Passed, c.PassRate, c.Flaky = 2, 2.0/3, true
		c.RunOutcomes = []string{"pass", "fail", "pass"}
		c.Failures = []string{"run 2: argument city: got \"Paris, FR\", want \"Paris\""}
		if c.Kind == "hard" {
			c.Status = report.StatusFail
		}
	}
	return c
}

// matrixPlan times what each shard job does before its first model call
// with a golden file of n cases: read and check it, and take its shard;
// the shards must cover every case once.
func matrixPlan(t *testing.T, dir string, n, shards int) {
	var b strings.Builder
	b.WriteString("version: 1\ncases:\n")
	for i := range n {
		fmt.Fprintf(&b, "  - id: case-%05d\n    prompt: \"Find the open %s records of region %d.\"\n    expect_tool: tool_%02d\n    expect_args: {query: region %d}\n    tags: [area-%d]\n", i, []string{"invoice", "order", "parcel"}[i%3], i, i%50, i, i%17)
	}
	path := filepath.Join(dir, "tasks.yaml")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	s, err := tasks.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	load := time.Since(start)
	seen := 0
	start = time.Now()
	for i := 1; i <= shards; i++ {
		seen += len(s.Shard(i, shards))
	}
	split := time.Since(start)
	if seen != n {
		t.Errorf("the %d shards hold %d cases, want %d", shards, seen, n)
	}
	t.Logf("golden file of %d cases (%.1f MB): loaded and checked in %.2fs, split in %d shards in %v", n, float64(b.Len())/(1<<20), load.Seconds(), shards, split)
}

func writeReport(t *testing.T, path string, r *report.Report) {
	t.Helper()
	var b bytes.Buffer
	if err := report.WriteJSON(&b, r); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readReport(t *testing.T, path string) *report.Report {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r report.Report
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return &r
}
