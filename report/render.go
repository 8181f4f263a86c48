package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// outcome is how a renderer presents a check or case: a failure that does not
// fail the run is a warning.
type outcome int

const (
	outPass outcome = iota
	outFail
	outWarn
	outSkip
	outError
	// outSoftError is an errored check that does not fail the run (not
	// hard, the run not strict): shown and counted as an error, as
	// report.json says, listed with the warnings, as it fails nothing.
	outSoftError
)

// judge classifies checks and cases for display, by the one rule of
// Check.Failed and Case.Failed: what counts against the run is a failure or
// an error; a failed or errored check that does not count (not hard, the run
// not strict) is a warning, and so is a failure the gate waived. "Warning"
// means exactly "does not fail the run". An unknown status is treated like
// error so that it never shows as a pass.
type judge struct {
	strict bool
	// waived maps GateItem.Key of each waived failure to its reason.
	waived map[string]string
}

func newJudge(r *Report) judge {
	j := judge{strict: r.Strict, waived: map[string]string{}}
	if r.Gate == nil {
		return j
	}
	// A waived failure is listed in Waived and marked in the list it
	// belongs to; either is enough to make it a warning.
	for _, list := range [][]GateItem{r.Gate.Regressions, r.Gate.StillFailing, r.Gate.New} {
		for _, it := range list {
			if it.Waived {
				j.waived[it.Key()] = it.WaiverReason
			}
		}
	}
	for _, it := range r.Gate.Waived {
		j.waived[it.Key()] = it.WaiverReason
	}
	return j
}

func (j judge) check(c Check) outcome {
	switch c.Status {
	case StatusPass:
		return outPass
	case StatusSkip:
		return outSkip
	}
	c.Status = knownStatus(c.Status)
	if !c.Failed(j.strict) {
		if c.Status == StatusError {
			return outSoftError
		}
		return outWarn
	}
	return j.counted(c.ID, c.Status)
}

func (j judge) kase(c Case) outcome {
	c.Status = knownStatus(c.Status)
	switch {
	case c.Status == StatusSkip:
		return outSkip
	case !c.Failed():
		return outPass
	case c.Status == StatusPass:
		// Below its floor although the status says pass: the numbers win.
		c.Status = StatusFail
	}
	return j.counted(c.Key(), c.Status)
}

// counted is the outcome of a check or case that counts against the run:
// fail or error, or a warning when the gate waived it.
func (j judge) counted(key string, st Status) outcome {
	if _, ok := j.waived[key]; ok {
		return outWarn
	}
	if st == StatusFail {
		return outFail
	}
	return outError
}

// knownStatus maps a status this program does not write to error.
func knownStatus(s Status) Status {
	switch s {
	case StatusPass, StatusFail, StatusSkip, StatusError:
		return s
	}
	return StatusError
}

// waiver returns the reason a waiver gave for the check or case key.
func (j judge) waiver(key string) (string, bool) {
	reason, ok := j.waived[key]
	return reason, ok
}

// Passed reports whether the report as a whole passes. With a gate the
// gate's decision is final (it weighs hard failures, waivers and scores);
// without one, the run passes when no check or case fails it (hard ones, or
// any with Strict). Every renderer's verdict comes from here.
func (r *Report) Passed() bool {
	if r.Gate != nil {
		return r.Gate.Passed
	}
	checks, cases := tallies(r)
	return checks.failed+checks.errors-checks.softErrors+cases.failed+cases.errors-cases.softErrors == 0
}

// tally counts outcomes for the summary lines.
type tally struct {
	passed, failed, warnings, skipped, errors int
	// softErrors are the errors that do not fail the run (outSoftError),
	// counted in errors too.
	softErrors int
}

func (t *tally) add(o outcome) {
	switch o {
	case outPass:
		t.passed++
	case outFail:
		t.failed++
	case outWarn:
		t.warnings++
	case outSkip:
		t.skipped++
	case outError:
		t.errors++
	case outSoftError:
		t.errors++
		t.softErrors++
	}
}

