package report

// Selection records a run that ran only some golden cases and carried the
// others' verdicts from an earlier report (--select affected,
// --rerun-failed).
type Selection struct {
	// Mode is SelectAffected or SelectRerunFailed.
	Mode string `json:"mode"`
	// From names the report the carried verdicts came from: its run URL,
	// run id, commit or file.
	From string `json:"from"`
	// Ran and Carried count (case, model) pairs; Cases lists why each case
	// that ran was chosen.
	Ran     int            `json:"ran"`
	Carried int            `json:"carried"`
	Cases   []SelectedCase `json:"cases,omitempty"`
	// Sample is --sample, Seed what the sample was drawn with (the commit).
	Sample int    `json:"sample,omitempty"`
	Seed   string `json:"seed,omitempty"`
}

// The selection modes.
const (
	SelectAll         = "all"
	SelectAffected    = "affected"
	SelectRerunFailed = "rerun-failed"
)

// SelectedCase is one case a selection ran, and why.
type SelectedCase struct {
	ID string `json:"id"`
	// Why is, in words: "uses changed tool x", "near changed tool x (y)",
	// "sample", "not in the baseline", "edited since the baseline",
	// "failed in the baseline".
	Why string `json:"why"`
}

// CarriedFrom names the run a carried case's verdict was decided in.
type CarriedFrom struct {
	RunID  string `json:"runId,omitempty"`
	RunURL string `json:"runUrl,omitempty"`
	Commit string `json:"commit,omitempty"`
	// StartedAt is when that run started.
	StartedAt string `json:"startedAt,omitempty"`
}

// carriedText names the run a verdict was carried from.
func carriedText(c *CarriedFrom) string {
	switch {
	case c.RunURL != "":
		return c.RunURL
	case c.RunID != "":
		return "run " + c.RunID
	case c.Commit != "":
		return "commit " + c.Commit
	}
	return "the baseline"
}

// mergeSelection joins the selections of two shards of one run: the
// counts add up and the cases that ran are listed once each.
func mergeSelection(a, b *Selection) *Selection {
	switch {
	case b == nil:
		return a
	case a == nil:
		c := *b
		c.Cases = append([]SelectedCase{}, b.Cases...)
		return &c
	}
	a.Ran += b.Ran
	a.Carried += b.Carried
	a.Cases = append(a.Cases, b.Cases...)
	return a
}
