package stats

import (
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"
)

// bruteBinomCDF sums the lower tail with exact rationals: p given as a
// fraction num/den.
func bruteBinomCDF(k, n int, num, den int64) float64 {
	sum := new(big.Rat)
	p, q := big.NewRat(num, den), big.NewRat(den-num, den)
	for x := 0; x <= k && x <= n; x++ {
		t := new(big.Rat).SetInt(new(big.Int).Binomial(int64(n), int64(x)))
		for range x {
			t.Mul(t, p)
		}
		for range n - x {
			t.Mul(t, q)
		}
		sum.Add(sum, t)
	}
	f, _ := sum.Float64()
	return f
}

func TestBinomCDFByHand(t *testing.T) {
	t.Parallel()
	tests := []struct {
		k, n int
		p    float64
		want float64
	}{
		// Five runs at a floor of 0.8: 3 of 5 or fewer, 1 − 0.8⁵ − 5·0.8⁴·0.2.
		{3, 5, 0.8, 1 - 0.32768 - 0.4096},
		// 1 of 5 or fewer: 0.2⁵ + 5·0.8·0.2⁴.
		{1, 5, 0.8, 0.00032 + 0.0064},
		{0, 5, 0.8, 0.00032},
		{5, 5, 0.8, 1},
		{-1, 5, 0.8, 0},
		// 1 of 5 at one half: 6/32.
		{1, 5, 0.5, 6.0 / 32},
	}
	for _, tt := range tests {
		if got := BinomCDF(tt.k, tt.n, tt.p); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("BinomCDF(%d, %d, %v) = %.15g, want %.15g", tt.k, tt.n, tt.p, got, tt.want)
		}
	}
	for _, n := range []int{1, 7, 40, 200} {
		for _, k := range []int{0, n / 3, n / 2, n - 1} {
			for _, f := range [][2]int64{{1, 2}, {4, 5}, {19, 20}, {1, 10}} {
				got, want := BinomCDF(k, n, float64(f[0])/float64(f[1])), bruteBinomCDF(k, n, f[0], f[1])
				if math.Abs(got-want) > 1e-12*max(1, want) && math.Abs(got-want)/want > 1e-9 {
					t.Errorf("BinomCDF(%d, %d, %d/%d) = %.15g, exact %.15g", k, n, f[0], f[1], got, want)
				}
				sf := BinomSF(k+1, n, float64(f[0])/float64(f[1]))
				if math.Abs(sf+got-1) > 1e-9 {
					t.Errorf("BinomSF(%d) + BinomCDF(%d) = %v, want 1", k+1, k, sf+got)
				}
			}
		}
	}
}

func TestLooks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		runs, max int
		want      []int
	}{
		{5, 60, []int{5, 8, 12, 18, 27, 41, 60}},
		{5, 40, []int{5, 8, 12, 18, 27, 40}},
		{5, 5, []int{5}},
		{5, 3, []int{5}},
		{1, 3, []int{1, 2, 3}},
		{0, 1, []int{1}},
	}
	for _, tt := range tests {
		if got := Looks(tt.runs, tt.max); !slices.Equal(got, tt.want) {
			t.Errorf("Looks(%d, %d) = %v, want %v", tt.runs, tt.max, got, tt.want)
		}
	}
}

// TestFloorDesignByHand: one look of five runs at level 0.05 against a
// floor of 0.8 rejects at 1 pass or fewer (P = 0.00672; 2 passes give
// 0.05792), so at a true rate of 0.5 its power is P(X ≤ 1 | 5, 0.5) = 6/32,
// and at the floor its false-alarm rate is 0.00672.
func TestFloorDesignByHand(t *testing.T) {
	t.Parallel()
	d := FloorDesign{Floor: 0.8, Alt: 0.5, Looks: []int{5}, Level: 0.05, Futility: DefaultFutility}
	if c := d.boundary(0); c != 1 {
		t.Fatalf("boundary = %d, want 1", c)
	}
	if r, n := d.Operating(0.5); math.Abs(r-6.0/32) > 1e-12 || n != 5 {
		t.Errorf("Operating(0.5) = %v, %v; want 6/32, 5 runs", r, n)
	}
	if r, _ := d.Operating(0.8); math.Abs(r-0.00672) > 1e-12 {
		t.Errorf("Operating(0.8) = %v, want 0.00672", r)
	}
	// Two looks (5 then 10) spend 0.025 each: the first rejects at 0 of
	// 5 (0.00032; 1 of 5 is 0.00672 ≤ 0.025 too), futility at 5 of 5
	// (P(X ≥ 5 | 5, 0.5) = 1/32 ≤ 0.05).
	d2 := FloorDesign{Floor: 0.8, Alt: 0.5, Looks: []int{5, 10}, Level: 0.05, Futility: DefaultFutility}
	if got := d2.Spent(0); got != 0.025 {
		t.Errorf("Spent(0) = %v, want 0.025", got)
	}
	for _, tt := range []struct {
		k, passed, judged int
		want              Outcome
	}{
		{0, 1, 5, Below}, {0, 2, 5, Undecided}, {0, 4, 5, Undecided}, {0, 5, 5, Fine},
		{1, 4, 10, Below}, {1, 5, 10, Fine}, // last look: decided either way
		{0, 0, 0, Undecided},
	} {
		if got := d2.Decide(tt.k, tt.passed, tt.judged); got != tt.want {
			t.Errorf("Decide(%d, %d, %d) = %v, want %v", tt.k, tt.passed, tt.judged, got, tt.want)
		}
	}
	// 4 of 10 at the floor: P(X ≤ 4 | 10, 0.8) = 0.006369 ≤ 0.025.
	if p := d2.PValue(4, 10); math.Abs(p-0.00636938) > 1e-7 {
		t.Errorf("PValue(4, 10) = %v", p)
	}
}