func (t tally) String() string {
	return fmt.Sprintf("%d passed, %d failed, %d warnings, %d skipped, %d errors",
		t.passed, t.failed, t.warnings, t.skipped, t.errors)
}

// tallies counts the outcomes of the checks and of the cases.
func tallies(r *Report) (checks, cases tally) {
	j := newJudge(r)
	for _, c := range r.Checks {
		checks.add(j.check(c))
	}
	for _, c := range r.Cases {
		cases.add(j.kase(c))
	}
	return checks, cases
}

// passRateText describes the conformance pass rate with its counts, from
// the checks themselves (the same rule as ConformancePassRate).
func passRateText(r *Report) string {
	ok, n := r.conformanceCounts()
	if n == 0 {
		return "conformance pass rate n/a (no hard check ran)"
	}
	return fmt.Sprintf("conformance pass rate %s (%d/%d hard checks)", percent(float64(ok)/float64(n)), ok, n)
}

// percent formats a fraction as a percentage with one decimal, dropping a
// trailing ".0".
func percent(f float64) string {
	s := strconv.FormatFloat(f*100, 'f', 1, 64)
	return strings.TrimSuffix(s, ".0") + "%"
}

// caseInterval is the 95% Wilson score interval of a case's pass rate in
// whole percents ("95% CI 38–96%"), "" when no run reached a verdict (a
// skipped case, or every run errored): five runs that all passed still only
// show the rate is at least 57%, which is what a reader must weigh.
func caseInterval(c Case) string {
	if c.Status == StatusSkip || c.Runs-c.Errored <= 0 {
		return ""
	}
	// A report that recorded no interval (an older or hand-made one) says
	// nothing rather than something false: a real interval is wider than a
	// point and holds the pass rate.
	if !(c.WilsonLow < c.WilsonHigh && c.WilsonLow <= c.PassRate+1e-9 && c.PassRate <= c.WilsonHigh+1e-9) {
		return ""
	}
	pc := func(f float64) string { return strconv.Itoa(int(math.Round(clamp01(f) * 100))) }
	return "95% CI " + pc(c.WilsonLow) + "–" + pc(c.WilsonHigh) + "%"
}

// flakyText is "flaky" for a case that passed some runs and failed others,
// else "".
func flakyText(c Case) string {
	if c.Flaky && c.Status != StatusSkip {
		return "flaky"
	}
	return ""
}

// intervalNote explains the interval and "flaky" wherever cases are shown.
const intervalNote = "95% CI: the Wilson score interval of the pass rate over the runs that reached a verdict; flaky: passed some runs and failed others."

// score formats a score value.
func score(f float64) string { return strconv.FormatFloat(f, 'f', 3, 64) }

// runsText is "passed/runs" when a check ran more than once and not every
// run passed, else "".
func runsText(c Check) string {
	if c.Runs > 1 && c.Passed != c.Runs {
		return fmt.Sprintf("%d/%d", c.Passed, c.Runs)
	}
	return ""
}

// group is the checks of one group, in id order.
type group struct {
	name   string
	checks []Check
}

// groupName is c's group, or the prefix of its id when the group is unset.
func groupName(c Check) string {
	if c.Group != "" {
		return c.Group
	}
	if i := strings.IndexByte(c.ID, '/'); i > 0 {
		return c.ID[:i]
	}
	return "other"
}

// groupChecks splits sorted checks into groups: the seven assertion groups
// first in their fixed order, then the rest alphabetically.
func groupChecks(checks []Check) []group {
	idx := map[string]int{}
	var gs []group
	for _, c := range checks {
		name := groupName(c)
		i, ok := idx[name]
		if !ok {
			i = len(gs)
			idx[name] = i
			gs = append(gs, group{name: name})
		}
		gs[i].checks = append(gs[i].checks, c)
	}
	rank := func(name string) int {
		for i, g := range HardGroups {
			if g == name {
				return i
			}
		}
		return len(HardGroups)
	}
	sort.SliceStable(gs, func(i, j int) bool {
		ri, rj := rank(gs[i].name), rank(gs[j].name)
		if ri != rj {
			return ri < rj
		}
		return gs[i].name < gs[j].name
	})
	return gs
}

