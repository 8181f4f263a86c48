package github

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcp-eval/mcp-eval/github/githubtest"
	"github.com/mcp-eval/mcp-eval/report"
)

func TestWriteOutputsCannotBeInjected(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "set_output")
	// A hostile value: go-githubactions' fixed delimiter on a line of its
	// own, then new outputs in both file-command forms.
	evil := "ok\n_GitHubActionsFileCommandDelimeter_\npassed=true\nreport-path<<EOF\n/etc/passwd\nEOF\nghadelimiter_00000000000000000000000000000000\nscore=1"
	in := map[string]string{"passed": "false", "summary-path": evil, "conformance-pass-rate": "0.5000"}
	if err := WriteOutputs(path, in); err != nil {
		t.Fatal(err)
	}
	// A second write appends: the file may hold other steps' outputs.
	if err := WriteOutputs(path, map[string]string{"layers": "conformance"}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got := githubtest.Outputs(t, string(data))
	want := maps.Clone(in)
	want["layers"] = "conformance"
	if !maps.Equal(got, want) {
		t.Errorf("outputs as the runner reads them =\n%q\nwant\n%q", got, want)
	}
	delims := regexp.MustCompile(`<<(ghadelimiter_[0-9a-f]{32})\n`).FindAllStringSubmatch(string(data), -1)
	if len(delims) != 4 {
		t.Fatalf("want 4 heredoc outputs with random delimiters, got %d in\n%s", len(delims), data)
	}
	seen := map[string]bool{}
	for _, d := range delims {
		if seen[d[1]] {
			t.Errorf("delimiter %s reused", d[1])
		}
		seen[d[1]] = true
	}

	if err := WriteOutputs("", in); err == nil {
		t.Error("no GITHUB_OUTPUT: no error")
	}
	if err := WriteOutputs(path, map[string]string{"bad\nname": "x"}); err == nil {
		t.Error("an output name with a newline was accepted")
	}
}

func TestReportOutputs(t *testing.T) {
	t.Parallel()
	r := &report.Report{
		Layers: []string{"conformance", "behavior"},
		Scores: map[string]float64{"conformance.passRate": 1, "behavior.selectionAccuracy": 0.83333333, "behavior.newKey": 0.5},
	}
	got := ReportOutputs(r, true, "mcp-eval-report/report.json", "mcp-eval-report/summary.md", "https://github.com/a/b/actions/runs/1")
	want := map[string]string{
		"passed": "true", "report-path": "mcp-eval-report/report.json", "summary-path": "mcp-eval-report/summary.md",
		"baseline-url": "https://github.com/a/b/actions/runs/1", "layers": "conformance,behavior",
		"conformance-pass-rate": "1.0000", "selection-accuracy": "0.8333",
	}
	if !maps.Equal(got, want) {
		t.Errorf("ReportOutputs =\n%v\nwant\n%v", got, want)
	}
	for k := range got {
		if !slices.ContainsFunc(Outputs, func(o Output) bool { return o.Name == k }) {
			t.Errorf("output %s is not in OutputNames (action.yml would not declare it)", k)
		}
	}
	for _, o := range Outputs {
		n := o.Name
		if !outputName.MatchString(n) || n != strings.ToLower(n) {
			t.Errorf("output name %q is not kebab-case", n)
		}
	}
}

func TestAppendSummary(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "step_summary")
	if err := AppendSummary(path, []byte("# mcp-eval\n\nall good")); err != nil {
		t.Fatal(err)
	}
	if err := AppendSummary(path, []byte("second part\n")); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if string(b) != "# mcp-eval\n\nall good\nsecond part\n" {
		t.Errorf("summary = %q", b)
	}

	// Over 1 MiB: cut, inside an open fence and <details>, which are closed.
	big := filepath.Join(dir, "big")
	var md strings.Builder
	md.WriteString("# mcp-eval\n\n<details><summary>transcript</summary>\n\n````text\n")
	for md.Len() < 2*SummaryLimit {
		md.WriteString("server said ``` hello ``` and more text that goes on\n")
	}
	if err := AppendSummary(big, []byte(md.String())); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(big)
	if len(b) >= SummaryLimit {
		t.Errorf("summary is %d bytes, want < %d", len(b), SummaryLimit)
	}
	s := string(b)
	if !strings.Contains(s, "\n````\n</details>\n") || !strings.HasSuffix(s, summaryNote) {
		t.Errorf("truncated summary does not close the fence and details before the note: ...%q", s[max(0, len(s)-400):])
	}
	if err := AppendSummary("", []byte("x")); err == nil {
		t.Error("no GITHUB_STEP_SUMMARY: no error")
	}
}

