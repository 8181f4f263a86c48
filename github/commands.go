package github

import (
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	githubactions "github.com/sethvargo/go-githubactions"

	"github.com/mcp-eval/mcp-eval/internal/clip"
	"github.com/mcp-eval/mcp-eval/report"
)

// ReportOutputs builds the Action's outputs for a finished run. passed is
// the run's verdict (hard checks and gate); baselineURL is "" when there was
// no baseline. Scores absent from the report are left unset rather than
// written as 0, which a workflow would read as a real score.
func ReportOutputs(r *report.Report, passed bool, reportPath, summaryPath, baselineURL string) map[string]string {
	out := map[string]string{
		"passed":       strconv.FormatBool(passed),
		"report-path":  reportPath,
		"summary-path": summaryPath,
		"baseline-url": baselineURL,
	}
	if r == nil {
		return out
	}
	out["layers"] = strings.Join(r.Layers, ",")
	for _, o := range Outputs {
		if v, ok := r.Scores[o.Score]; ok && o.Score != "" {
			out[o.Name] = strconv.FormatFloat(v, 'f', 4, 64)
		}
	}
	return out
}

var outputName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)

// WriteOutputs appends outputs to the GITHUB_OUTPUT file, in key order,
// each in the heredoc form with a fresh random delimiter. go-githubactions'
// SetOutput uses a fixed delimiter, so a value that held that delimiter on a
// line of its own could end the value early and declare outputs of its own;
// a random one cannot be guessed by text from the server or the model.
func WriteOutputs(path string, outputs map[string]string) error {
	if path == "" {
		return errors.New("GITHUB_OUTPUT is not set: outputs can only be written inside a workflow")
	}
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(outputs)) {
		if !outputName.MatchString(k) {
			return fmt.Errorf("output name %q is not valid", k)
		}
		v := outputs[k]
		delim, err := delimiter()
		if err != nil {
			return err
		}
		// The runner refuses a value that contains its delimiter; so do we,
		// though with 128 random bits this cannot happen by accident.
		if strings.Contains(v, delim) {
			return fmt.Errorf("output %s: value contains the delimiter", k)
		}
		fmt.Fprintf(&b, "%s<<%s\n%s\n%s\n", k, delim, v, delim)
	}
	return appendFile(path, b.String())
}

func delimiter() (string, error) {
	var buf [16]byte
	if _, err := rand.Read(buf[:]); err != nil {
		return "", err
	}
	return "ghadelimiter_" + hex.EncodeToString(buf[:]), nil
}

// SummaryLimit is GitHub's limit on one step's job summary (1 MiB). Above it
// the summary is not shown at all, so AppendSummary truncates instead.
const SummaryLimit = 1 << 20

const summaryNote = "\n\n> [!WARNING]\n> The summary was cut to fit GitHub's 1 MiB limit for a step summary; the full report is in the report artifact.\n"

// AppendSummary appends Markdown to the GITHUB_STEP_SUMMARY file, cut (with
// code fences and <details> closed, and a note) so that the file stays
// under SummaryLimit.
func AppendSummary(path string, markdown []byte) error {
	if path == "" {
		return errors.New("GITHUB_STEP_SUMMARY is not set: the job summary can only be written inside a workflow")
	}
	var have int64
	if fi, err := os.Stat(path); err == nil {
		have = fi.Size()
	}
	room := SummaryLimit - int(have) - 1
	md := string(markdown)
	if !strings.HasSuffix(md, "\n") {
		md += "\n"
	}
	if room < len(summaryNote)+64 {
		return fmt.Errorf("job summary: the file already holds %d bytes, too close to GitHub's %d-byte limit", have, SummaryLimit)
	}
	md = truncateMarkdown(md, room, utf8Cost, summaryNote)
	return appendFile(path, md)
}

func appendFile(path, s string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(s)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Mask tells the runner to hide secret in all later log output. Each line
// is masked on its own because the runner matches masks within one line;
// go-githubactions escapes % and line breaks, which the runner undoes before
// it registers the mask.
func Mask(w io.Writer, secret string) error {
	for _, l := range strings.Split(strings.ReplaceAll(secret, "\r\n", "\n"), "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if err := command(w, "add-mask", nil, l); err != nil {
			return err
		}
	}
	return nil
}

