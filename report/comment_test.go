package report

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

func comment(t *testing.T, r *Report, o CommentOptions) string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteComment(&b, r, o); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// codeSpanRE matches the single-backtick code spans codeSpan writes (their
// content is plain: ids, versions, model names).
var codeSpanRE = regexp.MustCompile("`[^`\n]*`")

// allowedTag matches the only HTML a comment may contain: its marker and
// the folding of the case matrix.
var allowedTag = regexp.MustCompile(`^(<!-- mcp-eval:comment -->|<details>|</details>|<summary>|</summary>)`)

// linkRE matches Markdown link targets (an escaped "\]" opens none).
var linkRE = regexp.MustCompile(`(?:^|[^\\])\]\(([^)]*)\)`)

// checkComment asserts what every comment must satisfy, whatever the
// report: the marker first and only once, within max bytes, no HTML but its
// own, balanced folds, no mention, issue reference or workflow command
// outside code spans, and links only to the given URLs.
func checkComment(t *testing.T, name, out string, max int, urls ...string) {
	t.Helper()
	if len(out) > max || len(out) >= commentHardLimit {
		t.Errorf("%s: comment is %d bytes, limit %d", name, len(out), max)
	}
	if !strings.HasPrefix(out, CommentMarker+"\n") {
		t.Errorf("%s: comment does not start with the marker:\n%.200s", name, out)
	}
	if n := strings.Count(out, CommentMarker); n != 1 {
		t.Errorf("%s: marker appears %d times", name, n)
	}
	text := codeSpanRE.ReplaceAllString(out, "`code`")
	for i := 0; i < len(text); i++ {
		if text[i] == '<' && !allowedTag.MatchString(text[i:]) {
			t.Errorf("%s: raw HTML at %d: %.60q", name, i, text[i:])
			break
		}
	}
	if open, closed := strings.Count(text, "<details>"), strings.Count(text, "</details>"); open != closed {
		t.Errorf("%s: %d <details> and %d </details>", name, open, closed)
	}
	if m := mentionRE.FindString(text); m != "" {
		t.Errorf("%s: mention %q outside a code span", name, m)
	}
	if regexp.MustCompile(`#[0-9]`).MatchString(text) {
		t.Errorf("%s: issue reference outside a code span", name)
	}
	for i, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimLeftFunc(line, unicode.IsSpace), "::") {
			t.Errorf("%s: line %d starts a workflow command: %q", name, i+1, line)
		}
		if strings.HasPrefix(line, "```") || strings.HasPrefix(line, "~~~") {
			t.Errorf("%s: line %d opens a code block: %q", name, i+1, line)
		}
	}
	for _, m := range linkRE.FindAllStringSubmatch(text, -1) {
		ok := false
		for _, u := range urls {
			ok = ok || m[1] == u
		}
		if !ok {
			t.Errorf("%s: link to %q", name, m[1])
		}
	}
}

func TestCommentGoldenInputsAreSafe(t *testing.T) {
	t.Parallel()
	for _, name := range inputs(t) {
		r := loadReport(t, name)
		for _, o := range []CommentOptions{
			{RunURL: testRunURL, BaselineURL: testBaselineURL},
			{MaxBytes: 2048},
			{RunURL: testRunURL, MaxBytes: 3000},
		} {
			out := comment(t, r, o)
			max := o.MaxBytes
			if max == 0 {
				max = DefaultCommentMaxBytes
			}
			checkComment(t, fmt.Sprintf("%s/%d", name, o.MaxBytes), out, max, testRunURL, testBaselineURL)
		}
	}
}

// hugeReport has megabyte strings in every field a comment shows and far
// more items, scores and cases than it can hold.
func hugeReport() *Report {
	mb := megabyte("</details>@org/team ::set-output name=x::y ```` #1 [x](https://evil.example) <!-- mcp-eval:comment --> \u202e ")
	f := 0.5
	r := &Report{
		Tool:   Tool{Name: "mcp-eval", Version: mb},
		Server: Server{Target: mb},
		Scores: map[string]float64{},
		Gate: &Gate{Baseline: mb, DriftMessage: mb, Drift: true,
			Reasons: []string{mb, mb}, Notes: []string{mb}, StaleWaivers: []string{mb}, ExpiredWaivers: []string{mb}},
	}
	for i := range 300 {
		k := fmt.Sprintf("behavior.k%03d%s", i, mb[:200])
		r.Scores[k] = f
		r.Gate.Scores = append(r.Gate.Scores, GateScore{Key: k, Direction: "higher", Base: &f, Current: &f, Failed: true, Tested: true, PValue: &f})
		r.Gate.Reasons = append(r.Gate.Reasons, mb[:5000])
	}
	for i := range 5000 {
		it := GateItem{Kind: "case", ID: fmt.Sprintf("case-%04d-%s", i, mb[:300]), Model: mb[:300], Blocking: i%2 == 0}
		r.Gate.Regressions = append(r.Gate.Regressions, it)
		r.Gate.New = append(r.Gate.New, it)
		r.Gate.StillFailing = append(r.Gate.StillFailing, it)
		r.Gate.Fixed = append(r.Gate.Fixed, it)
		r.Gate.Waived = append(r.Gate.Waived, it)
		r.Gate.StaleWaivers = append(r.Gate.StaleWaivers, it.ID)
	}
	for i := range 500 {
		for m := range 10 {
			r.Cases = append(r.Cases, Case{ID: fmt.Sprintf("case-%04d %s", i, mb[:500]), Model: fmt.Sprintf("m%d:%s", m, mb[:500]),
				Kind: "hard", Runs: 5, Passed: i % 6, Status: StatusFail})
		}
	}
	r.Checks = append(r.Checks, Check{ID: mb, Hard: true, Status: StatusFail, Message: mb, Evidence: []byte(`"` + strings.Repeat("x", 1<<20) + `"`)})
	return r
}

func TestCommentSizeLimit(t *testing.T) {
	t.Parallel()
	r := hugeReport()
	whole := map[string]string{}
	for _, tt := range []struct{ max, limit int }{
		{0, DefaultCommentMaxBytes},
		{-5, DefaultCommentMaxBytes},
		{1, commentMinBytes},
		{2048, 2048},
		{10000, 10000},
		{60000, 60000},
		{65536, 65536},
		{1 << 20, commentHardLimit},
	} {
		for _, o := range []CommentOptions{
			{MaxBytes: tt.max, RunURL: testRunURL, BaselineURL: testBaselineURL},
			{MaxBytes: tt.max},
		} {
			name := fmt.Sprintf("max %d run %q", tt.max, o.RunURL)
			out := comment(t, r, o)
			checkComment(t, name, out, tt.limit, testRunURL, testBaselineURL)
			// The caps alone bound this report to about 30 kB; below that
			// the comment is cut, and says so.
			w, ok := whole[o.RunURL]
			if !ok {
				w = comment(t, r, CommentOptions{MaxBytes: commentHardLimit, RunURL: o.RunURL, BaselineURL: o.BaselineURL})
				whole[o.RunURL] = w
			}
			if cut := strings.Contains(out, "This comment was cut"); cut != (len(w) > tt.limit) {
				t.Errorf("%s: cut note %v, yet the whole comment has %d bytes", name, cut, len(w))
			}
			if o.RunURL != "" && !strings.HasSuffix(out, "[Full report and artifacts]("+testRunURL+") · [baseline run]("+testBaselineURL+") · mcp-eval "+codeSpan(cutRunes(r.Tool.Version, 40))+"\n") {
				t.Errorf("%s: comment does not end with the links:\n%s", name, out[max(0, len(out)-300):])
			}
		}
	}
	// Without a gate the failing checks and cases are listed instead, just
	// as bounded.
	r.Gate = nil
	checkComment(t, "no gate", comment(t, r, CommentOptions{}), DefaultCommentMaxBytes)
}

// TestCommentSectionsCut checks that a list cut for size says how much is
// left out, counting what its cap had dropped already.
func TestCommentSectionsCut(t *testing.T) {
	t.Parallel()
	rows := make([]string, 50)
	for i := range rows {
		rows[i] = fmt.Sprintf("- row %02d", i)
	}
	s := section{head: []string{"head"}, rows: rows, tail: []string{"tail"}, more: moreItems}
	capRows(&s, 40)
	want := "head\n- row 00\n- row 01\n- … and 48 more (see the full report)\ntail\ncut\nfooter\n"
	// The budget holds two rows and the note of how many are left out
	// (whose number may take one more digit than it ends up with).
	out := fitSections([]section{s}, "footer\n", "cut\n", len(want)+1)
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	// A section that fits whole keeps the note of its cap.
	out = fitSections([]section{s}, "", "", 10000)
	if !strings.Contains(out, "- row 39\n- … and 10 more (see the full report)\ntail\n") {
		t.Errorf("capped section:\n%s", out)
	}
	// Links too long for a small comment are dropped; the marker and the
	// verdict stay.
	long := "https://github.com/o/r/actions/runs/" + strings.Repeat("(9)", 200)
	for _, max := range []int{2048, 4000, 10000} {
		out = comment(t, hugeReport(), CommentOptions{MaxBytes: max, RunURL: long, BaselineURL: long})
		checkComment(t, fmt.Sprint("long links ", max), out, max, linkURL(long))
		if !strings.HasPrefix(out, CommentMarker+"\n## ❌ mcp-eval failed\n") {
			t.Errorf("long links: no verdict:\n%s", out)
		}
		if links := strings.Count(out, linkURL(long)); (max == 10000) != (links > 0) {
			t.Errorf("long links %d: %d links", max, links)
		}
	}
	// A section whose head does not fit is left out, and the cut is noted.
	out = fitSections([]section{{head: []string{"first"}}, s}, "footer\n", "cut\n", 20)
	if out != "first\ncut\nfooter\n" {
		t.Errorf("got %q", out)
	}
}

func TestCommentScoreDirection(t *testing.T) {
	t.Parallel()
	p := func(v float64) *float64 { return &v }
	r := &Report{
		Scores: map[string]float64{"behavior.falseActivationRate": 0.1, "behavior.selectionAccuracy": 0.8, "conformance.passRate": 1},
		Gate: &Gate{Passed: true, Baseline: "run 1", Drift: true, Scores: []GateScore{
			{Key: "behavior.falseActivationRate", Direction: "lower", Base: p(0.2), Current: p(0.1), Delta: -0.1},
			{Key: "behavior.selectionAccuracy", Direction: "higher", Base: p(0.9), Current: p(0.8), Delta: -0.1, Drop: true, Failed: true, Tested: true, Significant: true, PValue: p(0.01)},
			{Key: "behavior.taskCompletion", Direction: "higher", Base: p(0.9), Current: p(0.89), Delta: -0.01},
			{Key: "behavior.sequenceAccuracy", Direction: "higher", Current: p(0.7)},
			{Key: "conformance.passRate", Direction: "higher", Base: p(1), Current: p(1)},
			{Key: "resilience.attackSuccessRate", Direction: "lower", Base: p(0.1), Current: p(0.3), Delta: 0.2, Drop: true, Drift: true},
		}},
	}
	out := comment(t, r, CommentOptions{})
	wantContains(t, out,
		"| `behavior.falseActivationRate` (lower is better) | 0.200 | 0.100 | ▼ -0.100 | ✅ better |",
		"| `behavior.selectionAccuracy` | 0.900 | 0.800 | ▼ -0.100 | ❌ worse, dropped, significant (p=0.010) |",
		"| `behavior.taskCompletion` | 0.900 | 0.890 | ▼ -0.010 | worse, within the allowed drop |",
		"| `conformance.passRate` | 1.000 | 1.000 | 0 |  |",
		"| `behavior.sequenceAccuracy` | – | 0.700 | – | new |",
		"| `resilience.attackSuccessRate` (lower is better) | 0.100 | 0.300 | ▲ +0.200 | ⚠️ worse, dropped, model drift |",
		"> ⚠️ **Likely model drift, not your change.**",
	)
	// Headline keys come first.
	if strings.Index(out, "conformance.passRate") > strings.Index(out, "behavior.falseActivationRate") {
		t.Errorf("conformance.passRate should lead the table:\n%s", out)
	}

	// Without a gate: this run's scores, nothing to compare with.
	r.Gate = nil
	out = comment(t, r, CommentOptions{})
	if !strings.Contains(out, "| `behavior.falseActivationRate` (lower is better) | – | 0.100 | – |  |") || strings.Contains(out, "new") {
		t.Errorf("comment without a gate:\n%s", out)
	}
}

func TestCommentWithoutGate(t *testing.T) {
	t.Parallel()
	r := &Report{Checks: []Check{
		{ID: "caching/tools-list", Hard: true, Status: StatusFail},
		{ID: "http/get-not-allowed", Status: StatusFail},
		{ID: "discover/responds", Hard: true, Status: StatusPass},
	}, Cases: []Case{{ID: "weather", Model: "openai:gpt-4.1-mini", Kind: "hard", Runs: 5, Passed: 1, Status: StatusFail}}}
	out := comment(t, r, CommentOptions{RunURL: "javascript:alert(1)"})
	wantContains(t, out,
		"## ❌ mcp-eval failed",
		"**Failing (2):** `caching/tools-list`, `weather@openai:gpt-4.1-mini`",
		"| `weather` | ❌ 1/5 |",
		"---\nmcp-eval\n",
	)
	if strings.Contains(out, "javascript") || strings.Contains(out, "baseline") {
		t.Errorf("unexpected link or baseline:\n%s", out)
	}
}

func TestLinkURL(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"", ""},
		{"https://github.com/o/r/actions/runs/1", "https://github.com/o/r/actions/runs/1"},
		{"http://ghe.example/o/r/actions/runs/1?check_suite_focus=true", "http://ghe.example/o/r/actions/runs/1?check_suite_focus=true"},
		{"https://x.example/a(b)c", "https://x.example/a%28b%29c"},
		{"https://x.example/a b", "https://x.example/a%20b"},
		{"javascript:alert(1)", ""},
		{"//x.example/a", ""},
		{"/o/r/actions", ""},
		{"https://user:pw@x.example/", ""},
		{"https://x.example/\x00", ""},
		{"https://x.example/" + strings.Repeat("a", commentURLMax), ""},
	}
	for _, tt := range tests {
		if got := linkURL(tt.in); got != tt.want {
			t.Errorf("linkURL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
