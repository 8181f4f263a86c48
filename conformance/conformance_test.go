package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mcp-eval/mcp-eval/engine/wire"
	"github.com/mcp-eval/mcp-eval/internal/canon"
	"github.com/mcp-eval/mcp-eval/internal/mcptest"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/report"
)

// TestMain lets the test binary serve the fixture on stdio
// (mcptest.StdioCommand).
func TestMain(m *testing.M) { mcptest.Main(m) }

func stdioTarget(t testing.TB, defects string, legacy bool) mcp.Target {
	return stdioFixture(t, mcptest.Options{Defects: mcptest.ParseDefects(defects), Legacy: legacy})
}

// stdioFixture runs the fixture with fo as a stdio server, one process per
// connection.
func stdioFixture(t testing.TB, fo mcptest.Options) mcp.Target {
	argv, env := mcptest.StdioCommand(t, fo)
	return &mcp.CommandTarget{Command: mcp.Command{Argv: argv, Env: env}}
}

// observe attaches rec to target's transports, as the pipeline does.
func observe(target mcp.Target, rec *wire.Recorder) {
	switch t := target.(type) {
	case *mcp.HTTPTarget:
		t.Observer = rec
	case *mcp.CommandTarget:
		t.Command.Observer = rec
	}
}

// evaluate runs every check once against the fixture with the given
// defects, over HTTP or stdio.
func evaluate(t testing.TB, transport, defects string, legacy bool, opts Options) (*Result, *mcptest.Server) {
	return evaluateWith(t, transport, defects, legacy, opts, 0)
}

func evaluateWith(t testing.TB, transport, defects string, legacy bool, opts Options, maxConns int) (*Result, *mcptest.Server) {
	t.Helper()
	return evaluateFixture(t, transport, mcptest.Options{Defects: mcptest.ParseDefects(defects), Legacy: legacy}, opts, maxConns)
}

// evaluateFixture runs the checks against a fixture with options fo, which
// serves the tasks, MCP Apps and Skills extensions too; over HTTP a second instance
// of it is the run's replica.
func evaluateFixture(t testing.TB, transport string, fo mcptest.Options, opts Options, maxConns int) (*Result, *mcptest.Server) {
	t.Helper()
	fo.Tasks, fo.Apps, fo.Skills = true, true, true
	if opts.Traces == nil && fo.Traces == "" {
		// The fixture exports its spans to the run's OTLP receiver
		// (the trace checks).
		opts.Traces = traceReceiver(t)
		fo.Traces = opts.Traces.Endpoint()
	}
	var target mcp.Target
	var srv *mcptest.Server
	if transport == "http" {
		srv = mcptest.NewHandler(fo)
		hs := httptest.NewServer(srv)
		t.Cleanup(hs.Close)
		ht := &mcp.HTTPTarget{URL: hs.URL + "/mcp"}
		// A second instance of the same fixture: a replica behind the
		// same name for surface/replicas.
		rs := httptest.NewServer(mcptest.NewHandler(fo))
		t.Cleanup(rs.Close)
		opts.Replicas = append(opts.Replicas, Replica{HTTPTarget: &mcp.HTTPTarget{URL: rs.URL + "/mcp"}})
		if maxConns > 0 {
			ht.Client = mcp.NewHTTPClient()
			ht.Client.Transport.(*http.Transport).MaxConnsPerHost = maxConns
		}
		target = ht
	} else {
		target = stdioFixture(t, fo)
	}
	if opts.Wire == nil {
		opts.Wire = wire.NewRecorder()
	}
	observe(target, opts.Wire)
	ctx := context.Background()
	// Generous for a loaded machine under -race: one run's listing is
	// shared by many checks, so one slow answer would fail them all. The
	// start-up budget is the CLI's default (--start-timeout 1m): without
	// one, a fresh stdio process for a check of its own had only the
	// request timeout for its first answer. Beside 24 CPU-bound processes
	// a stdio subscriptions/listen went unanswered for 4 s; 10 s leaves
	// room (a check waits it out only on a defect that never answers).
	copts := mcp.Options{Timeout: 10 * time.Second, StartTimeout: time.Minute}
	if opts.Version == mcp.LegacyVersion {
		copts.Version = mcp.LegacyVersion
	}
	c, err := mcp.Connect(ctx, target, copts)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	if opts.Runs == 0 {
		opts.Runs = 1
	}
	res, err := Run(ctx, c, opts)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return res, srv
}