// normalized returns a sorted copy of r whose nil collections are empty, so
// that report.json always has arrays and objects where the schema says so.
// The caller's report is not modified.
func normalized(r *Report) *Report {
	c := *r
	c.Checks = append([]Check{}, r.Checks...)
	c.Cases = append([]Case{}, r.Cases...)
	c.Server.SupportedVersions = append([]string{}, r.Server.SupportedVersions...)
	c.Server.Migration = append([]string(nil), r.Server.Migration...)
	c.Layers = append([]string(nil), r.Layers...)
	// The surface's tools are shared, not copied: nothing here sorts or
	// changes them, and at 100 000 tools a copy was 20 MB more at the
	// moment report.json is written.
	if c.Surface.Tools == nil {
		c.Surface.Tools = []SurfaceItem{}
	}
	if c.Scores == nil {
		c.Scores = map[string]float64{}
	}
	if r.Gate != nil {
		g := *r.Gate
		if g.Deltas == nil {
			g.Deltas = map[string]float64{}
		}
		g.Reasons = append([]string{}, r.Gate.Reasons...)
		c.Gate = &g
	}
	c.Sort()
	return &c
}

// caseMatrix lays the cases out by id and model, as the case × model
// tables of the Markdown, comment and HTML renderers show them: ids in the
// order the cases list them, models sorted.
type caseMatrix struct {
	ids    []string
	models []string
	first  map[string]Case    // the first case of each id
	cells  map[[2]string]Case // by id and model
}

func newCaseMatrix(cases []Case) caseMatrix {
	m := caseMatrix{models: modelsOf(cases), first: map[string]Case{}, cells: map[[2]string]Case{}}
	for _, c := range cases {
		if _, seen := m.first[c.ID]; !seen {
			m.first[c.ID] = c
			m.ids = append(m.ids, c.ID)
		}
		m.cells[[2]string{c.ID, c.Model}] = c
	}
	return m
}

// cell is the case of id on model, if it ran there.
func (m caseMatrix) cell(id, model string) (Case, bool) {
	c, ok := m.cells[[2]string{id, model}]
	return c, ok
}

// modelsOf returns the distinct models of the cases, sorted.
func modelsOf(cases []Case) []string {
	seen := map[string]bool{}
	var ms []string
	for _, c := range cases {
		if !seen[c.Model] {
			seen[c.Model] = true
			ms = append(ms, c.Model)
		}
	}
	sort.Strings(ms)
	return ms
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// serverName extracts "name version" from serverInfo, or "".
func serverName(raw json.RawMessage) string {
	var info struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &info) != nil {
		return ""
	}
	return strings.TrimSpace(info.Name + " " + info.Version)
}

// field is one top-level key of a check's evidence.
type field struct {
	key, value string
}

// evidenceFields splits evidence into its top-level keys in the order they
// appear (the check's own order, deterministic for a given report). String
// values are unquoted; other values are compact JSON. Evidence that is not an
// object becomes one field named "evidence"; null and {} give none.
func evidenceFields(raw json.RawMessage) []field {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return []field{{"evidence", string(raw)}}
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return []field{{"evidence", jsonValueText(raw)}}
	}
	var fs []field
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return []field{{"evidence", string(raw)}}
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return []field{{"evidence", string(raw)}}
		}
		fs = append(fs, field{key, jsonValueText(v)})
	}
	return fs
}

