package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-eval/mcp-eval/internal/clip"
)

// suiteSel selects one check of the conformance suite. Its ids are not
// unique: Name (the check's name) and Field (key=value on its details)
// tell apart checks that share an id.
type suiteSel struct {
	ID    string
	Name  string
	Field string
}

func (s suiteSel) String() string {
	out := s.ID
	if s.Name != "" {
		out += "[" + s.Name + "]"
	}
	if s.Field != "" {
		out += "{" + s.Field + "}"
	}
	return out
}

func (s suiteSel) matches(c suiteCheck) bool {
	if c.ID != s.ID || (s.Name != "" && c.Name != s.Name) {
		return false
	}
	if s.Field == "" {
		return true
	}
	k, v, _ := strings.Cut(s.Field, "=")
	var details map[string]any
	if json.Unmarshal(c.Details, &details) != nil {
		return false
	}
	got, ok := details[k].(string)
	return ok && got == v
}

// mapping pairs one mcp-eval check with one suite check that tests the same
// rule.
type mapping struct {
	Ours  string
	Suite suiteSel
}

// agreementMap lists the checks both tools make.
var agreementMap = func() []mapping {
	m := []mapping{
		{"discover/responds", suiteSel{ID: "sep-2575-server-implements-discover"}},
		{"discover/without-client-info", suiteSel{ID: "sep-2575-request-meta-client-info-optional"}},
	}
	for _, method := range []string{"tools-list", "prompts-list", "resources-list", "resources-templates-list", "resources-read"} {
		m = append(m, mapping{"caching/" + method, suiteSel{ID: "sep-2549-" + method + "-caching-hints"}})
	}
	for _, f := range []struct{ ours, suite string }{
		{"errors/missing-meta", "missing-meta"},
		{"errors/missing-meta-protocol-version", "missing-protocol-version"},
		{"errors/missing-meta-client-capabilities", "missing-client-capabilities"},
	} {
		m = append(m,
			mapping{f.ours, suiteSel{ID: "sep-2575-request-meta-invalid-" + f.suite}},
			mapping{f.ours, suiteSel{ID: "sep-2575-http-server-meta-invalid-400", Field: "fieldIssue=" + f.suite}})
	}
	m = append(m,
		mapping{"headers/protocol-version-mismatch", suiteSel{ID: "sep-2575-http-server-header-mismatch-400"}},
		mapping{"errors/unsupported-version", suiteSel{ID: "sep-2575-http-server-unsupported-version-400"}},
		mapping{"errors/unsupported-version-data", suiteSel{ID: "sep-2575-server-unsupported-version-error"}},
		mapping{"errors/removed-initialize", suiteSel{ID: "sep-2575-http-server-method-not-found-404-initialize"}},
		mapping{"errors/removed-ping", suiteSel{ID: "sep-2575-http-server-method-not-found-404-ping"}},
		mapping{"errors/removed-logging-set-level", suiteSel{ID: "sep-2575-http-server-method-not-found-404-logging-setlevel"}},
		mapping{"errors/removed-resources-subscribe", suiteSel{ID: "sep-2575-http-server-method-not-found-404-resources-subscribe"}},
		mapping{"errors/unknown-method", suiteSel{ID: "sep-2575-http-server-method-not-found-404"}},
		mapping{"errors/missing-client-capability", suiteSel{ID: "sep-2575-server-rejects-undeclared-capability"}},
		mapping{"errors/missing-client-capability", suiteSel{ID: "sep-2575-missing-capability-http-400"}},
		mapping{"errors/resource-not-found", suiteSel{ID: "sep-2164-no-empty-contents"}},
		mapping{"errors/resource-not-found", suiteSel{ID: "sep-2164-error-code"}},
	)
	// The suite's http-header-validation scenario (run, not yet scored):
	// each case has a status check and an error-code check.
	for _, h := range []struct{ ours, name string }{
		{"headers/method-mismatch", "ServerRejectsMismatchedMethodHeader"},
		{"headers/method-mismatch", "ServerRejectsCaseMismatchValue"},
		{"headers/missing-method", "ServerRejectsMissingMethodHeader"},
		{"headers/name-mismatch-tools-call", "ServerRejectsMismatchedNameHeader"},
		{"headers/missing-name-tools-call", "ServerRejectsMissingNameHeader"},
	} {
		m = append(m,
			mapping{h.ours, suiteSel{ID: "sep-2243-server-reject-invalid-headers", Name: h.name}},
			mapping{h.ours, suiteSel{ID: "sep-2243-server-reject-error-code", Name: h.name + "ErrorCode"}})
	}
	m = append(m,
		// Base64 header values: the suite decodes Mcp-Param-*, mcp-eval Mcp-Name.
		mapping{"headers/name-base64", suiteSel{ID: "sep-2243-server-decode-base64"}},
		// DNS rebinding: the suite's probe changes Host (and Origin); mcp-eval's
		// http/host-rejected changes Host only, http/origin-rejected Origin only.
		mapping{"http/host-rejected", suiteSel{ID: "localhost-host-rebinding-rejected"}},
	)
	return m
}()