func byID(res *Result) map[string]report.Check {
	m := map[string]report.Check{}
	for _, c := range res.Checks {
		m[c.ID] = c
	}
	return m
}

// notOnFixture lists checks the fixture cannot make fail through a defect,
// with the reason; every other check must have one.
var notOnFixture = map[string]string{
	"era/modern":           "fails on a legacy server: TestLegacyServer",
	"era/legacy-handshake": "passes or fails with Legacy mode: TestLegacyServer",
}

func TestCleanFixturePasses(t *testing.T) {
	for _, transport := range []string{"http", "stdio"} {
		t.Run(transport, func(t *testing.T) {
			res, srv := evaluate(t, transport, "", false, Options{Runs: 2})
			for _, c := range res.Checks {
				if c.Status == report.StatusFail || c.Status == report.StatusError {
					t.Errorf("%s: %s: %s\n%s", c.ID, c.Status, c.Message, c.Evidence)
				}
				if c.Status == report.StatusSkip && transportOK(c.ID, transport) && c.ID != "era/legacy-handshake" && c.ID != "completion/complete" && !strings.HasPrefix(c.ID, "auth/") {
					t.Errorf("%s skipped on the clean fixture: %s", c.ID, c.Message)
				}
			}
			if srv != nil {
				if n := srv.Calls()["delete_everything"]; n != 0 {
					t.Errorf("the destructive tool was executed %d times; probes must never call it", n)
				}
			}
		})
	}
}

// TestEscapingEncoderPasses runs every check against a server whose JSON
// encoder escapes non-ASCII ("\u00fc" for "ü", Python's json.dumps
// default): the same JSON values, so nothing may fail (measured before the fix: the string
// id echo was compared as bytes).
func TestEscapingEncoderPasses(t *testing.T) {
	for _, transport := range []string{"http", "stdio"} {
		t.Run(transport, func(t *testing.T) {
			res, _ := evaluateFixture(t, transport, mcptest.Options{EscapeNonASCII: true}, Options{}, 0)
			for _, c := range res.Checks {
				if c.Status == report.StatusFail || c.Status == report.StatusError {
					t.Errorf("%s: %s: %s\n%s", c.ID, c.Status, c.Message, c.Evidence)
				}
			}
			if c := byID(res)["jsonrpc/id-echo-string"]; c.Status != report.StatusPass {
				t.Errorf("jsonrpc/id-echo-string: %s, want pass", c.Status)
			}
		})
	}
}

// transportOK reports whether a check applies to the transport.
func transportOK(id, transport string) bool {
	for _, c := range Checks() {
		if c.ID == id {
			return c.Transport == "" || c.Transport == transport
		}
	}
	return false
}

