package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strings"
	"unicode"

	"github.com/mcp-eval/mcp-eval/internal/canon"
	clippkg "github.com/mcp-eval/mcp-eval/internal/clip"
)

// MatchMode is how an expected argument is compared with the model's.
type MatchMode string

// The match modes of arg_match.
//
//   - exact: JSON-equal; numbers compare by value (10 == 10.0 == 1e1),
//     objects by keys and values, arrays element by element.
//   - normalized: text equal after Normalize (case, spaces and punctuation
//     ignored). No Unicode normalization (NFKC) or accent folding is done:
//     "São Paulo" and "Sao Paulo" differ.
//   - semantic: text judged to mean the same by a SimilarityJudge (a model);
//     text equal after Normalize passes without asking. With no judge it
//     falls back to TokenSimilarity ≥ SemanticThreshold, and the result
//     says so.
//   - regex: the expected value is an RE2 pattern that must match the WHOLE
//     text (it is anchored: write .* around it to match a part).
//   - contains: the normalized text contains the normalized expected text;
//     for an array, one of its text elements does.
//   - number: a JSON number within the tolerance of the expected one
//     (|actual − expected| ≤ tolerance; tolerance 0 by default).
//   - any: the argument is present, whatever its value.
const (
	MatchExact      MatchMode = "exact"
	MatchNormalized MatchMode = "normalized"
	MatchSemantic   MatchMode = "semantic"
	MatchRegex      MatchMode = "regex"
	MatchContains   MatchMode = "contains"
	MatchNumber     MatchMode = "number"
	MatchAny        MatchMode = "any"
)

var matchModes = []MatchMode{MatchExact, MatchNormalized, MatchSemantic, MatchRegex, MatchContains, MatchNumber, MatchAny}

// SemanticThreshold is the token Jaccard index at or above which the
// deterministic fallback of semantic matching calls two texts the same.
const SemanticThreshold = 0.8

// SimilarityJudge decides whether two texts mean the same, for arg_match
// semantic. *judge.Judge implements it.
type SimilarityJudge interface {
	Similar(ctx context.Context, expected, actual string) (bool, error)
}

// ArgCheck is one checked argument: expect_args.NAME with its arg_match.
type ArgCheck struct {
	Name string
	// Expected is the expected value as JSON; nil for an any check written
	// only under arg_match.
	Expected json.RawMessage
	// Mode is as written in arg_match, or the default Suite.Validate took
	// from the tool's schema; "" means the default for the value's type
	// (normalized for text, exact otherwise).
	Mode MatchMode
	// Tolerance is the allowed absolute difference for MatchNumber.
	Tolerance float64
	// Line is the line of the argument in the tasks file.
	Line int

	explicit bool           // the mode was written in arg_match
	re       *regexp.Regexp // the anchored pattern of a regex check
}

// MatchResult is the outcome of comparing one argument.
type MatchResult struct {
	OK bool
	// Fallback is set when a semantic comparison used TokenSimilarity
	// because no judge was available.
	Fallback bool
	// Reason says why the argument did not match ("" when it did).
	Reason string
}

// EffectiveMode is the mode the check applies.
func (a *ArgCheck) EffectiveMode() MatchMode {
	if a.Mode != "" {
		return a.Mode
	}
	if a.Expected == nil {
		return MatchAny
	}
	if _, ok := a.expectedString(); ok {
		return MatchNormalized
	}
	return MatchExact
}

func (a *ArgCheck) expectedString() (string, bool) {
	var s string
	if json.Unmarshal(a.Expected, &s) != nil {
		return "", false
	}
	return s, true
}

