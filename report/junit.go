package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// The JUnit XML shape that test reporters (dorny/test-reporter,
// mikepenz/action-junit-report, GitLab, Jenkins) agree on.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr,omitempty"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Classname string        `xml:"classname,attr"`
	Name      string        `xml:"name,attr"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
	SystemOut *junitText    `xml:"system-out,omitempty"`
}

// Bodies are CDATA so that their line breaks stay readable; encoding/xml
// splits any "]]>" inside.
type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Body    string `xml:",cdata"`
}

type junitText struct {
	Text string `xml:",cdata"`
}

// text wraps s as a CDATA element body, nil when s is empty.
func text(s string) *junitText {
	if s == "" {
		return nil
	}
	return &junitText{Text: s}
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

// WriteJUnit writes junit.xml: one testsuite per check group (in the same
// order as the other renderers) and one named "cases" for the golden cases;
// one testcase per check (classname the group, name the id) and per case and
// model. Failures and errors that fail the run become <failure> and <error>
// with the message and evidence; a warning is a passing testcase with the
// finding in <system-out>, since a test reporter would otherwise fail the
// build on it. Characters that XML 1.0 forbids are dropped.
func WriteJUnit(w io.Writer, r *Report) error {
	r = normalized(r)
	doc := junitSuites{Name: "mcp-eval"}
	if r.DurationMs > 0 {
		doc.Time = fmt.Sprintf("%.3f", float64(r.DurationMs)/1000)
	}
	j := newJudge(r)
	for _, g := range groupChecks(r.Checks) {
		s := junitSuite{Name: xmlSafe(g.name)}
		for _, c := range g.checks {
			tc := checkTestcase(c, j.check(c))
			if reason, ok := j.waiver(c.ID); ok && tc.SystemOut != nil {
				tc.SystemOut.Text = xmlSafe("waived: "+oneLine(reason, 0)+"\n") + tc.SystemOut.Text
			}
			s.add(tc)
		}
		doc.add(s)
	}
	if len(r.Cases) > 0 {
		s := junitSuite{Name: "cases"}
		for _, c := range r.Cases {
			tc := caseTestcase(c, j.kase(c))
			if reason, ok := j.waiver(c.Key()); ok && tc.SystemOut != nil {
				tc.SystemOut.Text = xmlSafe("waived: "+oneLine(reason, 0)+"\n") + tc.SystemOut.Text
			}
			s.add(tc)
		}
		doc.add(s)
	}
	b, err := xml.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	out := append([]byte(xml.Header), b...)
	out = append(out, '\n')
	_, err = w.Write(out)
	return err
}

func (s *junitSuite) add(c junitCase) {
	s.Tests++
	switch {
	case c.Failure != nil:
		s.Failures++
	case c.Error != nil:
		s.Errors++
	case c.Skipped != nil:
		s.Skipped++
	}
	s.Cases = append(s.Cases, c)
}

func (d *junitSuites) add(s junitSuite) {
	d.Tests += s.Tests
	d.Failures += s.Failures
	d.Errors += s.Errors
	d.Skipped += s.Skipped
	d.Suites = append(d.Suites, s)
}

func checkTestcase(c Check, oc outcome) junitCase {
	tc := junitCase{Classname: xmlSafe(groupName(c)), Name: xmlSafe(c.ID)}
	switch oc {
	case outFail:
		tc.Failure = &junitProblem{Message: xmlSafe(c.Message), Type: xmlSafe(oneLine(string(c.Level), 0)), Body: checkBody(c)}
	case outError:
		tc.Error = &junitProblem{Message: xmlSafe(c.Message), Type: xmlSafe(oneLine(string(c.Level), 0)), Body: checkBody(c)}
	case outSkip:
		tc.Skipped = &junitSkipped{Message: xmlSafe(c.Message)}
	case outSoftError:
		tc.SystemOut = text("error (" + xmlSafe(oneLine(string(c.Level), 0)) + ", not a hard check, does not fail the run): " + checkBody(c))
	case outWarn:
		if c.Hard {
			tc.SystemOut = text("waived failure (" + xmlSafe(oneLine(string(c.Level), 0)) + "): " + checkBody(c))
		} else {
			tc.SystemOut = text("warning (" + xmlSafe(oneLine(string(c.Level), 0)) + ", not a hard check): " + checkBody(c))
		}
	default:
		if c.Info != "" {
			tc.SystemOut = text("info: " + xmlSafe(oneLine(c.Info, 0)))
		}
	}
	return tc
}

// checkBody is the text of a finding: the message on one line (so server
// text cannot start a line of the log it may be printed to), the runs, the
// spec reference, the info and the evidence, pretty-printed.
func checkBody(c Check) string {
	var b strings.Builder
	b.WriteString(oneLine(c.Message, 0))
	if c.Runs > 1 {
		fmt.Fprintf(&b, "\nruns: %d/%d passed", c.Passed, c.Runs)
	}
	if c.SpecRef != "" {
		b.WriteString("\nspec: " + oneLine(c.SpecRef, 0))
	}
	if c.Info != "" {
		b.WriteString("\ninfo: " + oneLine(c.Info, 0))
	}
	if hasEvidence(c.Evidence) {
		b.WriteString("\nevidence:\n" + indentEvidence(c.Evidence))
	}
	return xmlSafe(b.String())
}

func caseTestcase(c Case, oc outcome) junitCase {
	tc := junitCase{Classname: "cases", Name: xmlSafe(c.ID + " [" + c.Model + "]")}
	msg := caseVerdictText(c)
	if c.Errored > 0 {
		msg += fmt.Sprintf(", %d errored", c.Errored)
	}
	body := msg + "\nkind: " + oneLine(c.Kind, 0)
	for _, s := range []struct {
		name string
		v    *float64
	}{{"selection", c.Selection}, {"arguments", c.Arguments}, {"sequence", c.Sequence}, {"answer", c.Answer}, {"judge", c.Judge}} {
		if s.v != nil {
			body += "\n" + s.name + ": " + score(*s.v)
		}
	}
	// Why: every failed and errored run's reason, and where its
	// transcript is, so a person reads it in the test reporter.
	for _, f := range c.Failures {
		body += "\nfailed " + oneLine(f, 0)
	}
	for _, e := range c.Errors {
		body += "\nerrored " + oneLine(e, 0)
	}
	for _, p := range c.Transcripts {
		body += "\ntranscript: " + oneLine(p, 0)
	}
	// The message leads with the first reason: it is what reporters show.
	if why := firstReason(c); why != "" {
		msg += ": " + why
	}
	body = xmlSafe(body)
	switch oc {
	case outFail:
		tc.Failure = &junitProblem{Message: xmlSafe(oneLine(msg, 500)), Type: xmlSafe(oneLine(c.Kind, 0)), Body: body}
	case outError:
		tc.Error = &junitProblem{Message: xmlSafe(oneLine(msg, 500)), Type: xmlSafe(oneLine(c.Kind, 0)), Body: body}
	case outSkip:
		skip := msg
		if c.Skipped != "" {
			skip = c.Skipped
		}
		tc.Skipped = &junitSkipped{Message: xmlSafe(oneLine(skip, 500))}
	case outWarn:
		// A case below its floor always counts; only a waiver makes it a
		// warning.
		tc.SystemOut = text("waived failure: " + body)
	}
	return tc
}

// xmlSafe drops the characters XML 1.0 does not allow (most C0 controls,
// surrogates, U+FFFE and U+FFFF) and bidi controls, turns the Unicode line
// separators into spaces, and replaces invalid UTF-8 with U+FFFD;
// encoding/xml escapes the rest.
func xmlSafe(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
			return r
		case r == '\u0085' || r == '\u2028' || r == '\u2029':
			return ' '
		case r < 0x20 || isBidiControl(r):
			return -1
		case r >= 0xD800 && r <= 0xDFFF, r == 0xFFFE, r == 0xFFFF:
			return -1
		case r > utf8.MaxRune:
			return -1
		}
		return r
	}, s)
}

// firstReason is the first failed or errored run's reason, "" for none.
func firstReason(c Case) string {
	if len(c.Failures) > 0 {
		return c.Failures[0]
	}
	if len(c.Errors) > 0 {
		return c.Errors[0]
	}
	return ""
}