// TestEachCheckFailsOnItsDefect switches on one defect at a time and shows
// that the check it exists for fails, and that the others that fail with
// it are exactly those the defect declares (mcptest.Expect, beside the
// defect's code): a new check and its defect need no list here.
func TestEachCheckFailsOnItsDefect(t *testing.T) {
	defects := map[string]bool{}
	for _, d := range mcptest.Defects {
		defects[d] = true
	}
	for _, ch := range Checks() {
		ch := ch
		if reason, ok := notOnFixture[ch.ID]; ok {
			t.Logf("%s: %s", ch.ID, reason)
			continue
		}
		if !defects[ch.ID] {
			t.Errorf("%s: the fixture has no defect for it", ch.ID)
			continue
		}
		exp := mcptest.Expected(ch.ID)
		for _, transport := range []string{"http", "stdio"} {
			if ch.Transport != "" && ch.Transport != transport {
				continue
			}
			if exp.HTTPOnly != "" && transport == "stdio" {
				continue
			}
			t.Run(ch.ID+"/"+transport, func(t *testing.T) {
				t.Parallel()
				conns, opts, defect := 0, Options{}, ch.ID
				if exp.OneConnection && transport == "http" {
					conns, opts.Only = 1, []string{ch.ID}
				}
				if exp.StdioDefect != "" && transport == "stdio" {
					defect = exp.StdioDefect
				}
				var res *Result
				var srv *mcptest.Server
				if ch.ID == "auth/no-token-passthrough" {
					// The defect forwards to an upstream: the run's
					// listener.
					res = evaluateAuthPassthrough(t, defect, nil)
				} else if ch.ID == "auth/mcp-authorization" {
					// The finding needs a run without an OAuth client,
					// reaching the server with a static credential.
					res = evaluateAuthStatic(t, defect)
				} else if ch.Group() == "auth" {
					// A protected fixture, an OAuth client of its
					// authorization server (short-lived tokens for the
					// expiry check).
					res = evaluateAuth(t, defect, 2*time.Second, opts)
				} else {
					res, srv = evaluateWith(t, transport, defect, false, opts, conns)
				}
				got := byID(res)[ch.ID]
				if got.Status != report.StatusFail {
					t.Fatalf("%s: status %s (%s), want fail", ch.ID, got.Status, got.Message)
				}
				if got.Message == "" {
					t.Errorf("%s fails without a message", ch.ID)
				}
				var others []string
				why := map[string]string{} // what each other check said, for the failure's message
				for _, c := range res.Checks {
					if c.ID != ch.ID && (c.Status == report.StatusFail || c.Status == report.StatusError) {
						others = append(others, c.ID)
						why[c.ID] = string(c.Status) + ": " + c.Message
					}
				}
				sort.Strings(others)
				// The checks the defect declares it breaks too
				// (mcptest.Expect), those of them that run here.
				var want []string
				for _, id := range exp.AlsoFails(transport) {
					if id == "*" || transportOK(id, transport) || (transport == "stdio" && exp.Stdio != nil) {
						want = append(want, id)
					}
				}
				if len(want) == 1 && want[0] == "*" {
					return
				}
				if strings.Join(others, ",") != strings.Join(want, ",") {
					t.Errorf("defect %s also failed %v, want %v\n%v", ch.ID, others, want, why)
				}
				if srv != nil && srv.Calls()["delete_everything"] != 0 {
					t.Error("the destructive tool was executed")
				}
			})
		}
	}
}

// TestBadBodyThatKills: over HTTP, a bad body that kills the server or is
// never answered is no pass: the request errors (no answer to judge), and
// with the process-level defects of Expect.StdioDefect over stdio it fails.
func TestBadBodyThatKills(t *testing.T) {
	t.Parallel()
	for _, ch := range Checks() {
		id, defect := ch.ID, mcptest.Expected(ch.ID).StdioDefect
		if defect == "" {
			continue
		}
		t.Run(defect, func(t *testing.T) {
			t.Parallel()
			res, _ := evaluateWith(t, "http", defect, false, Options{Only: []string{id}, Runs: 1}, 0)
			if got := byID(res)[id]; got.Status != report.StatusError && got.Status != report.StatusFail {
				t.Errorf("%s under %s: %s (%s), want an error or a failure", id, defect, got.Status, got.Message)
			}
		})
	}
}

// TestLegacyEndpointFromDiscover: a server that answers server/discover
// but does not list 2026-07-28 (what the Go SDK's stateful HTTP handler
// does) is a legacy endpoint for this revision: era/modern fails with the
// migration list and a hint, and the 2026-07-28 checks are skipped with
// that reason rather than failing one by one.
func TestLegacyEndpointFromDiscover(t *testing.T) {
	for _, transport := range []string{"http", "stdio"} {
		t.Run(transport, func(t *testing.T) {
			res, checks := evaluateLegacy(t, transport, "discover/supported-versions", false)
			c := checks["era/modern"]
			if c.Status != report.StatusFail || !strings.Contains(c.Message, "does not serve 2026-07-28") || !strings.Contains(c.Message, "Likely cause") {
				t.Errorf("era/modern: %s %q", c.Status, c.Message)
			}
			if transport == "http" && !strings.Contains(c.Message, "Stateless: true") {
				t.Errorf("era/modern over HTTP does not name the Go SDK's fix: %q", c.Message)
			}
			if len(res.Migration) < 5 || !strings.HasPrefix(res.Migration[0], "Likely cause") {
				t.Errorf("migration list %v", res.Migration)
			}
			for _, id := range []string{"caching/tools-list", "headers/missing-method", "errors/removed-ping"} {
				if !transportOK(id, transport) {
					continue
				}
				if c := checks[id]; c.Status != report.StatusSkip || !strings.Contains(c.Message, "does not serve 2026-07-28") {
					t.Errorf("%s: %s %q, want skipped as a legacy endpoint", id, c.Status, c.Message)
				}
			}
			if c := checks["discover/supported-versions"]; c.Status != report.StatusFail {
				t.Errorf("discover/supported-versions: %s", c.Status)
			}
		})
	}
}

