package stats

import "math"

// wilsonZ is the two-sided 95% normal quantile.
const wilsonZ = 1.959963984540054

// Wilson returns the 95% Wilson score interval of passed successes in n
// trials, clamped to [0, 1]; [0, 1] when n is 0. Unlike the normal
// approximation it stays inside [0, 1] and is honest at 0 and n, which is
// where five runs usually land.
func Wilson(passed, n int) (low, high float64) {
	if n <= 0 {
		return 0, 1
	}
	p := float64(passed) / float64(n)
	nf := float64(n)
	z2 := wilsonZ * wilsonZ
	den := 1 + z2/nf
	center := (p + z2/(2*nf)) / den
	half := wilsonZ / den * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf))
	return max(0, center-half), min(1, center+half)
}