// command writes one workflow command. go-githubactions' Command formats it
// with the runner's escaping (%, CR and LF in the data; also : and , in
// property values), which keeps untrusted text from ending the command
// early or starting a new one on a line of its own. Its Action methods are
// not used because they panic when the writer fails.
func command(w io.Writer, name string, props map[string]string, data string) error {
	c := &githubactions.Command{Name: name, Message: data, Properties: props}
	_, err := io.WriteString(w, c.String()+"\n")
	return err
}

// Annotation levels, as workflow command names.
const (
	LevelError   = "error"
	LevelWarning = "warning"
	LevelNotice  = "notice"
)

// Annotation is one error, warning or notice shown on the run and on the
// pull request.
type Annotation struct {
	Level   string // LevelError, LevelWarning or LevelNotice
	Title   string
	Message string
	File    string // optional: a path in the repository
	Line    int    // optional, with File
}

// AnnotationsPerLevel is how many annotations of one level GitHub shows per
// step; more are dropped silently, so WriteAnnotations says how many were
// left out instead.
const AnnotationsPerLevel = 10

// maxAnnotationText bounds a message; server text can be megabytes and an
// annotation is a pointer to the summary, not the summary.
const maxAnnotationText = 4096

// WriteAnnotations writes annotations as workflow commands, at most
// AnnotationsPerLevel per level: the last slot of a full level says how many
// more there are and points at the job summary, which lists all of them.
func WriteAnnotations(w io.Writer, anns []Annotation) error {
	byLevel := map[string][]Annotation{}
	var order []string
	for _, a := range anns {
		if _, ok := byLevel[a.Level]; !ok {
			order = append(order, a.Level)
		}
		byLevel[a.Level] = append(byLevel[a.Level], a)
	}
	for _, lvl := range order {
		list := byLevel[lvl]
		if len(list) > AnnotationsPerLevel {
			more := len(list) - (AnnotationsPerLevel - 1)
			list = append(list[:AnnotationsPerLevel-1:AnnotationsPerLevel-1], Annotation{
				Level:   lvl,
				Title:   "mcp-eval",
				Message: fmt.Sprintf("%d more %ss; the job summary lists them all.", more, lvl),
			})
		}
		for _, a := range list {
			if err := writeAnnotation(w, a); err != nil {
				return err
			}
		}
	}
	return nil
}

func writeAnnotation(w io.Writer, a Annotation) error {
	switch a.Level {
	case LevelError, LevelWarning, LevelNotice:
	default:
		return fmt.Errorf("annotation level %q is not error, warning or notice", a.Level)
	}
	props := map[string]string{}
	if t := stripControls(a.Title, false); t != "" {
		props["title"] = clip.Within(t, 256)
	}
	if f := stripControls(a.File, false); f != "" {
		props["file"] = f
		if a.Line > 0 {
			props["line"] = strconv.Itoa(a.Line)
		}
	}
	return command(w, a.Level, props, clip.Within(stripControls(a.Message, true), maxAnnotationText))
}

// Sources locates what a report's annotations point at: the golden file
// and the line of each case in it (tasks.Case.File/Line), and the waiver
// file. Zero values leave annotations without file=.
type Sources struct {
	Golden    string
	CaseLines map[string]int // case id → line in Golden
	Waivers   string
}

