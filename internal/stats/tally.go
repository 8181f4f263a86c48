package stats

// Tally counts good outcomes over a population: the two whole numbers
// behind a rate, kept as counts so that rates pool exactly.
type Tally struct{ Good, Total int }

// Add counts one outcome.
func (t *Tally) Add(good bool) {
	t.Total++
	if good {
		t.Good++
	}
}

// Rate is Good/Total; ok is false for an empty population, which has no
// rate (a score left out, not a zero).
func (t Tally) Rate() (rate float64, ok bool) {
	if t.Total == 0 {
		return 0, false
	}
	return float64(t.Good) / float64(t.Total), true
}

// Pool adds up named tallies (keyed by score name) over every case and
// per model, the way a layer's scores and scoresByModel are pooled: rates
// of summed counts, not means of rates. The zero Pool is empty and ready.
type Pool struct {
	all     map[string]Tally
	byModel map[string]map[string]Tally
}

// Add pools one case's tallies under its model. A model with a case is in
// the per-model scores even when all its tallies are empty.
func (p *Pool) Add(model string, tallies map[string]Tally) {
	if p.all == nil {
		p.all, p.byModel = map[string]Tally{}, map[string]map[string]Tally{}
	}
	m := p.byModel[model]
	if m == nil {
		m = map[string]Tally{}
		p.byModel[model] = m
	}
	for k, t := range tallies {
		p.all[k] = sum(p.all[k], t)
		m[k] = sum(m[k], t)
	}
}

// Scores returns the pooled rates and the rates per model (never nil); a
// name whose pooled population is empty is left out.
func (p *Pool) Scores() (scores map[string]float64, byModel map[string]map[string]float64) {
	byModel = map[string]map[string]float64{}
	for m, ts := range p.byModel {
		byModel[m] = rates(ts)
	}
	return rates(p.all), byModel
}

func sum(a, b Tally) Tally { return Tally{Good: a.Good + b.Good, Total: a.Total + b.Total} }

func rates(ts map[string]Tally) map[string]float64 {
	out := map[string]float64{}
	for k, t := range ts {
		if r, ok := t.Rate(); ok {
			out[k] = r
		}
	}
	return out
}
