package conformance

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/mcp-eval/mcp-eval/mcp"
)

// TestNearDuplicatesMatchesPairwise: the indexed lint finds exactly the
// pairs the pairwise comparison finds, on lists built to have many near
// pairs (small vocabularies, copied descriptions with one word changed).
func TestNearDuplicatesMatchesPairwise(t *testing.T) {
	pairs := 0
	for seed := range 30 {
		rng := rand.New(rand.NewPCG(uint64(seed), 7))
		vocab := 8 + rng.IntN(40)
		var ts []mcp.Tool
		for i := range 60 {
			var desc string
			if i > 0 && rng.IntN(3) == 0 {
				w := strings.Fields(ts[rng.IntN(i)].Description)
				if len(w) > 0 {
					w[rng.IntN(len(w))] = fmt.Sprintf("w%d", rng.IntN(vocab))
				}
				desc = strings.Join(w, " ")
			} else {
				n := 3 + rng.IntN(25)
				w := make([]string, n)
				for k := range w {
					w[k] = fmt.Sprintf("w%d", rng.IntN(vocab))
				}
				desc = strings.Join(w, " ")
			}
			ts = append(ts, mcp.Tool{Name: fmt.Sprintf("t%02d", i), Description: desc})
		}
		var want []string
		for i := range ts {
			for j := i + 1; j < len(ts); j++ {
				if sim := similarity(ts[i].Description, ts[j].Description); sim >= nearDuplicateRatio {
					want = append(want, fmt.Sprintf("%s ~ %s (%.0f%% alike)", ts[i].Name, ts[j].Name, 100*sim))
				}
			}
		}
		pairs += len(want)
		got := []string(nearDuplicates(ts))
		sort.Strings(want)
		sort.Strings(got)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("seed %d: indexed lint found\n%s\npairwise found\n%s", seed, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	if pairs < 30 {
		t.Fatalf("only %d near pairs in all lists: the test compares nothing", pairs)
	}
}

// TestNearDuplicatesIsBounded: a list of identical descriptions stops at
// maxNearDuplicates pairs instead of comparing every pair.
func TestNearDuplicatesIsBounded(t *testing.T) {
	ts := make([]mcp.Tool, 3000)
	for i := range ts {
		ts[i] = mcp.Tool{Name: fmt.Sprintf("t%d", i), Description: "Search the catalogue for matching records and return them."}
	}
	p := nearDuplicates(ts)
	if len(p) != maxNearDuplicates+1 || !strings.Contains(p[len(p)-1], "stopped") {
		t.Fatalf("%d problems, last %q", len(p), p[len(p)-1])
	}
}

// similarity is the Jaccard index of the word sets of two descriptions;
// descriptions under five words are not compared (short ones are the
// tool-description lint's business).
func similarity(a, b string) float64 {
	wa, wb := words(a), words(b)
	if len(wa) < 5 || len(wb) < 5 {
		return 0
	}
	inter := 0
	for w := range wa {
		if wb[w] {
			inter++
		}
	}
	union := len(wa) + len(wb) - inter
	return float64(inter) / float64(union)
}
