package telemetry

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"time"
)

// SampleCap is how many latencies the report keeps per tool and per model.
const SampleCap = 1000

// memoryCap bounds the latencies held in memory per key. Beyond it a
// uniform reservoir (Algorithm R) of memoryCap latencies stands for all of
// them: 800 KB per key, never reached by an evaluation suite in practice.
const memoryCap = 100_000

// Percentile returns the p-th percentile (0 < p ≤ 100) of sorted, which
// must be in ascending order, by the nearest-rank method: the value of rank
// ⌈p·n/100⌉. It returns 0 for no values.
func Percentile(sorted []float64, p float64) float64 {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	// p·n before the division keeps integer ranks exact (95·20/100 = 19).
	k := int(math.Ceil(p * float64(n) / 100))
	return sorted[min(max(k, 1), n)-1]
}

// weighted is a latency standing for w calls.
type weighted struct{ v, w float64 }

// weightedPercentile is Percentile over values that stand for w calls
// each: the smallest value whose cumulative weight reaches p% of the total.
// With every weight 1 it equals Percentile. ws must be sorted by v.
func weightedPercentile(ws []weighted, p float64) float64 {
	if len(ws) == 0 {
		return 0
	}
	var total float64
	for _, x := range ws {
		total += x.w
	}
	target := p * total / 100
	var cum float64
	for _, x := range ws {
		cum += x.w
		// The relative slack absorbs the rounding of fractional weights.
		if cum >= target*(1-1e-12) {
			return x.v
		}
	}
	return ws[len(ws)-1].v
}

// series is the latencies of one key.
type series struct {
	d      []time.Duration
	n      int // observations; more than len(d) once the reservoir is full
	errors int
	rng    *rand.Rand
	seed   string
}

// observe records one call: a failure counts as an error and leaves the
// latencies alone, a success adds d.
func (s *series) observe(d time.Duration, err error) {
	if err != nil {
		s.errors++
		return
	}
	s.add(d)
}

func (s *series) add(d time.Duration) {
	s.n++
	if len(s.d) < memoryCap {
		s.d = append(s.d, d)
		return
	}
	if s.rng == nil {
		// Seeded by the key, so that a run's report does not depend on a
		// random source beyond the timings themselves.
		h := fnv.New64a()
		h.Write([]byte(s.seed))
		s.rng = rand.New(rand.NewPCG(h.Sum64(), 0x6d63702d6576616c))
	}
	if j := s.rng.IntN(s.n); j < memoryCap {
		s.d[j] = d
	}
}

// summary is what the report says about a set of latencies.
type summary struct {
	p50, p95, p99 float64
	count         int
	samples       []float64
}

// ms converts to milliseconds rounded to the microsecond: enough for any
// latency a network call has, and stable in report.json.
func ms(d time.Duration) float64 { return roundMs(float64(d) / float64(time.Millisecond)) }

func roundMs(v float64) float64 { return math.Round(v*1000) / 1000 }

func (s *series) summary() summary {
	if len(s.d) == 0 {
		return summary{count: s.n}
	}
	xs := make([]float64, len(s.d))
	for i, d := range s.d {
		xs[i] = ms(d)
	}
	slices.Sort(xs)
	return summary{
		p50: Percentile(xs, 50), p95: Percentile(xs, 95), p99: Percentile(xs, 99),
		count: s.n, samples: thin(xs),
	}
}

// thin returns sorted itself when it has at most SampleCap values, else
// SampleCap order statistics at evenly spaced ranks: the value of rank
// ⌊(i+½)·n/SampleCap⌋ for i = 0…SampleCap-1, each standing for
// n/SampleCap values. Their nearest-rank percentiles stay within one
// SampleCap-th of a rank of the full set's.
func thin(sorted []float64) []float64 {
	n := len(sorted)
	if n <= SampleCap {
		return sorted
	}
	out := make([]float64, SampleCap)
	for i := range out {
		out[i] = sorted[int((float64(i)+0.5)*float64(n)/SampleCap)]
	}
	return out
}

// thinWeighted does what thin does for weighted values: SampleCap values
// at evenly spaced cumulative weights.
func thinWeighted(ws []weighted) []float64 {
	var total float64
	for _, x := range ws {
		total += x.w
	}
	out := make([]float64, 0, SampleCap)
	var cum float64
	j := 0
	for i := range SampleCap {
		target := (float64(i) + 0.5) * total / SampleCap
		for j < len(ws)-1 && cum+ws[j].w < target {
			cum += ws[j].w
			j++
		}
		out = append(out, ws[j].v)
	}
	return out
}
