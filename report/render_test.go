package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// renderer is one golden output of an input report.
type renderer struct {
	suffix string
	render func(io.Writer, *Report) error
	// only limits the renderer to these inputs (all when empty).
	only []string
	// huge says the renderer also runs on the derived inputs with
	// megabyte strings (hugeInputs); the others would write megabytes.
	huge bool
}

// applies reports whether rd renders the input name.
func (rd renderer) applies(name string) bool {
	if _, ok := hugeInputs[name]; ok && !rd.huge {
		return false
	}
	return len(rd.only) == 0 || contains(rd.only, name)
}

func textRenderer(o TextOptions) func(io.Writer, *Report) error {
	return func(w io.Writer, r *Report) error { return WriteText(w, r, o) }
}

// The links the golden comments carry.
const (
	testRunURL      = "https://github.com/acme/weather-mcp/actions/runs/4412"
	testBaselineURL = "https://github.com/acme/weather-mcp/actions/runs/4411"
)

func commentRenderer(o CommentOptions) func(io.Writer, *Report) error {
	return func(w io.Writer, r *Report) error { return WriteComment(w, r, o) }
}

var renderers = []renderer{
	{suffix: ".json", render: WriteJSON},
	{suffix: ".txt", render: textRenderer(TextOptions{}), huge: true},
	{suffix: ".md", render: WriteMarkdown, huge: true},
	{suffix: ".xml", render: WriteJUnit},
	{suffix: ".comment.md", render: commentRenderer(CommentOptions{RunURL: testRunURL, BaselineURL: testBaselineURL, Key: `mcp-eval / evals {"shard": 2}`}), huge: true},
	{suffix: ".small.comment.md", render: commentRenderer(CommentOptions{RunURL: testRunURL, MaxBytes: 2048}), only: []string{"cases-scores", "hostile-tool", "hostile-tool-1mb"}, huge: true},
	{suffix: ".sarif", render: WriteSARIF, huge: true},
	{suffix: ".verbose.txt", render: textRenderer(TextOptions{Verbose: true}), only: []string{"failing-modern", "passing-modern"}},
	{suffix: ".quiet.txt", render: textRenderer(TextOptions{Quiet: true}), only: []string{"failing-modern", "cases-scores"}},
	{suffix: ".color.txt", render: textRenderer(TextOptions{Color: true}), only: []string{"failing-modern", "cases-scores"}},
}

// inputs returns the names of the golden input reports,
// testdata/NAME.input.json, and of the derived hugeInputs.
func inputs(t *testing.T) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "*.input.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no golden inputs: %v", err)
	}
	var names []string
	for _, p := range paths {
		names = append(names, strings.TrimSuffix(filepath.Base(p), ".input.json"))
	}
	return append(names, sortedKeys(hugeInputs)...)
}

// hugeInputs are golden inputs built in code from a testdata input, so
// that testdata holds no megabyte strings: name → the input it starts from
// and what it changes.
var hugeInputs = map[string]struct {
	from   string
	mutate func(*Report)
}{
	"hostile-tool-1mb": {"hostile-tool", inflate},
}

// megabyte repeats s to a little over 1 MiB.
func megabyte(s string) string {
	return strings.Repeat(s, (1<<20)/len(s)+1)
}

// inflate turns the hostile tool description of hostile-tool into a
// 1 MiB one, wherever it appears, and does the same to the tool name and to
// the gate's free text.
func inflate(r *Report) {
	for i := range r.Checks {
		c := &r.Checks[i]
		if c.ID != "lint/tool-description" {
			continue
		}
		var ev struct {
			Tool        string `json:"tool"`
			Description string `json:"description"`
		}
		if err := json.Unmarshal(c.Evidence, &ev); err != nil {
			panic(err)
		}
		ev.Description = megabyte(ev.Description)
		ev.Tool = megabyte(ev.Tool)
		c.Message = "tool description is an instruction to the reader: " + ev.Description
		c.Evidence, _ = json.Marshal(ev)
	}
	g := r.Gate
	g.Baseline = megabyte(g.Baseline)
	g.Reasons = append(g.Reasons, megabyte(g.Reasons[0]+" </details> @org/team "))
	g.DriftMessage = megabyte(g.DriftMessage + " ::set-output name=x::y ")
	g.StaleWaivers = append(g.StaleWaivers, megabyte("@org/team`</details>"))
}

