package pipeline

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/mcp-eval/mcp-eval/golden"
	"github.com/mcp-eval/mcp-eval/internal/exitcode"
	"github.com/mcp-eval/mcp-eval/report"
	"github.com/mcp-eval/mcp-eval/resilience"
	"github.com/mcp-eval/mcp-eval/telemetry"
)

// MergeFiles is `mcp-eval merge -o out shard1.json …`: it joins the reports
// of a job matrix split with --shard into one (report.Merge), pools their
// telemetry and recomputes the pooled scores from the cases (every case
// fraction carries its own denominator, so the numbers equal those of one
// unsplit run), for one job to gate on with `mcp-eval gate`.
func MergeFiles(out string, paths []string, stdout io.Writer) error {
	rs := make([]*report.Report, len(paths))
	var tele []*report.Telemetry
	for i, path := range paths {
		r, err := ReadReport("merge", path)
		if err != nil {
			return err
		}
		if rs[i] = r; r.Telemetry != nil {
			tele = append(tele, r.Telemetry)
		}
	}
	merged, err := report.Merge(paths, rs)
	if err != nil {
		return exitcode.Config(err)
	}
	if len(tele) > 0 {
		// Reports keep raw latency samples, so percentiles are recomputed
		// over all shards rather than averaged.
		merged.Telemetry = telemetry.Merge(tele...)
	}
	rescore(merged)
	var buf bytes.Buffer
	if err := report.WriteJSON(&buf, merged); err != nil {
		return err
	}
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		return exitcode.Configf("merge -o: %v", err)
	}
	fmt.Fprintf(stdout, "merged %d reports: %d checks, %d cases → %s\n", len(paths), len(merged.Checks), len(merged.Cases), out)
	return nil
}

// rescore recomputes the merged report's scores from its checks and cases:
// each case fraction carries its own denominator, so the pooled scores
// equal those of one unsplit run.
func rescore(merged *report.Report) {
	if rate, ok := merged.ConformancePassRate(); ok {
		merged.Scores["conformance.passRate"] = rate
	}
	// Layer 1 cases and Layer 2 variants share the cases list; each layer
	// recomputes its own scores from its own cases.
	var behavior, variants []report.Case
	for _, c := range merged.Cases {
		if resilience.IsVariantID(c.ID) {
			variants = append(variants, c)
		} else {
			behavior = append(behavior, c)
		}
	}
	for _, part := range []struct {
		cases  []report.Case
		scores func([]report.Case) (map[string]float64, map[string]map[string]float64)
	}{{behavior, golden.ScoresFromCases}, {variants, resilience.ScoresFromCases}} {
		if len(part.cases) == 0 {
			continue
		}
		merged.AddScores(part.scores(part.cases))
	}
	if len(merged.Confusion) > 0 {
		merged.Confusion = golden.MergeConfusion(merged.Confusion)
	}
	merged.Sort()
}