// A disagreement is a known case where the two tools reach different
// verdicts on a server, with why. The test asserts it still happens.
type disagreement struct {
	Server      string
	Ours        string
	Suite       suiteSel
	OurStatus   string
	SuiteStatus string
	Reason      string
}

const (
	whyStatusOnly = "the suite checks only the HTTP status here, and a legacy server answers 400 " +
		"(-32000 \"Server not initialized\") to every sessionless request; mcp-eval skips 2026-07-28 rules " +
		"once era/modern failed"
	whyNotTestable = "the suite needs its fixture tool (test_missing_capability / a tool with x-mcp-header) " +
		"and scores its absence as FAILURE \"Not testable\"; "
)

var knownDisagreements = []disagreement{
	{Server: "go", Ours: "headers/name-base64", Suite: suiteSel{ID: "sep-2243-server-decode-base64"},
		OurStatus: "fail", SuiteStatus: "SUCCESS",
		Reason: "different probes: the suite base64-encodes a Mcp-Param-* value (go-sdk decodes those), mcp-eval " +
			"a Mcp-Name (go-sdk does not decode it, §1.5 says MUST); the suite has no Mcp-Name case"},
	{Server: "ts", Ours: "headers/name-base64", Suite: suiteSel{ID: "sep-2243-server-decode-base64"},
		OurStatus: "pass", SuiteStatus: "FAILURE",
		Reason: whyNotTestable + "mcp-eval's Mcp-Name probe needs no fixture"},
	{Server: "ts", Ours: "errors/missing-client-capability", Suite: suiteSel{ID: "sep-2575-server-rejects-undeclared-capability"},
		OurStatus: "skip", SuiteStatus: "FAILURE",
		Reason: whyNotTestable + "mcp-eval skips: no tool of this server needs a client capability"},
	{Server: "ts", Ours: "errors/missing-client-capability", Suite: suiteSel{ID: "sep-2575-missing-capability-http-400"},
		OurStatus: "skip", SuiteStatus: "FAILURE",
		Reason: whyNotTestable + "mcp-eval skips: no tool of this server needs a client capability"},
	{Server: "server-everything", Ours: "errors/missing-meta",
		Suite:     suiteSel{ID: "sep-2575-http-server-meta-invalid-400", Field: "fieldIssue=missing-meta"},
		OurStatus: "skip", SuiteStatus: "SUCCESS", Reason: whyStatusOnly},
	{Server: "server-everything", Ours: "errors/missing-meta-protocol-version",
		Suite:     suiteSel{ID: "sep-2575-http-server-meta-invalid-400", Field: "fieldIssue=missing-protocol-version"},
		OurStatus: "skip", SuiteStatus: "SUCCESS", Reason: whyStatusOnly},
	{Server: "server-everything", Ours: "errors/missing-meta-client-capabilities",
		Suite:     suiteSel{ID: "sep-2575-http-server-meta-invalid-400", Field: "fieldIssue=missing-client-capabilities"},
		OurStatus: "skip", SuiteStatus: "SUCCESS", Reason: whyStatusOnly},
	{Server: "server-everything", Ours: "errors/unsupported-version",
		Suite:     suiteSel{ID: "sep-2575-http-server-unsupported-version-400"},
		OurStatus: "skip", SuiteStatus: "SUCCESS", Reason: whyStatusOnly},
	{Server: "server-everything", Ours: "errors/resource-not-found", Suite: suiteSel{ID: "sep-2164-no-empty-contents"},
		OurStatus: "skip", SuiteStatus: "SUCCESS",
		Reason: "any error passes the suite's \"no empty contents\" check, -32000 \"Server not initialized\" included; " +
			"mcp-eval skips 2026-07-28 rules once era/modern failed"},
	{Server: "server-everything", Ours: "errors/resource-not-found", Suite: suiteSel{ID: "sep-2164-error-code"},
		OurStatus: "skip", SuiteStatus: "WARNING",
		Reason: "the suite scores the -32602 code as SHOULD (WARNING), though §1.9 says MUST; mcp-eval skips " +
			"2026-07-28 rules once era/modern failed"},
	{Server: "server-everything", Ours: "errors/unknown-method", Suite: suiteSel{ID: "sep-2575-http-server-method-not-found-404"},
		OurStatus: "pass", SuiteStatus: "FAILURE",
		Reason: "errors/unknown-method is a rule of both revisions: on a legacy server mcp-eval sends it inside " +
			"the server's initialize session and gets -32601, as 2025-11-25 requires; the suite sends it with " +
			"the 2026-07-28 envelope and no session and wants 404 (it gets 400/-32000)"},
	{Server: "server-everything", Ours: "http/host-rejected", Suite: suiteSel{ID: "localhost-host-rebinding-rejected"},
		OurStatus: "fail", SuiteStatus: "SUCCESS",
		Reason: "the suite takes any 4xx for a rejection, and server-everything answers its sessionless probe " +
			"400 \"Server not initialized\"; mcp-eval probes inside a session, where a foreign Host gets 200"},
}