// TestFloorDesignSimulated holds Operating's exact figures to a simulation
// of the sequential procedure with a fixed seed: the rejection rate at the
// floor (the false-alarm rate), the power at the designed alternative and
// the runs spent, each within four standard errors.
func TestFloorDesignSimulated(t *testing.T) {
	t.Parallel()
	d := NewFloorDesign(0.8, Looks(5, 60), 0.05/12)
	rng := rand.New(rand.NewPCG(1, 2))
	const trials = 20000
	for _, p := range []float64{0.5, 0.8, 0.95} {
		wantR, wantN := d.Operating(p)
		if p == 0.8 && wantR > d.Level {
			t.Errorf("false-alarm rate at the floor %v exceeds the level %v", wantR, d.Level)
		}
		rejected, runs := 0, 0
		for range trials {
			passed, n := 0, 0
			for k, look := range d.Looks {
				for ; n < look; n++ {
					if rng.Float64() < p {
						passed++
					}
				}
				o := d.Decide(k, passed, n)
				if o == Below {
					rejected++
				}
				if o != Undecided {
					break
				}
			}
			runs += n
		}
		gotR := float64(rejected) / trials
		se := math.Sqrt(max(wantR*(1-wantR), 1/trials) / trials)
		if math.Abs(gotR-wantR) > 4*se+1e-9 {
			t.Errorf("p=%v: simulated rejection %v, exact %v (se %v)", p, gotR, wantR, se)
		}
		if gotN := float64(runs) / trials; math.Abs(gotN-wantN) > 0.05*wantN {
			t.Errorf("p=%v: simulated runs %v, exact %v", p, gotN, wantN)
		}
	}
}

// TestFloorDesignMonotone: the false-alarm rate is largest at the floor
// (a composite null p ≥ floor is covered by its boundary) and never above
// the level, for several floors, schedules and levels.
func TestFloorDesignMonotone(t *testing.T) {
	t.Parallel()
	for _, floor := range []float64{0.5, 0.8, 0.9, 0.95} {
		for _, looks := range [][]int{{5}, Looks(5, 20), Looks(3, 60), Looks(10, 41)} {
			for _, level := range []float64{0.05, 0.004, 0.0005} {
				d := NewFloorDesign(floor, looks, level)
				prev := 1.0
				for p := floor; p <= 1.0001; p += 0.02 {
					r, _ := d.Operating(min(p, 1))
					if r > level+1e-12 || r > prev+1e-12 {
						t.Fatalf("floor %v looks %v level %v: rejection %v at p=%v (previous %v)", floor, looks, level, r, p, prev)
					}
					prev = r
				}
			}
		}
	}
}

func TestDetectable(t *testing.T) {
	t.Parallel()
	d := NewFloorDesign(0.8, Looks(5, 60), 0.05/24)
	det := d.Detectable(0.8)
	if r, _ := d.Operating(det); r < 0.8 {
		t.Errorf("power at the detectable rate %v is %v, want ≥ 0.8", det, r)
	}
	if r, _ := d.Operating(det + 0.01); r >= 0.8 {
		t.Errorf("power just above the detectable rate %v is %v, want < 0.8", det, r)
	}
	if got := (FloorDesign{Floor: 0.8, Alt: 0.5, Looks: []int{1}, Level: 0.001}).Detectable(0.8); got != 0 {
		t.Errorf("one run at level 0.001 detects %v, want 0 (nothing)", got)
	}
}

func TestClopperPearsonUpper(t *testing.T) {
	t.Parallel()
	// 0 of 5 at 0.05: 1 − 0.05^(1/5).
	if got, want := ClopperPearsonUpper(0, 5, 0.05), 1-math.Pow(0.05, 0.2); math.Abs(got-want) > 1e-9 {
		t.Errorf("upper(0/5) = %v, want %v", got, want)
	}
	for _, c := range [][2]int{{3, 5}, {9, 10}, {30, 60}} {
		u := ClopperPearsonUpper(c[0], c[1], 0.01)
		if got := BinomCDF(c[0], c[1], u); math.Abs(got-0.01) > 1e-6 {
			t.Errorf("upper(%d/%d) = %v: its tail is %v, want 0.01", c[0], c[1], u, got)
		}
		// The duality the report states: the floor test rejects exactly
		// when the bound is at most the floor.
		for _, f := range []float64{u - 0.001, u + 0.001} {
			if rej := BinomCDF(c[0], c[1], f) <= 0.01; rej != (u <= f) {
				t.Errorf("%d/%d floor %v: rejects %v, bound %v", c[0], c[1], f, rej, u)
			}
		}
	}
	if got := ClopperPearsonUpper(5, 5, 0.05); got != 1 {
		t.Errorf("upper(5/5) = %v, want 1", got)
	}
}

func TestSplitAlpha(t *testing.T) {
	t.Parallel()
	for _, base := range []bool{false, true} {
		for _, k := range []int{1, 12, 1000} {
			for _, m := range []int{1, 6} {
				b := SplitAlpha(0.05, k, m, base)
				total := float64(k)*(b.Floor+b.Base) + float64(m)*b.Suite
				if math.Abs(total-0.05) > 1e-12 {
					t.Errorf("k=%d m=%d base=%v: levels add up to %v, want 0.05", k, m, base, total)
				}
			}
		}
	}
}
