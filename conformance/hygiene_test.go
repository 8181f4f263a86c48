package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcp-eval/mcp-eval/internal/mcptest"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/report"
)

// seenTransport is a transport that only reports what it recorded, as
// mcp.Stdio and mcp.HTTP do: the hygiene checks read, never send.
type seenTransport struct {
	list   []mcp.Anomaly
	counts map[string]int
}

func (s *seenTransport) Exchange(context.Context, *mcp.Outgoing) (*mcp.Exchange, error) {
	return nil, errors.New("seenTransport sends nothing")
}
func (s *seenTransport) Close() error                  { return nil }
func (s *seenTransport) Anomalies() []mcp.Anomaly      { return s.list }
func (s *seenTransport) AnomalyCounts() map[string]int { return s.counts }

// seen builds a transport that recorded n anomalies of each kind given
// (keeping at most 256, as the mcp transports do).
func seen(kinds map[string]int) *seenTransport {
	s := &seenTransport{counts: map[string]int{}}
	for _, k := range []string{mcp.AnomalyOrphan, mcp.AnomalyLate, mcp.AnomalyDuplicate, mcp.AnomalyBanner, mcp.AnomalyNonJSON, mcp.AnomalyUnparseable} {
		for i := 0; i < kinds[k]; i++ {
			s.counts[k]++
			if len(s.list) < 256 {
				s.list = append(s.list, mcp.Anomaly{Kind: k, Detail: fmt.Sprintf("%s number %d", k, i+1), Evidence: fmt.Sprintf(`evidence of %s %d`, k, i+1)})
			}
		}
	}
	return s
}

func hygieneCheck(t *testing.T, id string) *Check {
	t.Helper()
	for _, c := range Checks() {
		if c.ID == id {
			if !c.After {
				t.Fatalf("%s does not run after the other checks", id)
			}
			return c
		}
	}
	t.Fatalf("no check %s", id)
	return nil
}