// compile checks that the expected value suits the mode, and compiles a
// regex.
func (a *ArgCheck) compile() error {
	a.re = nil
	switch a.EffectiveMode() {
	case MatchRegex:
		re, err := compileAnchored(a.Expected)
		if err != nil {
			return err
		}
		a.re = re
	case MatchNumber:
		if _, ok := jsonNumber(a.Expected); !ok {
			return fmt.Errorf("number needs a number under expect_args, got %s", clip(string(a.Expected)))
		}
	case MatchNormalized, MatchSemantic, MatchContains:
		if _, ok := a.expectedString(); !ok {
			return fmt.Errorf("%s compares text; the expected value %s is not text", a.EffectiveMode(), clip(string(a.Expected)))
		}
	}
	return nil
}

func compileAnchored(expected json.RawMessage) (*regexp.Regexp, error) {
	var pat string
	if json.Unmarshal(expected, &pat) != nil {
		return nil, fmt.Errorf("regex needs a pattern (text) under expect_args, got %s", clip(string(expected)))
	}
	// Compile the pattern as written first, so that an error quotes it
	// rather than the anchored wrapper.
	if _, err := regexp.Compile(pat); err != nil {
		return nil, fmt.Errorf("bad regex %q: %s", pat, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	return regexp.Compile(`^(?:` + pat + `)$`)
}

// Match compares the model's value of the argument (nil when the call did
// not include it) with the expected one. The error is only a failed judge
// call: the run could not be scored.
func (a *ArgCheck) Match(ctx context.Context, actual json.RawMessage, sim SimilarityJudge) (MatchResult, error) {
	mode := a.EffectiveMode()
	if actual == nil {
		return a.fail("missing"), nil
	}
	switch mode {
	case MatchAny:
		return MatchResult{OK: true}, nil
	case MatchExact:
		if jsonEqual(a.Expected, actual) {
			return MatchResult{OK: true}, nil
		}
		return a.mismatch(actual, mode), nil
	case MatchNumber:
		return a.matchNumber(actual), nil
	case MatchRegex:
		return a.matchRegex(actual), nil
	case MatchNormalized, MatchContains, MatchSemantic:
		return a.matchText(ctx, actual, mode, sim)
	default:
		return MatchResult{}, errors.New("unknown match mode " + string(mode))
	}
}

// mismatch is the failure of a mode without a message of its own.
func (a *ArgCheck) mismatch(actual json.RawMessage, mode MatchMode) MatchResult {
	return a.fail("got %s, want %s (%s)", clip(string(actual)), clip(string(a.Expected)), mode)
}

func (a *ArgCheck) matchNumber(actual json.RawMessage) MatchResult {
	want, _ := jsonNumber(a.Expected)
	got, ok := jsonNumber(actual)
	if !ok {
		return a.fail("got %s, want a number", clip(string(actual)))
	}
	// The allowance absorbs binary rounding: 20.1 − 20 is
	// 0.10000000000000142, and a tolerance of 0.1 should admit it.
	if math.Abs(got-want) <= a.Tolerance+1e-9*math.Max(1, math.Abs(want)) {
		return MatchResult{OK: true}
	}
	return a.fail("got %s, want %s ± %v", clip(string(actual)), clip(string(a.Expected)), a.Tolerance)
}

func (a *ArgCheck) matchRegex(actual json.RawMessage) MatchResult {
	re := a.re
	if re == nil {
		var err error
		if re, err = compileAnchored(a.Expected); err != nil {
			return a.fail("%v", err)
		}
	}
	s, ok := textOf(actual)
	if !ok {
		return a.fail("got %s, want text matching %s", clip(string(actual)), clip(string(a.Expected)))
	}
	if re.MatchString(s) {
		return MatchResult{OK: true}
	}
	return a.fail("got %s, want text matching %s (whole value)", clip(string(actual)), clip(string(a.Expected)))
}

// matchText compares text: normalized, contains, or semantic (normalized
// first, then the judge, else token similarity).
func (a *ArgCheck) matchText(ctx context.Context, actual json.RawMessage, mode MatchMode, sim SimilarityJudge) (MatchResult, error) {
	want, ok := a.expectedString()
	if !ok {
		// Only a hand-built check gets here; the loader rejects it.
		if jsonEqual(a.Expected, actual) {
			return MatchResult{OK: true}, nil
		}
		return a.mismatch(actual, mode), nil
	}
	if mode == MatchContains {
		if containsText(actual, Normalize(want)) {
			return MatchResult{OK: true}, nil
		}
		return a.fail("got %s, want it to contain %s", clip(string(actual)), clip(string(a.Expected))), nil
	}
	got, ok := textOf(actual)
	if !ok {
		return a.fail("got %s, want text", clip(string(actual))), nil
	}
	switch {
	case Normalize(got) == Normalize(want):
		return MatchResult{OK: true}, nil
	case mode == MatchNormalized:
		return a.mismatch(actual, mode), nil
	}
	return a.matchSemantic(ctx, actual, want, got, sim)
}

// matchSemantic asks the judge whether want and got mean the same; without
// one it falls back to TokenSimilarity and says so (Fallback).
func (a *ArgCheck) matchSemantic(ctx context.Context, actual json.RawMessage, want, got string, sim SimilarityJudge) (MatchResult, error) {
	if sim != nil {
		same, err := sim.Similar(ctx, want, got)
		if err != nil {
			return MatchResult{}, fmt.Errorf("semantic match of %s: %w", a.Name, err)
		}
		if same {
			return MatchResult{OK: true}, nil
		}
		return a.fail("got %s, want %s (semantic, judged different)", clip(string(actual)), clip(string(a.Expected))), nil
	}
	r := MatchResult{Fallback: true}
	if sc := TokenSimilarity(want, got); sc >= SemanticThreshold {
		r.OK = true
	} else {
		r.Reason = fmt.Sprintf("%s: got %s, want %s (semantic without a judge: token similarity %.2f < %.2f)",
			a.Name, clip(string(actual)), clip(string(a.Expected)), sc, SemanticThreshold)
	}
	return r, nil
}

func (a *ArgCheck) fail(format string, args ...any) MatchResult {
	return MatchResult{Reason: a.Name + ": " + fmt.Sprintf(format, args...)}
}

// Normalize lowercases s and keeps only its letters and digits, so that
// "New York", "new-york" and "NewYork" are equal. Case folding is Unicode
// lowercasing; no NFKC normalization or accent folding is done.
func Normalize(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// TokenSimilarity is the Jaccard index of the sets of words of a and b
// (lowercased runs of letters and digits): 1 for the same words in any
// order, 0 for no word in common. Two texts without words are equal (1).
func TokenSimilarity(a, b string) float64 {
	wa, wb := tokens(a), tokens(b)
	if len(wa) == 0 && len(wb) == 0 {
		return 1
	}
	inter := 0
	for w := range wa {
		if wb[w] {
			inter++
		}
	}
	return float64(inter) / float64(len(wa)+len(wb)-inter)
}

func tokens(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		out[w] = true
	}
	return out
}

// textOf returns a JSON string's text.
func textOf(raw json.RawMessage) (string, bool) {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

func containsText(raw json.RawMessage, want string) bool {
	if s, ok := textOf(raw); ok {
		return strings.Contains(Normalize(s), want)
	}
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return false
	}
	for _, it := range items {
		if s, ok := textOf(it); ok && strings.Contains(Normalize(s), want) {
			return true
		}
	}
	return false
}

// jsonNumber returns the value of a JSON number.
func jsonNumber(raw json.RawMessage) (float64, bool) {
	v, ok := canon.Decode(raw)
	if !ok {
		return 0, false
	}
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	if err != nil || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// jsonEqual compares two JSON texts by value: numbers numerically (10 and
// 10.0 are equal), objects regardless of key order. Invalid JSON equals
// nothing.
func jsonEqual(a, b json.RawMessage) bool { return canon.EqualJSON(a, b) }

// clip shortens a value for a message.
func clip(s string) string { return clippkg.Runes(s, 80) }