// ReportAnnotationsAt derives annotations from a report: an error for each
// reason the gate failed, then, regressions first, one for each check or
// case that fails: an error when it fails the run, a warning otherwise
// (SHOULD-level findings without --strict). GitHub shows ten per level, so
// the order is what survives: the gate's reasons and the regressions
// (what this change broke) before what failed already. Within a group the
// order follows the ids, so repeated runs annotate alike. Each carries
// file= (and line=) where src knows them: a case's line in the golden
// file, the waiver file for a waiver reason.
func ReportAnnotationsAt(r *report.Report, src Sources) []Annotation {
	var out []Annotation
	regressed := map[string]bool{}
	if g := r.Gate; g != nil {
		for _, it := range g.Regressions {
			regressed[it.Kind+"\x00"+it.ID+"\x00"+it.Model] = true
		}
		if !g.Passed {
			for _, reason := range g.Reasons {
				a := Annotation{Level: LevelError, Title: "mcp-eval gate", Message: reason}
				if src.Waivers != "" && strings.Contains(reason, "waiver") {
					a.File = src.Waivers
				}
				out = append(out, a)
			}
		}
	}
	var first, rest []Annotation
	add := func(a Annotation, regression bool) {
		if regression {
			first = append(first, a)
		} else {
			rest = append(rest, a)
		}
	}
	checks := slices.Clone(r.Checks)
	slices.SortStableFunc(checks, func(a, b report.Check) int { return strings.Compare(a.ID, b.ID) })
	for _, c := range checks {
		if c.Status.Failed() {
			add(checkAnnotation(c, r.Strict), regressed["check\x00"+c.ID+"\x00"])
		}
	}
	cases := slices.Clone(r.Cases)
	slices.SortStableFunc(cases, func(a, b report.Case) int {
		return cmp.Or(strings.Compare(a.ID, b.ID), strings.Compare(a.Model, b.Model))
	})
	for _, c := range cases {
		if c.Status.Failed() {
			reg := regressed["case\x00"+c.ID+"\x00"+c.Model]
			add(caseAnnotation(c, reg || r.Strict, src), reg)
		}
	}
	return append(append(out, first...), rest...)
}

// checkAnnotation is the annotation of a failed or errored check: an error
// when it fails the run, else a warning.
func checkAnnotation(c report.Check, strict bool) Annotation {
	lvl := LevelWarning
	if c.Failed(strict) {
		lvl = LevelError
	}
	msg := c.Message
	if c.Title != "" {
		msg = c.Title + ": " + msg
	}
	if msg == "" {
		msg = string(c.Status)
	}
	return Annotation{Level: lvl, Title: "mcp-eval " + c.ID, Message: msg}
}

// caseAnnotation is the annotation of a failed or errored golden case (an
// error when asError), placed at the case's line in the golden file.
func caseAnnotation(c report.Case, asError bool, src Sources) Annotation {
	lvl := LevelWarning
	if asError {
		lvl = LevelError
	}
	msg := fmt.Sprintf("%s with %s: passed %d of %d runs (floor %.2f)", c.ID, c.Model, c.Passed, c.Runs, c.Floor)
	if len(c.Failures) > 0 {
		msg += "; " + c.Failures[0]
	} else if len(c.Errors) > 0 {
		msg += "; " + c.Errors[0]
	}
	a := Annotation{Level: lvl, Title: "mcp-eval case " + c.ID, Message: msg}
	if src.Golden != "" {
		a.File = src.Golden
		// A resilience variant (id#fault-…) points at its golden case.
		base, _, _ := strings.Cut(c.ID, "#")
		a.Line = src.CaseLines[base]
	}
	return a
}

// stripControls removes C0 control characters and DEL, keeping line
// breaks and tabs when keepBreaks: a server's tool name or message must not
// move the runner's cursor or forge a line of the log.
func stripControls(s string, keepBreaks bool) string {
	return strings.Map(func(r rune) rune {
		if r == 0x7f || (r < 0x20 && !(keepBreaks && (r == '\n' || r == '\r' || r == '\t'))) {
			return -1
		}
		return r
	}, s)
}

// StopCommands makes the runner ignore workflow commands in the log until
// the returned function is called: for echoing server or model text, which
// could otherwise carry lines like "::add-mask::" or "::error::" of its own.
// The token is random so the echoed text cannot end the pause itself.
func StopCommands(w io.Writer) (resume func() error, err error) {
	var buf [16]byte
	if _, err := rand.Read(buf[:]); err != nil {
		return nil, err
	}
	token := hex.EncodeToString(buf[:])
	if err := command(w, "stop-commands", nil, token); err != nil {
		return nil, err
	}
	return func() error { return command(w, token, nil, "") }, nil
}