// TestFreshConnectionComparesDefinitions: a tool whose description differs
// on a new connection (same names) fails ordering/tools-list-fresh-connection,
// which compares the canonical definitions, not the names.
func TestFreshConnectionComparesDefinitions(t *testing.T) {
	for _, transport := range []string{"http", "stdio"} {
		t.Run(transport, func(t *testing.T) {
			conns, opts := 0, Options{}
			if transport == "http" {
				conns, opts.Only = 1, []string{"ordering/tools-list-fresh-connection"}
			}
			res, _ := evaluateWith(t, transport, mcptest.DefectFreshDescription, false, opts, conns)
			c := byID(res)["ordering/tools-list-fresh-connection"]
			if c.Status != report.StatusFail || !strings.Contains(c.Message, "defined differently: get_forecast") {
				t.Errorf("%s %q, want fail naming get_forecast", c.Status, c.Message)
			}
			if !strings.Contains(string(c.Evidence), "worded otherwise") {
				t.Errorf("evidence does not show the new definition: %s", c.Evidence)
			}
		})
	}
}

// TestEveryPageIsChecked: a server that drops ttlMs from page 26 of
// tools/list fails caching/tools-list, and a correct server of 30 pages
// passes every check (measured before the fix: only the first 20 pages were read).
func TestEveryPageIsChecked(t *testing.T) {
	res, _ := evaluateFixture(t, "http", mcptest.Options{ExtraTools: 60, Defects: mcptest.ParseDefects(mcptest.DefectLatePageTTL)}, Options{}, 0)
	c := byID(res)["caching/tools-list"]
	if c.Status != report.StatusFail || !strings.Contains(c.Message, "page 26") {
		t.Errorf("caching/tools-list: %s %q, want a failure on page 26", c.Status, c.Message)
	}
	// The page's evidence counts its items rather than quoting them: a
	// walk keeps the evidence of every page.
	if ev := string(c.Evidence); !strings.Contains(ev, `(2 items, not shown)`) || strings.Contains(ev, `"inputSchema"`) || !strings.Contains(ev, `"nextCursor"`) {
		t.Errorf("caching/tools-list evidence %s", ev)
	}
	res, _ = evaluateFixture(t, "http", mcptest.Options{ExtraTools: 60}, Options{}, 0)
	for _, c := range res.Checks {
		// 64 tools cost more tokens than the lint's budget: a warning, not
		// a fault.
		if (c.Status == report.StatusFail || c.Status == report.StatusError) && c.ID != "lint/token-footprint" {
			t.Errorf("%s on a correct 32-page server: %s %s", c.ID, c.Status, c.Message)
		}
	}
}

// TestCursorLoopEnds: a tools/list whose cursor leads back to its own page
// is reported as a loop by the checks that walk it, and the run ends.
func TestCursorLoopEnds(t *testing.T) {
	res, _ := evaluateFixture(t, "http", mcptest.Options{Defects: mcptest.ParseDefects(mcptest.DefectCursorLoop)}, Options{}, 0)
	checks := byID(res)
	if c := checks["caching/tools-list"]; c.Status != report.StatusFail || !strings.Contains(c.Message, "never ends") {
		t.Errorf("caching/tools-list: %s %q", c.Status, c.Message)
	}
	if c := checks["schema/input-schema-valid"]; c.Status != report.StatusError || !strings.Contains(c.Message, "never ends") {
		t.Errorf("schema/input-schema-valid: %s %q", c.Status, c.Message)
	}
}

