package stats

import "math"

// BinomCDF is P(X ≤ k) for X ~ Binomial(n, p): the exact lower tail,
// summed from log terms (lchoose) so that thousands of runs neither
// overflow nor lose the small terms a significance level lives in.
func BinomCDF(k, n int, p float64) float64 {
	switch {
	case n <= 0 || k >= n:
		return 1
	case k < 0:
		return 0
	case p <= 0:
		return 1
	case p >= 1:
		return 0
	}
	lp, lq := math.Log(p), math.Log1p(-p)
	s := 0.0
	for x := 0; x <= k; x++ {
		s += math.Exp(lchoose(n, x) + float64(x)*lp + float64(n-x)*lq)
	}
	return min(s, 1)
}

// BinomSF is P(X ≥ k) for X ~ Binomial(n, p).
func BinomSF(k, n int, p float64) float64 {
	if k <= 0 {
		return 1
	}
	if k > n {
		return 0
	}
	// P(X ≥ k) = P(n−X ≤ n−k), n−X ~ Binomial(n, 1−p): one summation
	// from the side where the terms are, with no 1−(…) cancellation.
	return BinomCDF(n-k, n, 1-p)
}

// binomPMF is P(X = k) for X ~ Binomial(n, p).
func binomPMF(k, n int, p float64) float64 {
	switch {
	case k < 0 || k > n:
		return 0
	case p <= 0:
		if k == 0 {
			return 1
		}
		return 0
	case p >= 1:
		if k == n {
			return 1
		}
		return 0
	}
	return math.Exp(lchoose(n, k) + float64(k)*math.Log(p) + float64(n-k)*math.Log1p(-p))
}

// NormalQuantile is the standard normal quantile Φ⁻¹(q), for 0 < q < 1.
func NormalQuantile(q float64) float64 {
	return math.Sqrt2 * math.Erfinv(2*q-1)
}

// normalCDF is Φ(z).
func normalCDF(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }
