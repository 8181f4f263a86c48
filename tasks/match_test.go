package tasks

import (
	"encoding/json"
	"errors"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcp-eval/mcp-eval/tasks/taskstest"
)

func TestMatch(t *testing.T) {
	t.Parallel()
	judge := &taskstest.Similar{Same: map[[2]string]bool{{"Quarterly report delayed", "Q3 report will be late"}: true}}
	tests := []struct {
		name     string
		mode     MatchMode
		tol      float64
		expected string // JSON; "" for none
		actual   string // JSON; "" for a missing argument
		sim      SimilarityJudge
		want     MatchResult
	}{
		// exact
		{"exact string", MatchExact, 0, `"celsius"`, `"celsius"`, nil, MatchResult{OK: true}},
		{"exact string case", MatchExact, 0, `"celsius"`, `"Celsius"`, nil,
			MatchResult{Reason: `a: got "Celsius", want "celsius" (exact)`}},
		{"exact 10 == 10.0", MatchExact, 0, `10`, `10.0`, nil, MatchResult{OK: true}},
		{"exact 10 == 1e1", MatchExact, 0, `10`, `1e1`, nil, MatchResult{OK: true}},
		{"exact 0.1 == 0.10", MatchExact, 0, `0.1`, `0.10`, nil, MatchResult{OK: true}},
		{"exact number vs string", MatchExact, 0, `10`, `"10"`, nil, MatchResult{Reason: `a: got "10", want 10 (exact)`}},
		{"exact object any key order", MatchExact, 0, `{"x":1,"y":[1,2]}`, `{"y":[1.0,2],"x":1}`, nil, MatchResult{OK: true}},
		{"exact object extra key", MatchExact, 0, `{"x":1}`, `{"x":1,"y":2}`, nil, MatchResult{Reason: `a: got {"x":1,"y":2}, want {"x":1} (exact)`}},
		{"exact array order", MatchExact, 0, `[1,2]`, `[2,1]`, nil, MatchResult{Reason: `a: got [2,1], want [1,2] (exact)`}},
		{"exact bool", MatchExact, 0, `true`, `true`, nil, MatchResult{OK: true}},
		{"exact null", MatchExact, 0, `null`, `null`, nil, MatchResult{OK: true}},
		{"exact huge exponent", MatchExact, 0, `1`, `1e999999999`, nil, MatchResult{Reason: `a: got 1e999999999, want 1 (exact)`}},
		{"missing", MatchExact, 0, `"x"`, ``, nil, MatchResult{Reason: `a: missing`}},
		// normalized
		{"normalized case and space", MatchNormalized, 0, `"New York"`, `"  new   york "`, nil, MatchResult{OK: true}},
		{"normalized punctuation", MatchNormalized, 0, `"New York"`, `"new-york!"`, nil, MatchResult{OK: true}},
		{"normalized no spaces", MatchNormalized, 0, `"Lunch on Friday"`, `"LunchOnFriday"`, nil, MatchResult{OK: true}},
		{"normalized accents matter", MatchNormalized, 0, `"São Paulo"`, `"Sao Paulo"`, nil,
			MatchResult{Reason: `a: got "Sao Paulo", want "São Paulo" (normalized)`}},
		{"normalized unicode case", MatchNormalized, 0, `"SÃO PAULO"`, `"são paulo"`, nil, MatchResult{OK: true}},
		{"normalized different", MatchNormalized, 0, `"Paris"`, `"London"`, nil, MatchResult{Reason: `a: got "London", want "Paris" (normalized)`}},
		{"normalized not text", MatchNormalized, 0, `"3"`, `3`, nil, MatchResult{Reason: `a: got 3, want text`}},
		// regex
		{"regex whole value", MatchRegex, 0, `"(?i)new york|nyc"`, `"NYC"`, nil, MatchResult{OK: true}},
		{"regex anchored", MatchRegex, 0, `"paris"`, `"paris, france"`, nil,
			MatchResult{Reason: `a: got "paris, france", want text matching "paris" (whole value)`}},
		{"regex alternation anchored as a whole", MatchRegex, 0, `"a|b"`, `"ab"`, nil,
			MatchResult{Reason: `a: got "ab", want text matching "a|b" (whole value)`}},
		{"regex explicit part", MatchRegex, 0, `".*paris.*"`, `"to paris, now"`, nil, MatchResult{OK: true}},
		{"regex on a number", MatchRegex, 0, `"\\d+"`, `12`, nil, MatchResult{Reason: `a: got 12, want text matching "\\d+"`}},
		// contains
		{"contains", MatchContains, 0, `"acme"`, `"Acme Corp"`, nil, MatchResult{OK: true}},
		{"contains normalized", MatchContains, 0, `"table for noon"`, `"I booked a Table-for-noon."`, nil, MatchResult{OK: true}},
		{"contains not", MatchContains, 0, `"noon"`, `"at 12"`, nil, MatchResult{Reason: `a: got "at 12", want it to contain "noon"`}},
		{"contains in array", MatchContains, 0, `"ana"`, `["bob@x.com","Ana@x.com"]`, nil, MatchResult{OK: true}},
		{"contains not text", MatchContains, 0, `"1"`, `10`, nil, MatchResult{Reason: `a: got 10, want it to contain "1"`}},
		// number
		{"number equal", MatchNumber, 0, `3`, `3.0`, nil, MatchResult{OK: true}},
		{"number within", MatchNumber, 0.5, `20`, `20.5`, nil, MatchResult{OK: true}},
		{"number rounding", MatchNumber, 0.1, `20`, `20.1`, nil, MatchResult{OK: true}},
		{"number outside", MatchNumber, 0.5, `20`, `20.6`, nil, MatchResult{Reason: `a: got 20.6, want 20 ± 0.5`}},
		{"number below", MatchNumber, 0.5, `20`, `19.4`, nil, MatchResult{Reason: `a: got 19.4, want 20 ± 0.5`}},
		{"number as text", MatchNumber, 1, `20`, `"20"`, nil, MatchResult{Reason: `a: got "20", want a number`}},
		// any
		{"any present", MatchAny, 0, ``, `"whatever"`, nil, MatchResult{OK: true}},
		{"any null", MatchAny, 0, ``, `null`, nil, MatchResult{OK: true}},
		{"any missing", MatchAny, 0, ``, ``, nil, MatchResult{Reason: `a: missing`}},
		// semantic
		{"semantic normalized equal skips the judge", MatchSemantic, 0, `"Paris"`, `"paris"`, judge, MatchResult{OK: true}},
		{"semantic judged same", MatchSemantic, 0, `"Quarterly report delayed"`, `"Q3 report will be late"`, judge, MatchResult{OK: true}},
		{"semantic judged different", MatchSemantic, 0, `"Quarterly report delayed"`, `"Lunch"`, judge,
			MatchResult{Reason: `a: got "Lunch", want "Quarterly report delayed" (semantic, judged different)`}},
		{"semantic fallback same words", MatchSemantic, 0, `"report delayed quarterly"`, `"Quarterly report: delayed"`, nil,
			MatchResult{OK: true, Fallback: true}},
		{"semantic fallback one more word", MatchSemantic, 0, `"the quarterly report is late"`, `"the quarterly report is late today"`, nil,
			MatchResult{OK: true, Fallback: true}},
		{"semantic fallback one word changed", MatchSemantic, 0, `"the quarterly report is late"`, `"the annual report is late"`, nil,
			MatchResult{Fallback: true, Reason: `a: got "the annual report is late", want "the quarterly report is late" (semantic without a judge: token similarity 0.67 < 0.80)`}},
		{"semantic fallback different", MatchSemantic, 0, `"Quarterly report delayed"`, `"Q3 report will be late"`, nil,
			MatchResult{Fallback: true, Reason: `a: got "Q3 report will be late", want "Quarterly report delayed" (semantic without a judge: token similarity 0.14 < 0.80)`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &ArgCheck{Name: "a", Mode: tt.mode, Tolerance: tt.tol}
			if tt.expected != "" {
				a.Expected = json.RawMessage(tt.expected)
			}
			if err := a.compile(); err != nil {
				t.Fatalf("compile: %v", err)
			}
			var actual json.RawMessage
			if tt.actual != "" {
				actual = json.RawMessage(tt.actual)
			}
			got, err := a.Match(t.Context(), actual, tt.sim)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Match (-want +got):\n%s", diff)
			}
		})
	}
}