func loadReport(t *testing.T, name string) *Report {
	t.Helper()
	if h, ok := hugeInputs[name]; ok {
		r := loadReport(t, h.from)
		h.mutate(r)
		return r
	}
	var r Report
	readJSON(t, filepath.Join("testdata", name+".input.json"), &r)
	return &r
}

// readJSON decodes the JSON file at path into v.
func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// render runs fn and fails the test on an error.
func render(t *testing.T, fn func(io.Writer, *Report) error, r *Report) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := fn(&b, r); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// wantContains fails the test for each of wants that got lacks.
func wantContains(t *testing.T, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("output lacks %q:\n%s", w, got)
		}
	}
}

func TestGolden(t *testing.T) {
	for _, name := range inputs(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, rd := range renderers {
				if !rd.applies(name) {
					continue
				}
				r := loadReport(t, name)
				got := render(t, rd.render, r)
				path := filepath.Join("testdata", name+rd.suffix)
				if *update {
					if err := os.WriteFile(path, got, 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (run go test ./report -update)", err)
				}
				if diff := cmp.Diff(string(want), string(got)); diff != "" {
					t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
				}
			}
		})
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestRenderersArePure checks that rendering leaves the report as it was
// and gives the same bytes every time, even from a shuffled report.
func TestRenderersArePure(t *testing.T) {
	t.Parallel()
	for _, name := range inputs(t) {
		for _, rd := range renderers {
			if !rd.applies(name) {
				continue
			}
			r := loadReport(t, name)
			before := loadReport(t, name)
			first := render(t, rd.render, r)
			// reflect.DeepEqual first: cmp.Diff is slow on megabyte evidence.
			if !reflect.DeepEqual(before, r) {
				t.Errorf("%s%s modified its report (-before +after):\n%s", name, rd.suffix, cmp.Diff(before, r))
			}
			// Reverse checks and cases: the output must not depend on the
			// input order.
			for i, j := 0, len(r.Checks)-1; i < j; i, j = i+1, j-1 {
				r.Checks[i], r.Checks[j] = r.Checks[j], r.Checks[i]
			}
			for i, j := 0, len(r.Cases)-1; i < j; i, j = i+1, j-1 {
				r.Cases[i], r.Cases[j] = r.Cases[j], r.Cases[i]
			}
			if second := render(t, rd.render, r); !bytes.Equal(first, second) {
				t.Errorf("%s%s: output depends on input order", name, rd.suffix)
			}
		}
	}
}

// TestHostileText checks every output of the report whose server sends
// markup, mentions, workflow commands, control characters and backticks.
func TestHostileText(t *testing.T) {
	t.Parallel()
	r := loadReport(t, "failing-modern")
	for _, rd := range renderers {
		out := string(render(t, rd.render, r))
		for i, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(strings.TrimLeftFunc(line, unicode.IsSpace), "::") {
				t.Errorf("%s line %d starts a workflow command: %q", rd.suffix, i+1, line)
			}
		}
		if strings.ContainsRune(out, 0) || strings.ContainsRune(out, '\u202e') {
			t.Errorf("%s: contains NUL or a bidi override", rd.suffix)
		}
		if rd.suffix != ".color.txt" && strings.ContainsRune(out, '\x1b') {
			t.Errorf("%s: contains an escape character", rd.suffix)
		}
	}

	// Outside code blocks the Markdown must carry none of the server's
	// markup; inside them anything goes, as long as the fence holds.
	md, code := splitFences(t, string(render(t, WriteMarkdown, r)))
	for _, bad := range []string{"<script", "</script", "<b>", "@octocat", "https://evil"} {
		if strings.Contains(md, bad) {
			t.Errorf("markdown outside code blocks contains %q", bad)
		}
	}
	if regexp.MustCompile(`[^\\]\]\(`).MatchString(md) {
		t.Errorf("markdown outside code blocks has a link")
	}
	if open, closed := strings.Count(md, "<details>"), strings.Count(md, "</details>"); open != closed || open == 0 {
		t.Errorf("markdown has %d <details> and %d </details>", open, closed)
	}
	if !strings.Contains(code, "</details><script>@octocat") {
		t.Errorf("the evidence should be shown verbatim in a code block; code blocks:\n%s", code)
	}

	xmlOut := render(t, WriteJUnit, r)
	if err := xmlWellFormed(xmlOut); err != nil {
		t.Errorf("junit.xml is not well formed: %v", err)
	}
}

