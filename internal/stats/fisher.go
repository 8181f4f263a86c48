// Package stats holds the statistics the layers and the gate share: the
// Wilson score interval of a pass rate, the one-sided Fisher exact test of
// a drop between two pass rates, and the pooling of named tallies into
// scores and scores per model (Tally, Pool). Standard library only.
package stats

import "math"

// FisherLower is the one-sided p-value of Fisher's exact test that the
// second sample's pass rate is lower than the first's: with all margins of
// the 2×2 table fixed, the probability that the second sample has curPass
// or fewer passes. It is 1 (no evidence) when either sample is empty.
//
// The hypergeometric terms are computed through math.Lgamma rather than
// factorials or running products, so tables with thousands of runs neither
// overflow nor lose the small tail terms that decide significance.
func FisherLower(basePass, baseFail, curPass, curFail int) float64 {
	n1 := basePass + baseFail
	n2 := curPass + curFail
	if basePass < 0 || baseFail < 0 || curPass < 0 || curFail < 0 || n1 == 0 || n2 == 0 {
		return 1
	}
	n := n1 + n2
	k := basePass + curPass // all passes, the fixed column margin
	lo := max(0, n2-(n-k))
	logDenom := lchoose(n, n2)
	p := 0.0
	for x := lo; x <= curPass; x++ {
		p += math.Exp(lchoose(k, x) + lchoose(n-k, n2-x) - logDenom)
	}
	// Rounding can push a sum of probabilities a hair past 1.
	return min(p, 1)
}

// lchoose is log(n choose k).
func lchoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}
