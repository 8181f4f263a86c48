package github

import (
	"fmt"
	"testing"
	"time"

	"github.com/mcp-eval/mcp-eval/report"
)

// BenchmarkActionOverhead measures the Action's own GitHub work against the
// fake API over loopback: the baseline search (the newest green run lacks
// the layer, so two artifacts are downloaded and unzipped) and the comment
// upsert on a pull request with 150 comments (two pages, then an edit).
// The budget for the whole overhead, gate and rendering included, is 1 s.
func BenchmarkActionOverhead(b *testing.B) {
	f := newFakeGitHub(b, "/api/v3")
	f.addRuns(
		fakeRun{ID: 8100, Number: 420, Artifacts: []fakeArtifact{art(81, reportZip(b, conf, 1))}},
		fakeRun{ID: 8000, Number: 419, Event: "schedule", Artifacts: []fakeArtifact{art(80, reportZip(b, full, 0.9))}},
	)
	for i := range 150 {
		f.comments = append(f.comments, fakeComment{ID: int64(100 + i), Body: fmt.Sprintf("comment %d", i), Login: "monalisa", Type: "User"})
	}
	f.comments[120] = fakeComment{ID: 220, Body: body("old"), Login: "github-actions[bot]", Type: "Bot"}
	c := f.client(b, Config{})
	ctx := b.Context()
	var worst time.Duration
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		rep, _, _, err := fetchBaseline(ctx, c, report.LayerBehavior)
		if err != nil || rep == nil {
			b.Fatalf("FetchBaseline: %v", err)
		}
		if _, err := c.UpsertKeyedComment(ctx, prNumber, "", body(fmt.Sprint("run ", i))); err != nil {
			b.Fatalf("UpsertKeyedComment: %v", err)
		}
		worst = max(worst, time.Since(start))
	}
	if worst > time.Second {
		b.Errorf("slowest iteration took %v, over the 1 s budget", worst)
	}
	b.ReportMetric(float64(worst.Microseconds())/1000, "worst-ms")
}