// TestHygieneVerdicts judges recorded anomalies: which kinds fail which
// check, late answers as information, counts beyond what is kept, at most
// five excerpts, and the connection named when the run used several.
func TestHygieneVerdicts(t *testing.T) {
	hs := mcptest.Serve(t, mcptest.Options{})
	base, err := mcp.Connect(context.Background(), &mcp.HTTPTarget{URL: hs.URL + "/mcp"}, mcp.Options{Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer base.Close()
	const (
		one     = "jsonrpc/one-response-per-request"
		banner  = "jsonrpc/no-stdout-banner"
		message = "jsonrpc/only-messages"
	)
	for _, tt := range []struct {
		name         string
		kind         string
		main, modern map[string]int
		// want is each check's status; substr must be in its message (fail)
		// or its info (pass).
		want   map[string]report.Status
		substr map[string]string
		// excerpts is how many anomalies the failing check quotes.
		excerpts int
	}{
		{name: "clean", kind: "stdio",
			want: map[string]report.Status{one: report.StatusPass, banner: report.StatusPass, message: report.StatusPass}},
		{name: "late is information", kind: "stdio", main: map[string]int{mcp.AnomalyLate: 2},
			want:   map[string]report.Status{one: report.StatusPass, banner: report.StatusPass, message: report.StatusPass},
			substr: map[string]string{one: "2 answer(s) came after mcp-eval had given up"}},
		{name: "duplicates beyond what is kept", kind: "stdio", main: map[string]int{mcp.AnomalyDuplicate: 300, mcp.AnomalyLate: 1},
			want:     map[string]report.Status{one: report.StatusFail, banner: report.StatusPass, message: report.StatusPass},
			substr:   map[string]string{one: "300 response(s) that answer no request in flight (300 duplicate); first: duplicate number 1"},
			excerpts: 5},
		{name: "two connections", kind: "stdio", main: map[string]int{mcp.AnomalyOrphan: 1}, modern: map[string]int{mcp.AnomalyDuplicate: 1},
			want:     map[string]report.Status{one: report.StatusFail, banner: report.StatusPass, message: report.StatusPass},
			substr:   map[string]string{one: "(1 duplicate, 1 orphan)"},
			excerpts: 2},
		{name: "banner", kind: "stdio", main: map[string]int{mcp.AnomalyBanner: 1},
			want:     map[string]report.Status{one: report.StatusPass, banner: report.StatusFail, message: report.StatusPass},
			substr:   map[string]string{banner: "1 line to stdout before its first JSON-RPC message"},
			excerpts: 1},
		{name: "non-json and unparseable", kind: "http", main: map[string]int{mcp.AnomalyNonJSON: 1, mcp.AnomalyUnparseable: 1},
			want:     map[string]report.Status{one: report.StatusPass, banner: report.StatusPass, message: report.StatusFail},
			substr:   map[string]string{message: "2 SSE events that are not valid JSON-RPC messages (1 non-json, 1 unparseable)"},
			excerpts: 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := &Env{kind: tt.kind, client: base.WithTransport(seen(tt.main))}
			e.modern = e.client
			if tt.modern != nil {
				e.modern = base.WithTransport(seen(tt.modern))
			}
			for id, want := range tt.want {
				o := hygieneCheck(t, id).Run(context.Background(), e)
				if o.Status != want {
					t.Errorf("%s: %s (%s), want %s", id, o.Status, o.Message, want)
					continue
				}
				if s := tt.substr[id]; s != "" && !strings.Contains(o.Message+o.Info, s) {
					t.Errorf("%s: %q does not say %q", id, o.Message+o.Info, s)
				}
				if want != report.StatusFail {
					continue
				}
				b, _ := json.Marshal(o.Evidence)
				var ev struct {
					Counts map[string]int      `json:"counts"`
					First  []map[string]string `json:"first"`
				}
				if err := json.Unmarshal(b, &ev); err != nil {
					t.Fatal(err)
				}
				if len(ev.First) != tt.excerpts {
					t.Errorf("%s: %d excerpts, want %d: %s", id, len(ev.First), tt.excerpts, b)
				}
				for _, x := range ev.First {
					if x["received"] == "" || x["detail"] == "" || x["kind"] == "" {
						t.Errorf("%s: excerpt without evidence: %v", id, x)
					}
					if _, named := x["connection"]; named != (tt.modern != nil) {
						t.Errorf("%s: connection named %v with %d connections: %v", id, named, 1+len(tt.modern), x)
					}
				}
				total := 0
				for _, n := range ev.Counts {
					total += n
				}
				if total == 0 {
					t.Errorf("%s: no counts: %s", id, b)
				}
			}
		})
	}
}

// TestHygieneEvidenceOnTheWire: against the fixture, each hygiene check
// quotes what the server really wrote.
func TestHygieneEvidenceOnTheWire(t *testing.T) {
	for _, tt := range []struct{ transport, defect, quote string }{
		{"stdio", mcptest.DefectBanner, "mcp-eval-fixture 1.0.0 ready on stdio"},
		{"stdio", mcptest.DefectStrayResponse, `"kind":"duplicate"`},
		{"http", mcptest.DefectStrayResponse, `fixture-never-sent`},
		// The answer twice in one SSE stream (measured before the fix: seen on stdio only).
		{"http", mcptest.DefectStrayResponse, `"duplicate":`},
		{"stdio", mcptest.DefectLogOnStdout, "INFO tools/call finished"},
		{"http", mcptest.DefectLogOnStdout, "INFO tools/call finished"},
	} {
		t.Run(tt.transport+"/"+tt.defect, func(t *testing.T) {
			t.Parallel()
			res, _ := evaluate(t, tt.transport, tt.defect, false, Options{Only: []string{"result-type", "jsonrpc"}})
			c := byID(res)[tt.defect]
			if c.Status != report.StatusFail {
				t.Fatalf("%s: %s (%s), want fail", tt.defect, c.Status, c.Message)
			}
			if !strings.Contains(string(c.Evidence), tt.quote) {
				t.Errorf("%s: evidence %s does not quote %q", tt.defect, c.Evidence, tt.quote)
			}
		})
	}
}

// TestBannerCountsLinesPerProcess: a one-line banner is one line, however
// many server processes the run started (measured before the fix: "wrote 3 line(s)").
func TestBannerCountsLinesPerProcess(t *testing.T) {
	t.Parallel()
	res, _ := evaluate(t, "stdio", mcptest.DefectBanner, false, Options{Runs: 2})
	c := byID(res)[mcptest.DefectBanner]
	if c.Status != report.StatusFail || !strings.Contains(c.Message, "wrote 1 line to stdout") || !strings.Contains(c.Message, "in each of the 2 server processes") {
		t.Errorf("%s: %s %q", mcptest.DefectBanner, c.Status, c.Message)
	}
}

// TestWrongIDEverywhere: a server that answers every request under another
// id, the era probe included, is judged the same way over stdio as over
// HTTP, within the request timeout: the id echo checks fail on what came
// back, and no check times out waiting (measured before the fix: over stdio the whole
// start-up budget was waited, then "no JSON-RPC message on stdout").
func TestWrongIDEverywhere(t *testing.T) {
	verdicts := map[string]map[string]report.Status{}
	for _, transport := range []string{"http", "stdio"} {
		t.Run(transport, func(t *testing.T) {
			start := time.Now()
			res, _ := evaluate(t, transport, mcptest.DefectWrongIDEvery, false, Options{})
			if d := time.Since(start); d > 120*time.Second { // a hang guard, wide for a loaded machine
				t.Errorf("the run took %v", d)
			}
			checks := byID(res)
			for _, id := range []string{"jsonrpc/id-echo-string", "jsonrpc/id-echo-integer", "jsonrpc/one-response-per-request"} {
				if c := checks[id]; c.Status != report.StatusFail {
					t.Errorf("%s: %s %q, want fail", id, c.Status, c.Message)
				}
			}
			if c := checks["era/modern"]; c.Status != report.StatusPass {
				t.Errorf("era/modern: %s %q", c.Status, c.Message)
			}
			v := map[string]report.Status{}
			for _, c := range res.Checks {
				if strings.Contains(c.Message, "no answer within") {
					t.Errorf("%s waited for an answer: %s", c.ID, c.Message)
				}
				if transportOK(c.ID, "http") && transportOK(c.ID, "stdio") {
					v[c.ID] = c.Status
				}
			}
			verdicts[transport] = v
		})
	}
	for id, s := range verdicts["http"] {
		if o, ok := verdicts["stdio"][id]; ok && o != s {
			t.Errorf("%s: %s over HTTP, %s over stdio", id, s, o)
		}
	}
}