// jsonValueText renders a JSON value on one line: a string unquoted, anything
// else compacted.
func jsonValueText(v json.RawMessage) string {
	var s string
	if len(v) > 0 && v[0] == '"' && json.Unmarshal(v, &s) == nil {
		return s
	}
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		return string(v)
	}
	return b.String()
}

// indentEvidence pretty-prints evidence for a code block. Evidence that is
// not valid JSON is shown as one JSON string, so that server text never
// starts a line of its own.
func indentEvidence(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Indent(&b, bytes.TrimSpace(raw), "", "  "); err != nil {
		q, _ := json.Marshal(string(raw))
		return escapeInvisible(string(q))
	}
	return escapeInvisible(b.String())
}

// escapeInvisible rewrites, in valid JSON text, the characters that are
// legal inside JSON strings but reorder or break lines on display (C1
// controls, line and paragraph separators, bidi controls) as \uXXXX
// escapes, which denote the same string.
func escapeInvisible(s string) string {
	var b strings.Builder
	for _, r := range s {
		if (r >= 0x80 && unicode.IsControl(r)) || r == '\u2028' || r == '\u2029' || isBidiControl(r) {
			fmt.Fprintf(&b, `\u%04x`, r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// hasEvidence reports whether raw holds anything worth showing.
func hasEvidence(raw json.RawMessage) bool {
	s := string(bytes.TrimSpace(raw))
	return s != "" && s != "null" && s != "{}" && s != "[]"
}

// isBidiControl reports whether r reorders text on display (the "Trojan
// Source" characters); renderers show or drop them rather than obey them.
func isBidiControl(r rune) bool {
	return r == '\u200e' || r == '\u200f' || r == '\u061c' ||
		(r >= '\u202a' && r <= '\u202e') || (r >= '\u2066' && r <= '\u2069')
}

// oneLine makes untrusted text safe for one line of terminal or log output:
// newlines, tabs, control characters (ANSI escapes included), line and
// paragraph separators and bidi controls are shown as Go-style escapes, and
// invalid UTF-8 becomes U+FFFD. With max > 0 the result is cut to max runes,
// ending in "…".
func oneLine(s string, max int) string {
	return rewriteRunes(s, max, func(r rune, _ string) string {
		switch {
		case r == '\n':
			return `\n`
		case r == '\r':
			return `\r`
		case r == '\t':
			return `\t`
		case r < 0x80 && unicode.IsControl(r):
			return fmt.Sprintf(`\x%02x`, r)
		case unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || isBidiControl(r):
			return fmt.Sprintf(`\u%04x`, r)
		}
		return string(r)
	})
}

// rewriteRunes builds a string from s piece by piece: each rune (invalid
// UTF-8 read as U+FFFD) becomes piece(r, rest), rest being the text after
// it, and "" drops it. With max > 0 the result holds at most max pieces,
// then "…" when there were more.
func rewriteRunes(s string, max int, piece func(r rune, rest string) string) string {
	var b strings.Builder
	n := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		p := piece(r, s[i:])
		if p == "" {
			continue
		}
		if max > 0 && n >= max {
			b.WriteString("…")
			break
		}
		b.WriteString(p)
		n++
	}
	return b.String()
}

// gateScoreNotes says in words what the gate saw in a score: a drop, a floor
// missed, drift, the significance test. It is "" when there is nothing to say.
func gateScoreNotes(s GateScore) string {
	var words []string
	if s.Drop {
		words = append(words, "dropped")
	}
	if s.BelowFloor {
		w := "below floor"
		if s.Direction == DirectionLower {
			w = "above ceiling"
		}
		if s.Floor != nil {
			w += " " + score(*s.Floor)
		}
		words = append(words, w)
	}
	if s.Drift {
		words = append(words, "model drift")
	}
	if s.Tested {
		w := "not significant"
		if s.Significant {
			w = "significant"
		}
		if s.PValue != nil {
			w += fmt.Sprintf(" (p=%.3f)", *s.PValue)
		}
		words = append(words, w)
	}
	return strings.Join(words, ", ")
}

// gateScoreVerdict is gateScoreNotes with "failed" in front when the score
// counts against the gate.
func gateScoreVerdict(s GateScore) string {
	notes := gateScoreNotes(s)
	switch {
	case s.Failed && notes != "":
		return "[failed: " + notes + "]"
	case s.Failed:
		return "[failed]"
	case notes != "":
		return "[" + notes + "]"
	}
	return ""
}

// optScore formats an optional score, "–" when absent.
func optScore(f *float64) string {
	if f == nil {
		return "–"
	}
	return score(*f)
}

// runsSuffix is what FoldRuns appends to a message: " (2 of 5 runs
// passed)". Renderers that show the runs themselves strip it.
var runsSuffix = regexp.MustCompile(` \(\d+ of \d+ runs passed\)$`)

// bareMessage is a check's message without FoldRuns' runs suffix.
func bareMessage(c Check) string { return runsSuffix.ReplaceAllString(c.Message, "") }

// causeKey is what makes failures one cause: the same error answer (a
// JSON-RPC error, or an HTTP status of 400 or more, ids aside), or failing
// with the same message. A successful answer is no cause by itself: checks
// judge one result for different things (a missing ttlMs and a missing
// resultType on the same tools/list are two findings).
func causeKey(c Check, oc outcome) string {
	var ev struct {
		Response json.RawMessage `json:"response"`
	}
	if json.Unmarshal(c.Evidence, &ev) == nil && len(ev.Response) > 0 {
		var resp any
		if json.Unmarshal(ev.Response, &resp) == nil && isErrorAnswer(resp) {
			b, _ := json.Marshal(withoutIDs(resp))
			return fmt.Sprintf("%d|answer|%s", oc, b)
		}
	}
	if msg := bareMessage(c); msg != "" {
		return fmt.Sprintf("%d|message|%s", oc, msg)
	}
	return ""
}

// isErrorAnswer says whether a response's evidence is an error: a JSON-RPC
// error message, or an HTTP status of 400 or more.
func isErrorAnswer(resp any) bool {
	m, ok := resp.(map[string]any)
	if !ok {
		return false
	}
	if s, ok := m["status"].(float64); ok && s >= 400 {
		return true
	}
	msg, ok := m["message"].(map[string]any)
	if !ok {
		return false
	}
	_, isErr := msg["error"]
	return isErr
}

// withoutIDs drops the id of every JSON-RPC message in v (each probe sends
// its own), so that the same answer to different requests compares equal.
func withoutIDs(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		_, rpc := x["jsonrpc"]
		for k, e := range x {
			if rpc && k == "id" {
				continue
			}
			out[k] = withoutIDs(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = withoutIDs(e)
		}
		return out
	}
	return v
}

// foldCauses groups checks by causeKey, in the order of their first
// member; a check without a key stands alone.
func foldCauses(cs []Check, oc func(Check) outcome) [][]Check {
	var groups [][]Check
	at := map[string]int{}
	for _, c := range cs {
		k := causeKey(c, oc(c))
		if i, ok := at[k]; ok && k != "" {
			groups[i] = append(groups[i], c)
			continue
		}
		at[k] = len(groups)
		groups = append(groups, []Check{c})
	}
	return groups
}

// LegacyVersion is the revision before 2026-07-28, which --protocol-version
// also accepts.
const LegacyVersion = "2025-11-25"

// legacyHint says whether to tell the team of a legacy server, judged
// against 2026-07-28, how to gate it on the revision it speaks while it
// migrates: not for a modern server, nor for a run that already asked for
// that revision (it has no migration list), nor for a server that does not
// speak it.
func legacyHint(r *Report) bool {
	s := r.Server
	return s.Era == "legacy" && len(s.Migration) > 0 && (s.ProtocolVersion == LegacyVersion || slices.Contains(s.SupportedVersions, LegacyVersion))
}