// splitFences separates Markdown into the text outside fenced code blocks
// and the text inside them, following CommonMark: a block opened by a run
// of n backticks ends at a line of at least n backticks and nothing else.
func splitFences(t *testing.T, md string) (outside, inside string) {
	t.Helper()
	var out, in strings.Builder
	fence := ""
	for _, line := range strings.Split(md, "\n") {
		switch {
		case fence == "" && strings.HasPrefix(line, "```"):
			fence = line[:len(line)-len(strings.TrimLeft(line, "`"))]
		case fence != "" && strings.Trim(line, "`") == "" && len(line) >= len(fence):
			fence = ""
		case fence != "":
			in.WriteString(line + "\n")
		default:
			out.WriteString(line + "\n")
		}
	}
	if fence != "" {
		t.Errorf("unclosed code block (fence %q)", fence)
	}
	return out.String(), in.String()
}

func xmlWellFormed(b []byte) error {
	d := xml.NewDecoder(bytes.NewReader(b))
	for {
		_, err := d.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func TestJUnitControlCharacters(t *testing.T) {
	t.Parallel()
	var all strings.Builder
	for c := rune(0); c < 0x20; c++ {
		all.WriteRune(c)
	}
	all.WriteString("\x7f\ufffe\uffff\xff ]]> </failure> &amp; \"'")
	s := all.String()
	ev, err := json.Marshal(map[string]string{"body": s})
	if err != nil {
		t.Fatal(err)
	}
	r := &Report{Checks: []Check{
		{ID: "caching/tools-list", Group: "caching" + s, Level: LevelMust, Hard: true, Status: StatusFail, Message: s, Evidence: ev, Info: s},
		{ID: "http/get-not-allowed", Group: "http", Level: LevelShould, Status: StatusError, Message: s, Evidence: ev},
		{ID: "lint/x", Group: "lint", Level: LevelShould, Status: StatusSkip, Message: s},
	}, Cases: []Case{{ID: "c" + s, Model: s, Kind: "hard", Runs: 1, Status: StatusError}}}
	out := render(t, WriteJUnit, r)
	if err := xmlWellFormed(out); err != nil {
		t.Fatalf("not well formed: %v\n%s", err, out)
	}
	var doc junitSuites
	if err := xml.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	got := [5]int{doc.Tests, doc.Failures, doc.Errors, doc.Skipped, len(doc.Suites)}
	if want := [5]int{4, 1, 1, 1, 4}; got != want {
		t.Errorf("tests, failures, errors, skipped, suites = %v, want %v", got, want)
	}
	// The errored SHOULD check fails nothing: a passing test case with the
	// finding in system-out, named an error as report.json says.
	for _, s := range doc.Suites {
		for _, c := range s.Cases {
			if c.Name == "http/get-not-allowed" && (c.Failure != nil || c.Error != nil || c.SystemOut == nil || !strings.HasPrefix(c.SystemOut.Text, "error (SHOULD, not a hard check")) {
				t.Errorf("errored SHOULD check rendered as %+v", c)
			}
		}
	}
}

func TestPassed(t *testing.T) {
	t.Parallel()
	hardFail := Check{ID: "caching/tools-list", Hard: true, Status: StatusFail}
	softFail := Check{ID: "http/get-not-allowed", Status: StatusFail}
	softErr := Check{ID: "http/delete-not-allowed", Status: StatusError}
	skip := Check{ID: "caching/prompts-list", Hard: true, Status: StatusSkip}
	pass := Check{ID: "discover/responds", Hard: true, Status: StatusPass}
	softCase := Case{ID: "a", Kind: "soft", Status: StatusFail}
	hardCase := Case{ID: "b", Kind: "hard", Status: StatusError}
	tests := []struct {
		name string
		r    Report
		want bool
	}{
		{"empty", Report{}, true},
		{"passes and skips", Report{Checks: []Check{pass, skip}}, true},
		{"warnings only", Report{Checks: []Check{pass, softFail, softErr}}, true},
		{"soft case below its floor", Report{Cases: []Case{softCase}}, false},
		{"soft case status pass, rate below floor", Report{Cases: []Case{{ID: "c", Kind: "soft", Status: StatusPass, PassRate: 0.6, Floor: 0.8}}}, false},
		{"soft case at its floor", Report{Cases: []Case{{ID: "c", Kind: "soft", Status: StatusPass, PassRate: 0.8, Floor: 0.8}}}, true},
		{"warnings under strict", Report{Checks: []Check{pass, softFail}, Strict: true}, false},
		{"soft case under strict", Report{Cases: []Case{softCase}, Strict: true}, false},
		{"hard failure", Report{Checks: []Check{pass, hardFail}}, false},
		{"hard case error", Report{Cases: []Case{hardCase}}, false},
		{"gate failed", Report{Checks: []Check{pass}, Gate: &Gate{}}, false},
		{"gate passed", Report{Checks: []Check{pass}, Gate: &Gate{Passed: true}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.r.Passed(); got != tt.want {
				t.Errorf("Passed() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestWriteTextLines(t *testing.T) {
	t.Parallel()
	r := &Report{
		Server: Server{Target: "http://x", Transport: "http", Era: "modern", ProtocolVersion: "2026-07-28"},
		Checks: []Check{
			{ID: "lint/tool-description", Group: "lint", Layer: LayerConformance, Level: LevelShould, Status: StatusFail, Runs: 1, Message: "short"},
			{ID: "caching/tools-list", Group: "caching", Layer: LayerConformance, Level: LevelMust, Hard: true, Status: StatusFail, Runs: 5, Passed: 3, Message: "no ttlMs", Evidence: json.RawMessage(`{"missing":"ttlMs","got":{"a":1}}`)},
			{ID: "discover/responds", Group: "discover", Layer: LayerConformance, Level: LevelMust, Hard: true, Status: StatusPass, Runs: 5, Passed: 5},
			{ID: "zeta/x", Group: "zeta", Status: StatusSkip, Message: "not declared"},
			{ID: "alpha/y", Group: "alpha", Status: StatusPass, Runs: 1, Passed: 1},
		},
	}
	tests := []struct {
		name string
		o    TextOptions
		want string
	}{
		{"default", TextOptions{}, `mcp-eval · server http://x · transport http · era modern · protocol 2026-07-28

discover
  ✓ discover/responds
caching
  ✗ caching/tools-list     3/5  no ttlMs
      missing: ttlMs
      got: {"a":1}
alpha
  ✓ alpha/y
lint
  ⚠ lint/tool-description  warning: short
skipped: 1 check, by reason (--verbose lists each)
    1  not declared

FAIL  2 passed, 1 failed, 1 warnings, 1 skipped, 0 errors · conformance pass rate 50% (1/2 hard checks)
`},
		{"quiet", TextOptions{Quiet: true}, `  ✗ caching/tools-list     3/5  no ttlMs
      missing: ttlMs
      got: {"a":1}

FAIL  2 passed, 1 failed, 1 warnings, 1 skipped, 0 errors · conformance pass rate 50% (1/2 hard checks)
`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteText(&b, r, tt.o); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, b.String()); diff != "" {
				t.Errorf("WriteText mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// cutCase is one input of a function that makes text safe and cuts it to
// max runes (oneLine, plainText).
type cutCase struct {
	in   string
	max  int
	want string
}

func testCut(t *testing.T, name string, fn func(string, int) string, tests []cutCase) {
	t.Helper()
	for _, tt := range tests {
		if got := fn(tt.in, tt.max); got != tt.want {
			t.Errorf("%s(%q, %d) = %q, want %q", name, tt.in, tt.max, got, tt.want)
		}
	}
}

func TestOneLine(t *testing.T) {
	t.Parallel()
	testCut(t, "oneLine", oneLine, []cutCase{
		{"plain", 0, "plain"},
		{"a\nb\r\tc", 0, `a\nb\r\tc`},
		{"\x1b[31mred", 0, `\x1b[31mred`},
		{"\u202etxt", 0, `\u202etxt`},
		{"bad\xffutf8", 0, "bad\ufffdutf8"},
		{"abcdef", 3, "abc…"},
		{"abc", 3, "abc"},
		{"日本語テキスト", 2, "日本…"},
	})
}

func TestEvidenceFields(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want []field
	}{
		{``, nil},
		{`null`, nil},
		{`{}`, nil},
		{`{"b":"x\ny","a":[1, 2],"c":{"d":null}}`, []field{{"b", "x\ny"}, {"a", "[1,2]"}, {"c", `{"d":null}`}}},
		{`[1, 2]`, []field{{"evidence", "[1,2]"}}},
		{`"just text"`, []field{{"evidence", "just text"}}},
		{`{"a":`, []field{{"evidence", `{"a":`}}},
	}
	for _, tt := range tests {
		got := evidenceFields(json.RawMessage(tt.in))
		if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(field{})); diff != "" {
			t.Errorf("evidenceFields(%s) mismatch (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestWriteJSONNormalizes(t *testing.T) {
	t.Parallel()
	r := &Report{SchemaVersion: SchemaVersion, Gate: &Gate{}}
	var got map[string]any
	if err := json.Unmarshal(render(t, WriteJSON, r), &got); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"checks", "cases"} {
		if _, ok := got[k].([]any); !ok {
			t.Errorf("%s = %v, want an array", k, got[k])
		}
	}
	if _, ok := got["scores"].(map[string]any); !ok {
		t.Errorf("scores = %v, want an object", got["scores"])
	}
	g := got["gate"].(map[string]any)
	if _, ok := g["reasons"].([]any); !ok {
		t.Errorf("gate.reasons = %v, want an array", g["reasons"])
	}
	if r.Gate.Reasons != nil || r.Scores != nil {
		t.Errorf("WriteJSON modified its report: %+v", r)
	}
}

// TestNoWorkflowCommands fills every string of a report with text that
// would be a workflow command at the start of a line, and checks that no
// renderer lets one start a line (the runner trims leading space first).
func TestNoWorkflowCommands(t *testing.T) {
	t.Parallel()
	const h = "::error::x\n::set-output name=passed::true\r\n\t::warning::y\u2028::z"
	f := 0.5
	ev, err := json.Marshal(map[string]any{h: h, "list": []string{h}})
	if err != nil {
		t.Fatal(err)
	}
	r := &Report{
		Tool:   Tool{Name: h, Version: h},
		Layers: []string{h},
		Server: Server{Target: h, Transport: h, Era: h, ProtocolVersion: h, SupportedVersions: []string{h},
			ServerInfo: json.RawMessage(`{"name":` + strconv.Quote(h) + `,"version":"1"}`), Migration: []string{h}},
		Checks: []Check{
			{ID: h, Group: h, Level: Level(h), Hard: true, Status: StatusFail, Runs: 2, Passed: 1, Title: h, Message: h, SpecRef: h, Evidence: ev, Info: h},
			{ID: h + "2", Group: h, Level: Level(h), Status: StatusFail, Runs: 1, Message: h, Evidence: json.RawMessage(strconv.Quote(h)), Info: h},
			{ID: h + "3", Group: h, Status: StatusSkip, Message: h},
			{ID: h + "4", Group: h, Status: StatusPass, Runs: 1, Passed: 1, Message: h, Info: h, Evidence: ev},
		},
		Cases:         []Case{{ID: h, Model: h, Kind: h, Runs: 1, Status: StatusFail, Selection: &f}},
		Scores:        map[string]float64{h: f},
		ScoresByModel: map[string]map[string]float64{h: {h: f}},
		Telemetry:     &Telemetry{ToolCalls: map[string]Latency{h: {}}, Models: map[string]ModelUsage{h: {}}},
		Gate: &Gate{Baseline: h, Deltas: map[string]float64{h: f}, Reasons: []string{h}, Notes: []string{h},
			Scores:      []GateScore{{Key: h, Base: &f, Current: &f}},
			Regressions: []GateItem{{ID: h, Model: h}}, Waived: []GateItem{{ID: h + "2", WaiverReason: h}},
			StaleWaivers: []string{h}, ExpiredWaivers: []string{h}, DriftMessage: h},
	}
	all := append([]renderer{}, renderers...)
	all = append(all, renderer{suffix: ".verbose.color.txt", render: textRenderer(TextOptions{Verbose: true, Color: true})})
	for _, rd := range all {
		out := string(render(t, rd.render, r))
		for i, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(strings.TrimLeftFunc(line, unicode.IsSpace), "::") {
				t.Errorf("%s line %d starts a workflow command: %q", rd.suffix, i+1, line)
			}
		}
		if strings.ContainsRune(out, '\u2028') {
			t.Errorf("%s contains a raw line separator", rd.suffix)
		}
	}
}

// TestTextSkipsCountedByReason: a passing run's screen counts its skipped
// checks by reason, most first, under the checks that ran; a group whose
// checks were all skipped has no heading; --verbose lists each in place.
func TestTextSkipsCountedByReason(t *testing.T) {
	r := &Report{
		Server: Server{Target: "http://x", Transport: "http", Era: "modern", ProtocolVersion: "2026-07-28"},
		Checks: []Check{
			{ID: "discover/responds", Group: "discover", Layer: LayerConformance, Level: LevelMust, Hard: true, Status: StatusPass, Runs: 1, Passed: 1},
			{ID: "prompts/a", Group: "prompts", Status: StatusSkip, Message: "server does not declare the prompts capability"},
			{ID: "prompts/b", Group: "prompts", Status: StatusSkip, Message: "server does not declare the prompts capability"},
			{ID: "tasks/c", Group: "tasks", Status: StatusSkip, Message: "no tasks extension"},
		},
	}
	var b bytes.Buffer
	if err := WriteText(&b, r, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	want := `discover
  ✓ discover/responds
skipped: 3 checks, by reason (--verbose lists each)
    2  server does not declare the prompts capability
    1  no tasks extension
`
	if got := b.String(); !strings.Contains(got, want) || strings.Contains(got, "prompts/a") || strings.Contains(got, "\nprompts\n") {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	b.Reset()
	if err := WriteText(&b, r, TextOptions{Verbose: true}); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); !strings.Contains(got, "  - prompts/a") || strings.Contains(got, "by reason") {
		t.Errorf("--verbose lists each skipped check:\n%s", got)
	}
}