// agreementServer is one server both tools run against.
type agreementServer struct {
	Key  string
	Spec func(deps) httpServerSpec
	Args []string // extra mcp-eval flags
}

var agreementServers = []agreementServer{
	// The Go server's safe tools are the suite's own fixtures, so that both
	// tools provoke -32021 with test_missing_capability (the elicitation
	// fixture, which breaks the MRTR capability rule, is left out here; see
	// goDeviations).
	{Key: "go", Spec: goEverythingHTTP, Args: []string{"--safe-tools", "test_missing_capability,test_x_mcp_header,test_simple_text"}},
	{Key: "ts", Spec: tsServerHTTP},
	{Key: "server-everything", Spec: serverEverythingHTTP},
}

// wallTimes keeps the Go server's timings of TestSuiteAgreement for
// TestWallTime.
var wallTimes struct {
	sync.Mutex
	set         bool
	eval, suite time.Duration
	checks      int
	suiteChecks int
}

// TestSuiteAgreement runs mcp-eval and the official conformance suite on the
// same servers and asserts that, on every rule both check, they reach the
// same verdict, except for the known disagreements (each with its reason).
func TestSuiteAgreement(t *testing.T) {
	d := requireDeps(t)
	for _, s := range agreementServers {
		t.Run(s.Key, func(t *testing.T) {
			srv := startHTTPServer(t, s.Spec(d))
			// mcp-eval first: the suite calls tools that change the Go
			// server's tool and prompt lists.
			run := runMCPEval(t, append([]string{"--server-url", srv.URL}, s.Args...)...)
			logRun(t, "mcp-eval "+s.Key, run)
			rep := run.mustReport(t)
			suite := runSuite(t, d, srv.URL)
			t.Logf("suite %s: exit %d, %d checks, wall %v", s.Key, suite.Exit, len(suite.Checks), suite.Wall.Round(time.Millisecond))
			if s.Key == "go" {
				wallTimes.Lock()
				wallTimes.set, wallTimes.eval, wallTimes.suite = true, run.Wall, suite.Wall
				wallTimes.checks, wallTimes.suiteChecks = len(rep.Checks), len(suite.Checks)
				wallTimes.Unlock()
			}
			compareVerdicts(t, s.Key, rep, suite.Checks)
		})
	}
}

