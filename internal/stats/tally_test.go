package stats

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPool: rates of summed counts, pooled and per model; an empty
// population has no rate, and a model with only empty tallies still has
// its (empty) entry.
func TestPool(t *testing.T) {
	t.Parallel()
	var empty Pool
	scores, byModel := empty.Scores()
	if scores == nil || byModel == nil || len(scores)+len(byModel) != 0 {
		t.Errorf("empty pool: %v %v, want two empty maps", scores, byModel)
	}
	var p Pool
	var one Tally
	one.Add(true)
	one.Add(false)
	p.Add("a", map[string]Tally{"pass": one, "judge": {}})
	p.Add("a", map[string]Tally{"pass": {Good: 3, Total: 3}})
	p.Add("b", map[string]Tally{"pass": {Good: 0, Total: 5}, "judge": {Good: 1, Total: 4}})
	p.Add("c", map[string]Tally{"pass": {}})
	scores, byModel = p.Scores()
	if d := cmp.Diff(map[string]float64{"pass": 4.0 / 10, "judge": 1.0 / 4}, scores); d != "" {
		t.Errorf("scores (-want +got):\n%s", d)
	}
	want := map[string]map[string]float64{
		"a": {"pass": 4.0 / 5},
		"b": {"pass": 0, "judge": 1.0 / 4},
		"c": {},
	}
	if d := cmp.Diff(want, byModel); d != "" {
		t.Errorf("byModel (-want +got):\n%s", d)
	}
}