// TestMatchFallbackBoundary pins the threshold: 4 shared words of 5 is
// 0.8 and passes.
func TestMatchFallbackBoundary(t *testing.T) {
	t.Parallel()
	if got := TokenSimilarity("a b c d", "a b c d e"); got != 0.8 {
		t.Fatalf("TokenSimilarity = %v, want 0.8", got)
	}
	a := &ArgCheck{Name: "a", Mode: MatchSemantic, Expected: json.RawMessage(`"a b c d"`)}
	got, err := a.Match(t.Context(), json.RawMessage(`"A, B, C, D, E"`), nil)
	if err != nil || !got.OK || !got.Fallback {
		t.Errorf("Match = %+v, %v; want OK with Fallback", got, err)
	}
}

func TestMatchJudgeError(t *testing.T) {
	t.Parallel()
	boom := errors.New("judge down")
	a := &ArgCheck{Name: "subject", Mode: MatchSemantic, Expected: json.RawMessage(`"x"`)}
	_, err := a.Match(t.Context(), json.RawMessage(`"y"`), &taskstest.Similar{Err: boom})
	if !errors.Is(err, boom) || err.Error() != "semantic match of subject: judge down" {
		t.Errorf("err = %v", err)
	}
}

func TestNormalize(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"New York":        "newyork",
		"  new-YORK!! ":   "newyork",
		"ana@example.com": "anaexamplecom",
		"São Paulo":       "sãopaulo",
		"ＡＢＣ":             "ａｂｃ", // no NFKC: full-width stays full-width
		"":                "",
		"2026-06-01":      "20260601",
	} {
		if got := Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTokenSimilarity(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b string
		want float64
	}{
		{"", "", 1},
		{"a", "", 0},
		{"Quarterly report delayed", "delayed: quarterly REPORT", 1},
		{"a b", "a c", 1.0 / 3},
		{"the the the", "the", 1},
	}
	for _, tt := range tests {
		if got := TokenSimilarity(tt.a, tt.b); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("TokenSimilarity(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}