// TestCompletionDeclared: with completions declared, completion/complete
// passes on a correct server (the clean fixture leaves completions
// undeclared so that errors/capability-gated-method has a method to probe,
// which then skips here).
func TestCompletionDeclared(t *testing.T) {
	for _, transport := range []string{"http", "stdio"} {
		t.Run(transport, func(t *testing.T) {
			res, _ := evaluateFixture(t, transport, mcptest.Options{Completions: true}, Options{}, 0)
			checks := byID(res)
			if c := checks["completion/complete"]; c.Status != report.StatusPass {
				t.Errorf("completion/complete: %s %q", c.Status, c.Message)
			}
			if c := checks["errors/capability-gated-method"]; c.Status != report.StatusSkip {
				t.Errorf("errors/capability-gated-method: %s %q, want skip (every capability declared)", c.Status, c.Message)
			}
			for _, c := range res.Checks {
				if c.Status == report.StatusFail || c.Status == report.StatusError {
					t.Errorf("%s: %s %s", c.ID, c.Status, c.Message)
				}
			}
		})
	}
}

// evaluateLegacy evaluates the fixture with defects over transport (as a
// 2025-11-25 server when legacy is set), wants the run to find a legacy
// endpoint, and returns the result and its checks by id.
func evaluateLegacy(t *testing.T, transport, defects string, legacy bool) (*Result, map[string]report.Check) {
	t.Helper()
	res, _ := evaluate(t, transport, defects, legacy, Options{})
	if res.Era != mcp.EraLegacy {
		t.Fatalf("era %s, want legacy", res.Era)
	}
	return res, byID(res)
}

func TestLegacyServer(t *testing.T) {
	for _, transport := range []string{"http", "stdio"} {
		t.Run(transport, func(t *testing.T) {
			res, checks := evaluateLegacy(t, transport, "", true)
			if c := checks["era/modern"]; c.Status != report.StatusFail || !strings.Contains(c.Message, "2025-11-25") {
				t.Errorf("era/modern: %s %q", c.Status, c.Message)
			}
			if c := checks["discover/responds"]; c.Status != report.StatusFail {
				t.Errorf("discover/responds: %s", c.Status)
			}
			if c := checks["caching/tools-list"]; c.Status != report.StatusSkip {
				t.Errorf("caching/tools-list on a legacy server: %s, want skip", c.Status)
			}
			if len(res.Migration) < 5 {
				t.Errorf("migration list %v", res.Migration)
			}
			if c := checks["schema/input-schema-valid"]; c.Status != report.StatusPass {
				t.Errorf("schema checks should run over the legacy session: %s %s", c.Status, c.Message)
			}
		})
		t.Run(transport+"/--protocol-version 2025-11-25", func(t *testing.T) {
			res, _ := evaluate(t, transport, "", true, Options{Version: mcp.LegacyVersion})
			for _, c := range res.Checks {
				if c.Status == report.StatusFail || c.Status == report.StatusError {
					t.Errorf("%s: %s %s", c.ID, c.Status, c.Message)
				}
			}
			if c := byID(res)["era/legacy-handshake"]; c.Status != report.StatusPass {
				t.Errorf("era/legacy-handshake: %s", c.Status)
			}
			if c := byID(res)["caching/tools-list"]; c.Status != report.StatusSkip || !strings.Contains(c.Message, "2025-11-25") {
				t.Errorf("caching/tools-list: %s %q", c.Status, c.Message)
			}
		})
	}
}

