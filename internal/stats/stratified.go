package stats

import "math"

// Stratum is one case's runs on both sides of a comparison: passes and
// judged runs in the baseline and now.
type Stratum struct {
	BasePassed, BaseTotal int
	Passed, Total         int
}

// StratifiedResult is the outcome of StratifiedLower.
type StratifiedResult struct {
	PValue float64
	// Exact says the p-value is the exact conditional one; otherwise it is
	// the Cochran–Mantel–Haenszel normal approximation (many strata).
	Exact bool
	// Informative counts the strata that carry evidence: both sides ran
	// and the case neither always nor never passed over both.
	Informative int
}

// maxExactWork bounds the convolution of StratifiedLower (strata × the
// support of the sum); beyond it the normal approximation is used.
const maxExactWork = 20_000_000

// StratifiedLower tests whether the pass rates fell, pooled over strata
// (cases), without pretending the cases share one rate: the exact
// conditional test of a common odds ratio of 1 against a drop, the
// stratified form of Fisher's test. Within each stratum, with both
// margins fixed, the current passes are hypergeometric; the statistic is
// their sum over the strata, and the p-value is P(sum ≤ observed), the
// convolution of the strata's distributions. Strata where every run
// passed (or failed) on both sides have one possible table and carry no
// evidence. With many informative strata the exact convolution is
// replaced by the Cochran–Mantel–Haenszel statistic with a continuity
// correction (its normal approximation is good exactly where the exact
// sum gets expensive).
func StratifiedLower(strata []Stratum) StratifiedResult {
	type hyper struct {
		lo   int
		pmf  []float64
		obs  int
		mean float64
		vari float64
	}
	var hs []hyper
	work, support := 0, 0
	for _, s := range strata {
		m, n := s.BaseTotal, s.Total
		if m <= 0 || n <= 0 || s.BasePassed < 0 || s.Passed < 0 || s.BasePassed > m || s.Passed > n {
			continue
		}
		N, K := m+n, s.BasePassed+s.Passed
		if K == 0 || K == N {
			continue
		}
		lo, hi := max(0, n-(N-K)), min(n, K)
		h := hyper{lo: lo, obs: s.Passed}
		Nf, Kf, nf := float64(N), float64(K), float64(n)
		h.mean = nf * Kf / Nf
		h.vari = nf * Kf * (Nf - Kf) * (Nf - nf) / (Nf * Nf * (Nf - 1))
		den := lchoose(N, n)
		for x := lo; x <= hi; x++ {
			h.pmf = append(h.pmf, math.Exp(lchoose(K, x)+lchoose(N-K, n-x)-den))
		}
		hs = append(hs, h)
		support += hi - lo
		work += support
	}
	res := StratifiedResult{PValue: 1, Exact: true, Informative: len(hs)}
	if len(hs) == 0 {
		return res
	}
	obs, lo := 0, 0
	for _, h := range hs {
		obs += h.obs
		lo += h.lo
	}
	if work > maxExactWork {
		mean, vari := 0.0, 0.0
		for _, h := range hs {
			mean += h.mean
			vari += h.vari
		}
		res.Exact = false
		if vari <= 0 {
			return res
		}
		res.PValue = normalCDF((float64(obs) + 0.5 - mean) / math.Sqrt(vari))
		return res
	}
	dist := []float64{1} // of the sum, offset by the lowest possible sum so far
	for _, h := range hs {
		next := make([]float64, len(dist)+len(h.pmf)-1)
		for i, a := range dist {
			if a == 0 {
				continue
			}
			for j, b := range h.pmf {
				next[i+j] += a * b
			}
		}
		dist = next
	}
	p := 0.0
	for i := 0; i <= obs-lo && i < len(dist); i++ {
		p += dist[i]
	}
	res.PValue = min(p, 1)
	return res
}

// DetectableDrop is the smallest uniform drop of a pass rate from base
// that a one-sided two-sample comparison of baseTotal against total runs
// catches with the given power at level a (normal approximation with the
// variance under each hypothesis): what a green suite test could have
// seen. It is 1 when no drop reaches that power.
func DetectableDrop(base float64, baseTotal, total int, a, power float64) float64 {
	if baseTotal <= 0 || total <= 0 {
		return 1
	}
	za, zb := NormalQuantile(1-a), NormalQuantile(power)
	nb, nc := float64(baseTotal), float64(total)
	// Near a rate of 1 the variance vanishes; judge the baseline rate as
	// no better than one failure more than observed would allow.
	p0 := min(base, 1-0.5/nb)
	reaches := func(d float64) bool {
		p1 := p0 - d
		if p1 <= 0 {
			return true
		}
		pbar := (p0*nb + p1*nc) / (nb + nc)
		s0 := math.Sqrt(pbar * (1 - pbar) * (1/nb + 1/nc))
		s1 := math.Sqrt(p0*(1-p0)/nb + p1*(1-p1)/nc)
		return d >= za*s0+zb*s1
	}
	if !reaches(p0) {
		return 1
	}
	lo, hi := 0.0, p0
	for range 50 {
		mid := (lo + hi) / 2
		if reaches(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return math.Ceil(hi*1e4) / 1e4
}