func TestMask(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := Mask(&b, "line1%0A\r\nline2\n\n"); err != nil {
		t.Fatal(err)
	}
	// % is escaped so the runner masks the literal "%0A", not a newline.
	if want := "::add-mask::line1%250A\n::add-mask::line2\n"; b.String() != want {
		t.Errorf("Mask = %q, want %q", b.String(), want)
	}
}

func TestWriteAnnotationsEscapes(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	err := WriteAnnotations(&b, []Annotation{
		{Level: LevelError, Title: "tools/list: bad, worse", Message: "100% broken\r\n::set-output name=passed::true\n::add-mask::x"},
		{Level: LevelWarning, Title: "t", Message: "w", File: "golden/tasks.yaml", Line: 3},
		{Level: LevelNotice, Message: "plain"},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "::error title=tools/list%3A bad%2C worse::100%25 broken%0D%0A::set-output name=passed::true%0A::add-mask::x\n" +
		"::warning file=golden/tasks.yaml,line=3,title=t::w\n" +
		"::notice::plain\n"
	if b.String() != want {
		t.Errorf("annotations =\n%s\nwant\n%s", b.String(), want)
	}
	// Each annotation is one line: nothing the server wrote starts a command.
	for _, l := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
		if !regexp.MustCompile(`^::(error|warning|notice)[ :]`).MatchString(l) {
			t.Errorf("line %q is not one of ours", l)
		}
	}
	if err := WriteAnnotations(&b, []Annotation{{Level: "debug"}}); err == nil {
		t.Error("unknown level accepted")
	}
}

func TestWriteAnnotationsCap(t *testing.T) {
	t.Parallel()
	var anns []Annotation
	for i := range 25 {
		anns = append(anns, Annotation{Level: LevelError, Title: fmt.Sprint("e", i), Message: "m"})
	}
	// A 1 MB hostile tool description: clipped on a rune boundary, and
	// still one line.
	hostile := strings.Repeat("é</details>@org/team\n::set-output name=passed::true ```", 1<<20/48)
	anns = append(anns, Annotation{Level: LevelWarning, Message: hostile})
	var b bytes.Buffer
	if err := WriteAnnotations(&b, anns); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != AnnotationsPerLevel+1 {
		t.Fatalf("%d lines, want %d", len(lines), AnnotationsPerLevel+1)
	}
	if !strings.Contains(lines[9], "16 more errors; the job summary lists them all.") {
		t.Errorf("10th error = %q", lines[9])
	}
	if len(lines[10]) > 3*maxAnnotationText+64 || !utf8.ValidString(lines[10]) { // escaping may triple a byte
		t.Errorf("long warning not clipped on a rune boundary: %d bytes", len(lines[10]))
	}
}

func TestReportAnnotations(t *testing.T) {
	t.Parallel()
	r := &report.Report{
		Checks: []report.Check{
			{ID: "tools/schema", Hard: false, Status: report.StatusFail, Title: "Tool schemas", Message: "weather: </details> @org/team ::set-output"},
			{ID: "lifecycle/discover", Hard: true, Status: report.StatusError, Message: "timed out"},
			{ID: "ok/check", Hard: true, Status: report.StatusPass},
		},
		Gate: &report.Gate{Passed: false, Reasons: []string{"conformance.passRate dropped 0.10"}},
	}
	got := ReportAnnotationsAt(r, Sources{})
	// The gate's reasons first: GitHub shows ten per level.
	want := []Annotation{
		{Level: LevelError, Title: "mcp-eval gate", Message: "conformance.passRate dropped 0.10"},
		{Level: LevelError, Title: "mcp-eval lifecycle/discover", Message: "timed out"},
		{Level: LevelWarning, Title: "mcp-eval tools/schema", Message: "Tool schemas: weather: </details> @org/team ::set-output"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("ReportAnnotations =\n%+v\nwant\n%+v", got, want)
	}
	r.Strict = true
	if got := ReportAnnotationsAt(r, Sources{}); got[2].Level != LevelError {
		t.Errorf("with strict, a SHOULD failure is %s, want error", got[2].Level)
	}
}

// Many failures: the regressions (what this change broke) and the gate's
// reasons stay within GitHub's ten per level; the cases point at their
// line in the golden file; control characters never reach the log.
func TestReportAnnotationsRegressionsFirst(t *testing.T) {
	t.Parallel()
	r := &report.Report{Gate: &report.Gate{Passed: false, Reasons: []string{"1 regression", "waiver old-timeout is stale"},
		Regressions: []report.GateItem{{Kind: "check", ID: "zz/broken-now"}, {Kind: "case", ID: "forecast-units", Model: "openai:m"}}}}
	for i := range 20 {
		r.Checks = append(r.Checks, report.Check{ID: fmt.Sprintf("aa/old-%02d", i), Hard: true, Status: report.StatusFail, Message: "still failing"})
	}
	r.Checks = append(r.Checks, report.Check{ID: "zz/broken-now", Hard: true, Status: report.StatusFail, Message: "tool \x1b[31mweather\x07 broke"})
	r.Cases = []report.Case{{ID: "forecast-units", Model: "openai:m", Status: report.StatusFail, Runs: 5, Passed: 1, Floor: 0.8, Failures: []string{"run 1: wrong tool"}}}
	anns := ReportAnnotationsAt(r, Sources{Golden: "golden/tasks.yaml", CaseLines: map[string]int{"forecast-units": 42}, Waivers: ".mcp-eval/waivers.yaml"})
	var b bytes.Buffer
	if err := WriteAnnotations(&b, anns); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"::error title=mcp-eval gate::1 regression",
		"::error file=.mcp-eval/waivers.yaml,title=mcp-eval gate::waiver old-timeout is stale",
		"::error title=mcp-eval zz/broken-now::tool [31mweather broke",
		"::error file=golden/tasks.yaml,line=42,title=mcp-eval case forecast-units::forecast-units with openai:m: passed 1 of 5 runs (floor 0.80); run 1: wrong tool",
		"more errors; the job summary lists them all",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("annotations lack %q:\n%s", want, out)
		}
	}
	if strings.ContainsAny(out, "\x1b\x07") {
		t.Error("control characters reached the log")
	}
}

