package stats

import (
	"math"
)

// Looks is the schedule of a group-sequential case: the cumulative runs
// after which its evidence is weighed. The first look is the run's --runs;
// each further look has half as many runs again (5, 8, 12, 18, 27, 41,
// 60), and the last is maxRuns. Steps of one half rather than doubling
// keep the price of a case that is merely unlucky at its first look
// small (a 4-of-5 case at a true 95 % needs three more runs, not five):
// at 12 cases, alpha 0.05 and a floor of 0.8, a case at 95 % runs 5.97
// times on average against 6.82 with doubling looks, for power 0.877
// against 0.919 at 50 % (FloorDesign.Operating).
// With maxRuns ≤ runs there is one look: a fixed design.
func Looks(runs, maxRuns int) []int {
	if runs < 1 {
		runs = 1
	}
	looks := []int{runs}
	for n := runs; n < maxRuns; {
		n = min((3*n+1)/2, maxRuns)
		looks = append(looks, n)
	}
	return looks
}

// FloorDesign is the sequential one-sided test of a soft case's floor:
// H0 "the true pass rate is at least Floor" against H1 "it is below".
//
// At look k, with x passes in n judged runs, the exact binomial p-value
// P(X ≤ x | n, Floor) is compared with the share of Level spent at that
// look: Level·Looks[k]/Looks[last] minus what earlier looks spent, so
// later looks (more runs, more power) get more. By the union bound the
// chance of rejecting at any look under H0 is at most Level, whatever the
// stopping rule, whatever runs errored, and for every true rate at or
// above Floor (the lower tail only shrinks as the rate grows): the test
// needs no calibration and the gate can recompute it from the report.
//
// Futility: a look stops the case as decided (fine) when its passes would
// be unlikely were the true rate as bad as Alt: P(X ≥ x | n, Alt) ≤
// Futility. Stopping early only removes chances to reject, so it costs no
// false-alarm rate; it costs power at Alt by at most Futility per look,
// and saves the runs of a case that is plainly fine.
type FloorDesign struct {
	Floor    float64 // the case's floor (0 < Floor < 1)
	Alt      float64 // the designed alternative, a true rate below Floor
	Looks    []int   // cumulative runs at each look
	Level    float64 // the test's whole error budget
	Futility float64 // the futility threshold at Alt
}

// DefaultFutility is the futility threshold: a look stops a case when its
// passes would come up less than one time in twenty from a case at the
// designed alternative.
const DefaultFutility = 0.05

// AltDrop is how far below its floor the design aims to catch a case: 30
// points (a floor of 0.8 against a true rate of 0.5). A drop that large is
// what users notice; smaller ones are left to the suite test, which pools
// every case.
const AltDrop = 0.3

// NewFloorDesign is the design of a soft case with the given floor, looks
// and level, aimed at a rate AltDrop below the floor.
func NewFloorDesign(floor float64, looks []int, level float64) FloorDesign {
	return FloorDesign{Floor: floor, Alt: max(floor-AltDrop, floor/4), Looks: looks, Level: level, Futility: DefaultFutility}
}

// Spent is the share of Level available at look k (0-based).
func (d FloorDesign) Spent(k int) float64 {
	last := d.Looks[len(d.Looks)-1]
	prev := 0
	if k > 0 {
		prev = d.Looks[k-1]
	}
	return d.Level * float64(d.Looks[k]-prev) / float64(last)
}

// PValue is the exact one-sided p-value of passed in judged runs against
// the floor: P(X ≤ passed | judged, Floor).
func (d FloorDesign) PValue(passed, judged int) float64 {
	if judged <= 0 {
		return 1
	}
	return BinomCDF(passed, judged, d.Floor)
}

// Reject says whether look k, with passed of judged runs, shows the true
// rate below the floor.
func (d FloorDesign) Reject(k, passed, judged int) bool {
	return judged > 0 && d.PValue(passed, judged) <= d.Spent(k)
}