// TestBadServers shows that a server that hangs, answers garbage, streams
// without end, answers with the wrong id or crashes yields failed or
// errored checks within the timeouts, never a hang or a panic.
func TestBadServers(t *testing.T) {
	for _, tt := range []struct{ defect, transport string }{
		{"hang", "http"}, {"garbage", "http"}, {"huge", "http"}, {"wrong-id", "http"},
		{"hang", "stdio"}, {"garbage", "stdio"}, {"crash", "stdio"}, {"wrong-id", "stdio"},
	} {
		t.Run(tt.defect+"/"+tt.transport, func(t *testing.T) {
			t.Parallel()
			var target mcp.Target
			if tt.transport == "http" {
				hs := mcptest.Serve(t, mcptest.Options{Defects: mcptest.ParseDefects(tt.defect)})
				target = &mcp.HTTPTarget{URL: hs.URL, MaxBytes: 1 << 20}
			} else {
				target = stdioTarget(t, tt.defect, false)
			}
			start := time.Now()
			ctx := context.Background()
			// The start-up budget covers a process start on a loaded machine,
			// as --start-timeout does; the short timeout covers each answer.
			c, err := mcp.Connect(ctx, target, mcp.Options{Timeout: 500 * time.Millisecond, StartTimeout: 60 * time.Second})
			if err != nil {
				t.Fatalf("Connect: %v", err)
			}
			defer c.Close()
			res, err := Run(ctx, c, Options{Runs: 1, Only: []string{"ordering", "schema", "lint/tool-name-unique", "result-type/tools-list"}})
			if err != nil {
				t.Fatal(err)
			}
			bad := 0
			for _, ch := range res.Checks {
				if ch.Status == report.StatusFail || ch.Status == report.StatusError {
					bad++
					if ch.Message == "" {
						t.Errorf("%s: %s without a message", ch.ID, ch.Status)
					}
				}
			}
			if bad == 0 {
				t.Errorf("no check failed against a %s server: %v", tt.defect, summary(res))
			}
			if d := time.Since(start); d > 120*time.Second { // a hang guard, wide for a loaded machine
				t.Errorf("took %v", d)
			}
		})
	}
}

func summary(res *Result) string {
	var b strings.Builder
	for _, c := range res.Checks {
		fmt.Fprintf(&b, "%s=%s ", c.ID, c.Status)
	}
	return b.String()
}

func TestSafety(t *testing.T) {
	// With every tool declared safe except the destructive one, the
	// destructive one is still never called.
	res, srv := evaluate(t, "http", "", false, Options{SafeTools: []string{"get_forecast"}})
	if len(res.Checks) == 0 {
		t.Fatal("no checks")
	}
	if n := srv.Calls()["delete_everything"]; n != 0 {
		t.Fatalf("delete_everything executed %d times", n)
	}
}