func TestStopCommands(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	resume, err := StopCommands(&b)
	if err != nil {
		t.Fatal(err)
	}
	b.WriteString("::error::from the server\n")
	if err := resume(); err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`^::stop-commands::([0-9a-f]{32})\n::error::from the server\n::([0-9a-f]{32})::\n$`).FindStringSubmatch(b.String())
	if m == nil || m[1] != m[2] {
		t.Errorf("stop/resume = %q", b.String())
	}
}

func TestTruncateMarkdown(t *testing.T) {
	t.Parallel()
	note := "\n_cut_\n"
	tests := []struct {
		name, in string
		limit    int
		want     string
	}{
		{"fits", "short\n", 100, "short\n"},
		{"plain", "aaaa\nbbbb\ncccc\n" + strings.Repeat("d", 400), 300, "aaaa\nbbbb\ncccc\n" + note},
		{"open fence closed", "x\n~~~~ts\ncode\n" + strings.Repeat("c\n", 300), 300, "x\n~~~~ts\ncode\n"},
		{"closed fence not reclosed", "```\na\n```\n" + strings.Repeat("b\n", 300), 300, "```\na\n```\n"},
		{"details closed", "<details>\n<summary>s</summary>\n\n" + strings.Repeat("row\n", 300), 300, "<details>\n<summary>s</summary>\n\n"},
		{"details in code not counted", "```\n<details>\n```\n" + strings.Repeat("r\n", 300), 300, "```\n<details>\n```\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := truncateMarkdown(tt.in, tt.limit, utf8Cost, note)
			if len(got) > tt.limit {
				t.Errorf("%d bytes, over the limit %d", len(got), tt.limit)
			}
			if !strings.HasPrefix(got, tt.want) {
				t.Errorf("got %q, want prefix %q", got, tt.want)
			}
			if tt.name == "fits" {
				return
			}
			fence, details := openBlocks(strings.TrimSuffix(got, note))
			if fence != "" || details != 0 {
				t.Errorf("after truncation: open fence %q, %d open <details> in %q", fence, details, got)
			}
			if !strings.HasSuffix(got, note) {
				t.Errorf("no note: %q", got)
			}
		})
	}
}

func FuzzTruncateMarkdown(f *testing.F) {
	f.Add("```\nx\n<details>\n", 40)
	f.Add("<details>\n````\n```\n", 30)
	f.Fuzz(func(t *testing.T, s string, limit int) {
		if limit < 0 || limit > 1<<16 || !utf8.ValidString(s) {
			return
		}
		limit += 600 // room for the note and closers
		got := truncateMarkdown(s, limit, utf16Cost, commentNote)
		if cost(got, utf16Cost) > limit {
			t.Errorf("cost %d over limit %d", cost(got, utf16Cost), limit)
		}
		if !utf8.ValidString(got) {
			t.Error("invalid UTF-8")
		}
	})
}