// Futile says whether look k, with passed of judged runs, stops the case
// as plainly not at the designed alternative.
func (d FloorDesign) Futile(passed, judged int) bool {
	return judged > 0 && BinomSF(passed, judged, d.Alt) <= d.Futility
}

// Outcome is where a sequential case stands after a look.
type Outcome int

// Outcomes of a look.
const (
	Undecided Outcome = iota // more runs would be needed
	Below                    // the floor test rejected: the case fails
	Fine                     // futility, or the last look without rejection
)

// Decide weighs look k (0-based) with passed of judged runs.
func (d FloorDesign) Decide(k, passed, judged int) Outcome {
	switch {
	case d.Reject(k, passed, judged):
		return Below
	case d.Futile(passed, judged) || k >= len(d.Looks)-1:
		return Fine
	}
	return Undecided
}

// boundary is the largest number of passes at look k that rejects (−1
// when none does), for the exact computations below, which assume every
// run is judged.
func (d FloorDesign) boundary(k int) int {
	n := d.Looks[k]
	c := -1
	for x := 0; x <= n; x++ {
		if !d.Reject(k, x, n) {
			break
		}
		c = x
	}
	return c
}

// futileFrom is the smallest number of passes at look k that stops the
// case for futility (n+1 when none does).
func (d FloorDesign) futileFrom(k int) int {
	n := d.Looks[k]
	for x := 0; x <= n; x++ {
		if d.Futile(x, n) {
			return x
		}
	}
	return n + 1
}

// Operating is what the design does when the true pass rate is p, every
// run judged: the chance it rejects (the power; at p = Floor, the exact
// false-alarm rate, at most Level) and the expected runs it spends.
// Computed exactly, by carrying the distribution of passes over the paths
// still running from look to look.
func (d FloorDesign) Operating(p float64) (reject, expectedRuns float64) {
	dist := []float64{1} // P(passes = x) over paths still running
	prevN := 0
	for k, n := range d.Looks {
		step := n - prevN
		next := make([]float64, n+1)
		for x, px := range dist {
			if px == 0 {
				continue
			}
			for y := 0; y <= step; y++ {
				next[x+y] += px * binomPMF(y, step, p)
			}
		}
		alive := 0.0
		for _, px := range dist {
			alive += px
		}
		expectedRuns += alive * float64(step)
		c, f := d.boundary(k), d.futileFrom(k)
		last := k == len(d.Looks)-1
		for x := range next {
			switch {
			case x <= c:
				reject += next[x]
				next[x] = 0
			case x >= f || last:
				next[x] = 0
			}
		}
		dist, prevN = next, n
	}
	return min(reject, 1), expectedRuns
}

// Detectable is the highest true pass rate at which the design rejects
// with at least the given power (0.8 for the usual 80 %): a case that
// falls to this rate or below is caught that often. It is 0 when no rate
// reaches that power (too few runs for the level).
func (d FloorDesign) Detectable(power float64) float64 {
	if r, _ := d.Operating(0); r < power {
		return 0
	}
	lo, hi := 0.0, d.Floor // power(lo) ≥ power > power(hi) (hi: at most Level)
	for range 40 {
		mid := (lo + hi) / 2
		if r, _ := d.Operating(mid); r >= power {
			lo = mid
		} else {
			hi = mid
		}
	}
	return math.Floor(lo*1e4) / 1e4
}

// ClopperPearsonUpper is the exact one-sided upper confidence bound on a
// pass rate at level a: the largest true rate r at which passed of judged
// is not in r's lower tail, P(X ≤ passed | judged, r) > a. The floor test
// rejects at level a exactly when this bound is at most the floor, so the
// report shows it beside the decision: "the true rate is at most U".
func ClopperPearsonUpper(passed, judged int, a float64) float64 {
	if judged <= 0 || passed >= judged {
		return 1
	}
	lo, hi := float64(passed)/float64(judged), 1.0
	for range 60 {
		mid := (lo + hi) / 2
		if BinomCDF(passed, judged, mid) > a {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}
