package telemetry

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcp-eval/mcp-eval/report"
)

// shard records the given latencies (ms) of one tool and one model in a
// Recorder of its own and returns its telemetry.
func shard(t *testing.T, lat []float64) *report.Telemetry {
	t.Helper()
	r := New(nil)
	for _, v := range lat {
		d := time.Duration(v * float64(time.Millisecond))
		r.RequestDone("tools/call", "get_forecast", d, 10, nil)
		r.RequestEnd("openai", "gpt-4.1-mini", d, usage(100, 10), nil)
	}
	return r.Telemetry()
}

func randomLatencies(r *rand.Rand, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		// Microsecond resolution, as the report keeps them; a long tail.
		out[i] = float64(50_000+r.IntN(20_000)+r.IntN(2)*r.IntN(200_000)) / 1000
	}
	return out
}

// TestMergeEqualsRecomputation: merging shards gives exactly the figures
// of one Recorder that saw every call, as long as no shard thinned its
// samples.
func TestMergeEqualsRecomputation(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 7))
	for _, sizes := range [][]int{{1}, {3, 4}, {17, 1, 250}, {400, 300, 300}, {SampleCap, 1}} {
		var all []float64
		var shards []*report.Telemetry
		for _, n := range sizes {
			lat := randomLatencies(r, n)
			all = append(all, lat...)
			shards = append(shards, shard(t, lat))
		}
		got := Merge(shards...)
		want := shard(t, all)
		total := len(all)
		if total > SampleCap {
			// The merged report must thin to SampleCap like one run would;
			// the percentiles are still exact, computed before thinning.
			gl, wl := got.ToolCalls["get_forecast"], want.ToolCalls["get_forecast"]
			if len(gl.SamplesMs) != SampleCap || len(wl.SamplesMs) != SampleCap {
				t.Fatalf("%v: samples %d and %d, want %d", sizes, len(gl.SamplesMs), len(wl.SamplesMs), SampleCap)
			}
			gl.SamplesMs, wl.SamplesMs = nil, nil
			if diff := cmp.Diff(wl, gl); diff != "" {
				t.Errorf("%v: tool (-recomputed +merged):\n%s", sizes, diff)
			}
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%v: (-recomputed +merged):\n%s", sizes, diff)
		}
	}
}

// TestMergeThinnedShards: shards that thinned their samples merge to
// percentiles within a fraction of a rank of the truth.
func TestMergeThinnedShards(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 9))
	a, b := randomLatencies(r, 5000), randomLatencies(r, 1500)
	got := Merge(shard(t, a), shard(t, b)).ToolCalls["get_forecast"]
	all := append(slices.Clone(a), b...)
	slices.Sort(all)
	if got.Count != len(all) || len(got.SamplesMs) != SampleCap {
		t.Fatalf("count %d, %d samples", got.Count, len(got.SamplesMs))
	}
	for _, c := range []struct {
		p   float64
		got float64
	}{{50, got.P50Ms}, {95, got.P95Ms}, {99, got.P99Ms}} {
		// The merged value must lie within ±1% of ranks of the exact one.
		lo := Percentile(all, c.p-1)
		hi := Percentile(all, min(c.p+1, 100))
		if c.got < lo || c.got > hi {
			t.Errorf("p%v = %v, want within [%v, %v] (exact %v)", c.p, c.got, lo, hi, Percentile(all, c.p))
		}
	}
}

func TestMergeBookkeeping(t *testing.T) {
	t.Parallel()
	live := &report.Telemetry{
		ToolCalls: map[string]report.Latency{"a": {P50Ms: 1, P95Ms: 2, Count: 2, Errors: 1, Source: SourceLive, SamplesMs: []float64{1, 2}}},
		Models: map[string]report.ModelUsage{
			"openai:gpt-4o": {Count: 1, Source: SourceLive, SamplesMs: []float64{100}, InputTokens: 10, OutputTokens: 1, CostUSD: 0.25, Price: &report.Price{InputPerMTok: 2.5, OutputPerMTok: 10, Source: "built-in"}},
			"openai:local":  {Count: 1, Source: SourceLive, SamplesMs: []float64{5}, InputTokens: 3, CostUnknown: true},
		},
		Prices: &report.PriceTable{Date: BuiltinDate},
		Notes:  []string{"b note"},
	}
	cached := &report.Telemetry{
		ToolCalls: map[string]report.Latency{"a": {Count: 3, Source: SourceCache, CachedCount: 3, SamplesMs: []float64{3, 4, 5}}},
		Models: map[string]report.ModelUsage{
			"openai:gpt-4o": {Count: 2, Source: SourceCache, CachedCount: 2, SamplesMs: []float64{200, 300}, InputTokens: 20, OutputTokens: 2, CostUSD: 0.5},
			"openai:local":  {Count: 4, P95Ms: 9, InputTokens: 1}, // an old report: no samples
		},
		ToolList: &report.ToolListFootprint{Tools: 1, Bytes: 8, EstimatedTokens: 2},
		Prices:   &report.PriceTable{Date: BuiltinDate, Files: []string{"p.yaml"}},
		Notes:    []string{"a note", "b note"},
	}
	got := Merge(nil, live, cached)
	a := got.ToolCalls["a"]
	if a.Count != 5 || a.Errors != 1 || a.CachedCount != 3 || a.Source != SourceMixed || a.P50Ms != 3 || a.P99Ms != 5 {
		t.Errorf("tool a: %+v", a)
	}
	m := got.Models["openai:gpt-4o"]
	if m.InputTokens != 30 || m.OutputTokens != 3 || m.CostUSD != 0.75 || m.CostUnknown || m.Price == nil || m.Count != 3 || m.P50Ms != 200 {
		t.Errorf("gpt-4o: %+v", m)
	}
	l := got.Models["openai:local"]
	if !l.CostUnknown || l.Count != 5 || l.InputTokens != 4 || l.P50Ms != 5 {
		t.Errorf("local: %+v", l)
	}
	if got.ToolList == nil || got.ToolList.Tools != 1 {
		t.Errorf("tool list: %+v", got.ToolList)
	}
	notes := strings.Join(got.Notes, "\n")
	for _, w := range []string{"a note", "b note", "Model openai:local: a shard kept no latency samples", "different price tables"} {
		if !strings.Contains(notes, w) {
			t.Errorf("notes lack %q:\n%s", w, notes)
		}
	}
	if !slices.IsSorted(got.Notes) {
		t.Errorf("notes not sorted: %v", got.Notes)
	}
	if Merge(nil, nil) != nil {
		t.Error("Merge of nothing is not nil")
	}
}