func TestSameJSON(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{`"mcp-eval-1-ü"`, `"mcp-eval-1-\u00fc"`, true},
		{`"mcp-eval-1-ü"`, `"mcp-eval-1-\u00FC"`, true},
		{`"😀"`, `"\ud83d\ude00"`, true},
		{`7`, `7`, true},
		{`7`, ` 7 `, true},
		{`7`, `7.0`, true},
		{`7`, `7e0`, true},
		{`7`, `"7"`, false},
		{`"7"`, `7`, false},
		{`7`, `8`, false},
		{`null`, `null`, true},
		{`null`, `0`, false},
		{`{"a":[1,"x"]}`, `{ "a" : [1, "\u0078"] }`, true},
		{`{"a":1}`, `{"a":1,"b":2}`, false},
		{`[1,2]`, `[2,1]`, false},
		{`"a"`, `"a" "b"`, false},
		{`"a"`, `not json`, false},
		{``, ``, false},
	}
	for _, tt := range tests {
		if got := canon.EqualJSON([]byte(tt.a), []byte(tt.b)); got != tt.want {
			t.Errorf("canon.EqualJSON(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

// TestMessagesSayWhatCameBack: a failure names the status, content type and
// first bytes of a non-JSON-RPC answer, and never wants "HTTP 0".
func TestMessagesSayWhatCameBack(t *testing.T) {
	x := &mcp.Exchange{Status: 400, ContentType: "text/plain", Body: []byte("JSON RPC not handled: \"probe\" unsupported\n")}
	for _, e := range []*Env{{kind: "http"}, {kind: "stdio"}} {
		o := e.expectError(x, nil, "probe", e.httpStatus(404), mcp.CodeMethodNotFound)
		if o.Status != report.StatusFail || !strings.Contains(o.Message, "HTTP 400") || !strings.Contains(o.Message, "text/plain") ||
			!strings.Contains(o.Message, "JSON RPC not handled") || strings.Contains(o.Message, "HTTP 0") {
			t.Errorf("%s: %s %q", e.kind, o.Status, o.Message)
		}
	}
	if got := cameBack(&mcp.Exchange{}); strings.Contains(got, "HTTP") {
		t.Errorf("stdio: %q", got)
	}
}

// TestBadBodyFollowUpError: after a malformed body, a follow-up answered
// with a JSON-RPC error means the server is alive: the check passes and
// says so, never "stopped answering".
func TestBadBodyFollowUpError(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		b, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		if json.Unmarshal(b, &m) != nil {
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`)
			return
		}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":"busy"}}`, m.ID)
	})
	srv := httptest.NewServer(h)
	defer srv.Close()
	ctx := context.Background()
	c, err := mcp.Connect(ctx, &mcp.HTTPTarget{URL: srv.URL}, mcp.Options{Timeout: 2 * time.Second, NoFallback: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	e := &Env{client: c, modern: c, kind: "http", listings: map[string]*listingSlot{}, walkSem: make(chan struct{}, 2)}
	call := c.NewCall("tools/list", nil)
	call.Body = []byte(`{"jsonrpc":`)
	o := e.badBody(ctx, call, "malformed JSON")
	if o.Status != report.StatusPass || !strings.Contains(o.Info, "error -32603") || strings.Contains(o.Message+o.Info, "stopped") {
		t.Errorf("%s %q %q", o.Status, o.Message, o.Info)
	}
}

// TestWireSchemaEvidence: a content block of an unknown type, nested in an
// otherwise valid tools/call result, is named by the method it answered,
// its JSON pointer and the failed keyword, with the message.
func TestWireSchemaEvidence(t *testing.T) {
	for _, transport := range []string{"http", "stdio"} {
		t.Run(transport, func(t *testing.T) {
			res, _ := evaluate(t, transport, "jsonrpc/wire-schema", false, Options{Runs: 2})
			c := byID(res)["jsonrpc/wire-schema"]
			var ev struct {
				Findings []struct {
					Method, Pointer, Keyword, Value, Example string
					Count                                    int
				}
			}
			if err := json.Unmarshal(c.Evidence, &ev); err != nil || len(ev.Findings) != 1 {
				t.Fatalf("evidence %s (%v)", c.Evidence, err)
			}
			f := ev.Findings[0]
			if f.Method != "tools/call" || f.Pointer != "/result/content/1" || f.Keyword != "anyOf" ||
				!strings.Contains(f.Value, `"video"`) || !strings.Contains(f.Example, `"resultType"`) || f.Count < 2 {
				t.Errorf("finding %+v", f)
			}
			if !strings.Contains(c.Message, "tools/call /result/content/1 (anyOf") {
				t.Errorf("message %q", c.Message)
			}
		})
	}
}

// TestListenWhenAnswered: subscriptions/listen is judged whenever the
// server answers it. A server that declares nothing to notify may refuse
// the method with -32601; one that answers must acknowledge first, and a
// result before the acknowledgement (the subscription closed at once, as
// mcp-go v1.2.1 does over stdio) fails, declared capability or not.
func TestListenWhenAnswered(t *testing.T) {
	for _, tc := range []struct {
		name   string
		fo     mcptest.Options
		status report.Status
		info   string
	}{
		{"refused without capability", mcptest.Options{NoSubscriptions: true}, report.StatusPass, "refused with -32601"},
		{"result first without capability", mcptest.Options{NoSubscriptions: true, Defects: mcptest.ParseDefects(mcptest.DefectListenResultFirst)}, report.StatusFail, ""},
		{"result first with capability", mcptest.Options{Defects: mcptest.ParseDefects(mcptest.DefectListenResultFirst)}, report.StatusFail, ""},
	} {
		for _, transport := range []string{"http", "stdio"} {
			t.Run(tc.name+"/"+transport, func(t *testing.T) {
				res, _ := evaluateFixture(t, transport, tc.fo, Options{Only: []string{"subscriptions/listen"}}, 0)
				c := byID(res)["subscriptions/listen"]
				if c.Status != tc.status || !strings.Contains(c.Info, tc.info) {
					t.Errorf("%s: %s (%s; %s), want %s", c.ID, c.Status, c.Message, c.Info, tc.status)
				}
				if c.Status == report.StatusFail && !strings.Contains(c.Message, "acknowledg") {
					t.Errorf("message %q", c.Message)
				}
			})
		}
	}
}