func compareVerdicts(t *testing.T, server string, rep *report, suite []suiteCheck) {
	t.Helper()
	known := map[string]disagreement{}
	for _, k := range knownDisagreements {
		if k.Server == server {
			known[k.Ours+" "+k.Suite.String()] = k
		}
	}
	legacy := rep.Server.Era == "legacy"
	if c, ok := rep.check("era/modern"); legacy && (!ok || c.Status != "fail") {
		t.Errorf("server.era is legacy but era/modern did not fail: %s", c.describe())
		legacy = false
	}

	var table strings.Builder
	fmt.Fprintf(&table, "side by side on %s (era %s):\n  %s%s%s%s%s", server, rep.Server.Era,
		padRight("mcp-eval check", 40), padRight("ours", 6), padRight("suite check", 92), padRight("suite", 9), "verdict")
	seen := map[string]bool{}
	for _, m := range agreementMap {
		key := m.Ours + " " + m.Suite.String()
		ours, ok := rep.check(m.Ours)
		if !ok {
			t.Errorf("mcp-eval's report has no check %s (mapped to %s)", m.Ours, m.Suite)
			continue
		}
		var found []suiteCheck
		for _, c := range suite {
			if m.Suite.matches(c) {
				found = append(found, c)
			}
		}
		suiteStatus := "absent"
		switch {
		case len(found) > 1:
			t.Errorf("suite selector %s matches %d checks; make it narrower", m.Suite, len(found))
			continue
		case len(found) == 1:
			suiteStatus = found[0].Status
		case legacy:
			// The suite's scenarios stop early on a legacy server.
		default:
			t.Errorf("the suite did not report %s on %s (mapped to %s); has the suite changed its ids?", m.Suite, server, m.Ours)
		}

		verdict := ""
		k, isKnown := known[key]
		seen[key] = isKnown
		switch {
		case suiteStatus == "absent" || suiteStatus == "INFO":
			verdict = "not compared"
		case isKnown:
			if ours.Status == k.OurStatus && suiteStatus == k.SuiteStatus {
				verdict = "known disagreement"
			} else {
				verdict = "CHANGED"
				t.Errorf("%s: known disagreement %s (ours) vs %s (suite) no longer holds: recorded ours=%s suite=%s, now ours=%s suite=%s%s\n        reason recorded: %s\n        ours: %s",
					server, m.Ours, m.Suite, k.OurStatus, k.SuiteStatus, ours.Status, suiteStatus, suiteMessage(found), k.Reason, ours.describe())
			}
		case agrees(ours.Status, legacy, suiteStatus):
			verdict = "agree"
		default:
			verdict = "DISAGREE"
			t.Errorf("%s: mcp-eval and the suite disagree: %s is %s, suite %s is %s%s\n        ours: %s",
				server, m.Ours, ours.Status, m.Suite, suiteStatus, suiteMessage(found), ours.describe())
		}
		fmt.Fprintf(&table, "\n  %s%s%s%s%s", padRight(m.Ours, 40), padRight(ours.Status, 6), padRight(m.Suite.String(), 92),
			padRight(suiteStatus, 9), verdict)
	}
	t.Log(table.String())
	for key, k := range known {
		if !seen[key] {
			t.Errorf("%s: known disagreement %s vs %s is not in agreementMap", server, k.Ours, k.Suite)
		}
	}
}

// agrees is the verdict rule: SUCCESS ↔ pass, FAILURE ↔ fail (or error), and
// SKIPPED ↔ skip; a skip on a server found legacy (era/modern failed) counts
// as agreeing with a FAILURE. A WARNING never agrees with a check of ours:
// every mapped rule is a MUST.
func agrees(ours string, legacy bool, suite string) bool {
	switch suite {
	case "SUCCESS":
		return ours == "pass"
	case "FAILURE":
		return ours == "fail" || ours == "error" || (ours == "skip" && legacy)
	case "SKIPPED":
		return ours == "skip"
	}
	return false
}

func suiteMessage(found []suiteCheck) string {
	if len(found) != 1 || found[0].ErrorMessage == "" {
		return ""
	}
	return " (suite: " + clip.Bytes(sanitize(found[0].ErrorMessage), 300) + ")"
}

// TestWallTime logs how long mcp-eval and the suite take on the Go server.
// It asserts nothing: the benchmark with its bounds is bench/conformance.sh.
// It reuses TestSuiteAgreement's timings when that ran.
func TestWallTime(t *testing.T) {
	d := requireDeps(t)
	wallTimes.Lock()
	set, eval, suite, checks, suiteChecks := wallTimes.set, wallTimes.eval, wallTimes.suite, wallTimes.checks, wallTimes.suiteChecks
	wallTimes.Unlock()
	if !set {
		s := agreementServers[0]
		srv := startHTTPServer(t, s.Spec(d))
		run := runMCPEval(t, append([]string{"--server-url", srv.URL}, s.Args...)...)
		rep := run.mustReport(t)
		sr := runSuite(t, d, srv.URL)
		eval, suite, checks, suiteChecks = run.Wall, sr.Wall, len(rep.Checks), len(sr.Checks)
	}
	ratio := float64(suite) / float64(eval)
	t.Logf("wall time on the Go everything-server (HTTP, loopback): mcp-eval %v (%d checks, default --runs) vs conformance suite %v (%d check results); suite/mcp-eval = %.1fx",
		eval.Round(time.Millisecond), checks, suite.Round(time.Millisecond), suiteChecks, ratio)
}
