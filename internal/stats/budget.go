package stats

// Budget is how a run's false-alarm rate alpha is spent over the tests of
// the statistical gate, each test's level (weighted Bonferroni: the
// levels add up to alpha, so the chance that a run on an unchanged server
// and model fails any test is at most alpha whatever the dependence
// between tests). The gate fails when any test rejects; for that verdict
// Holm's step-down procedure coincides with Bonferroni (both reject
// something exactly when the smallest weighted p-value is under its
// level), so the simpler one is stated.
//
// With a baseline, half of alpha goes to the suite tests (one per model,
// pooling every soft case: the only test that sees a small drop spread
// over many cases) and half to the cases (each soft case on each model
// gets an equal share, split evenly between its floor test and its
// comparison with the baseline). Without a baseline the cases' floor
// tests share all of it.
type Budget struct {
	Alpha float64
	// Floor, Base and Suite are the levels of one case's floor test, one
	// case's comparison with the baseline, and one model's suite test.
	Floor, Base, Suite float64
}

// SplitAlpha spends alpha over cases soft case × model items and models
// suite tests; baseline says whether comparisons with a baseline run.
func SplitAlpha(alpha float64, cases, models int, baseline bool) Budget {
	b := Budget{Alpha: alpha}
	cases, models = max(cases, 1), max(models, 1)
	if !baseline {
		b.Floor = alpha / float64(cases)
		return b
	}
	b.Suite = alpha / 2 / float64(models)
	perCase := alpha / 2 / float64(cases)
	b.Floor, b.Base = perCase/2, perCase/2
	return b
}
