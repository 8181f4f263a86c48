package resilience

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"runtime"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mcp-eval/mcp-eval/engine/check"
	"github.com/mcp-eval/mcp-eval/internal/mcptest"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/report"
)

// TestMain lets the test binary serve the fixture on stdio
// (mcptest.StdioCommand).
func TestMain(m *testing.M) { mcptest.Main(m) }

// testTimeout is the client's per-request timeout: generous, since a 4 MiB
// request under the race detector on a busy runner takes seconds (over 20 s
// beside 24 CPU-bound processes on 2 cores). Tests of hangs pass a short
// ProbeOptions.Timeout instead.
const testTimeout = time.Minute

// connect starts the fixture with the given defects over transport and
// returns a client to it, and the fixture when it runs in this process.
func connectFixture(t testing.TB, transport, defects string) (*mcp.Client, *mcptest.Server) {
	t.Helper()
	var target mcp.Target
	var srv *mcptest.Server
	switch transport {
	case "http":
		srv = mcptest.NewHandler(mcptest.Options{Defects: mcptest.ParseDefects(defects)})
		hs := httptest.NewServer(srv)
		t.Cleanup(hs.Close)
		target = &mcp.HTTPTarget{URL: hs.URL + "/mcp"}
	case "stdio":
		argv, env := mcptest.StdioCommand(t, mcptest.Options{Defects: mcptest.ParseDefects(defects)})
		target = &mcp.CommandTarget{Command: mcp.Command{Argv: argv, Env: env}}
	}
	c, err := mcp.Connect(context.Background(), target, mcp.Options{Timeout: testTimeout})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c, srv
}

func checksByID(cs []report.Check) map[string]report.Check {
	m := map[string]report.Check{}
	for _, c := range cs {
		m[c.ID] = c
	}
	return m
}

func failingProbes(cs []report.Check) []string {
	var out []string
	for _, c := range cs {
		if c.Status == report.StatusFail || c.Status == report.StatusError {
			out = append(out, strings.TrimPrefix(c.ID, "resilience/"))
		}
	}
	sort.Strings(out)
	return out
}

// probeIDs are the ids Probe reports: every probe of the registry
// (probeDefs) and resilience/server-survives, sorted.
var probeIDs = func() []string {
	ids := []string{"resilience/server-survives"}
	for _, d := range probeDefs() {
		ids = append(ids, d.ID)
	}
	sort.Strings(ids)
	return ids
}()

func TestCleanFixturePassesEveryProbe(t *testing.T) {
	t.Parallel()
	for _, transport := range []string{"http", "stdio"} {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			c, srv := connectFixture(t, transport, "")
			checks := Probe(t.Context(), c, ProbeOptions{Runs: 2})
			var ids []string
			for _, ch := range checks {
				ids = append(ids, ch.ID)
				if ch.Layer != report.LayerResilience || ch.Group != "resilience" {
					t.Errorf("%s: layer %q group %q", ch.ID, ch.Layer, ch.Group)
				}
				if ch.Hard != (ch.Level == report.LevelMust) {
					t.Errorf("%s: hard %v at level %s", ch.ID, ch.Hard, ch.Level)
				}
				want := report.StatusPass
				if transport == "stdio" && (ch.ID == "resilience/burst" || ch.ID == "resilience/cut-stream") {
					want = report.StatusSkip
				}
				if ch.Status != want {
					t.Errorf("%s: %s (%s), want %s\n%s", ch.ID, ch.Status, ch.Message, want, ch.Evidence)
				}
				if ch.Status == report.StatusPass && (ch.Runs != 2 && ch.ID != "resilience/server-survives" || ch.Passed != ch.Runs) {
					t.Errorf("%s: %d of %d runs passed, want 2 of 2", ch.ID, ch.Passed, ch.Runs)
				}
				t.Logf("%s: %s; info: %s", ch.ID, ch.Status, ch.Info)
			}
			if diff := cmp.Diff(probeIDs, ids); diff != "" {
				t.Errorf("check ids (-want +got):\n%s", diff)
			}
			got := checksByID(checks)
			if info := got["resilience/invalid-arguments"].Info; !strings.Contains(info, "get_forecast: isError") {
				t.Errorf("invalid-arguments info %q does not show get_forecast's isError", info)
			}
			if transport == "http" {
				if info := got["resilience/cut-stream"].Info; !strings.Contains(info, "tools/call get_forecast stream") {
					t.Errorf("cut-stream info %q: want the tools/call stream (the fixture answers tools/list with JSON)", info)
				}
				if n := srv.Calls()["delete_everything"]; n != 0 {
					t.Errorf("the destructive tool ran %d times; probes must never call it", n)
				}
			}
		})
	}
}

// TestEachProbeFailsOnItsDefect switches on one fixture defect at a time
// and shows which checks fail: the probe the defect exists for, and
// resilience/server-survives when the defect kills or hangs the server.
func TestEachProbeFailsOnItsDefect(t *testing.T) {
	t.Parallel()
	cases := []struct {
		defect, transport string
		want              []string
		opts              *ProbeOptions // nil: Runs 2
	}{
		{mcptest.DefectOversizedRequest, "http", []string{"oversized-request", "server-survives"}, nil},
		{mcptest.DefectOversizedRequest, "stdio", []string{"oversized-request", "server-survives"}, nil},
		{mcptest.DefectInvalidArguments, "http", []string{"invalid-arguments"}, nil},
		{mcptest.DefectInvalidArguments, "stdio", []string{"invalid-arguments"}, nil},
		{mcptest.DefectBurst, "http", []string{"burst"}, nil},
		{mcptest.DefectCutStream, "http", []string{"cut-stream"}, nil},
		{mcptest.DefectCrash, "http", []string{"invalid-arguments", "server-survives"}, nil},
		{mcptest.DefectCrash, "stdio", []string{"invalid-arguments", "server-survives"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.defect+"/"+tc.transport, func(t *testing.T) {
			t.Parallel()
			c, srv := connectFixture(t, tc.transport, tc.defect)
			opts := ProbeOptions{Runs: 2}
			if tc.opts != nil {
				opts = *tc.opts
			}
			checks := Probe(t.Context(), c, opts)
			if diff := cmp.Diff(tc.want, failingProbes(checks)); diff != "" {
				for _, ch := range checks {
					t.Logf("%s: %s: %s", ch.ID, ch.Status, ch.Message)
				}
				t.Fatalf("failing checks (-want +got):\n%s", diff)
			}
			for _, ch := range checks {
				if ch.Status != report.StatusPass {
					t.Logf("%s: %s: %s", ch.ID, ch.Status, ch.Message)
				}
				if ch.Status == report.StatusFail && (ch.Message == "" || len(ch.Evidence) == 0) {
					t.Errorf("%s fails without a message or evidence: %q %s", ch.ID, ch.Message, ch.Evidence)
				}
			}
			if srv != nil && srv.Calls()["delete_everything"] != 0 {
				t.Error("the destructive tool ran")
			}
		})
	}
}

// TestStdioCrashIsReported: a stdio server that dies mid-run is detected,
// reported with its exit status (a hard MUST failure), and restarted for
// the runs and probes after it.
func TestStdioCrashIsReported(t *testing.T) {
	t.Parallel()
	cases := []struct {
		defect, probe string
		incidents     int    // one per run that killed the server
		after         string // a probe that must pass on the restarted server
	}{
		// The crash defect kills the server on its first tools/call, in
		// both runs of invalid-arguments: the second run reached the
		// restarted process.
		{mcptest.DefectCrash, "resilience/invalid-arguments", 2, ""},
		{mcptest.DefectOversizedRequest, "resilience/oversized-request", 2, "resilience/invalid-arguments"},
	}
	for _, tc := range cases {
		t.Run(tc.defect, func(t *testing.T) {
			t.Parallel()
			c, _ := connectFixture(t, "stdio", tc.defect)
			checks := checksByID(Probe(t.Context(), c, ProbeOptions{Runs: 2}))
			sv := checks["resilience/server-survives"]
			if sv.Status != report.StatusFail || sv.Level != report.LevelMust || !sv.Hard {
				t.Fatalf("server-survives: %s %s hard=%v, want a hard MUST failure", sv.Status, sv.Level, sv.Hard)
			}
			if want := "the server process exited (exit status 1) during " + tc.probe + " run 1"; !strings.HasPrefix(sv.Message, want) {
				t.Errorf("message %q, want it to start %q", sv.Message, want)
			}
			var ev struct {
				Incidents []incident `json:"incidents"`
			}
			if err := json.Unmarshal(sv.Evidence, &ev); err != nil || len(ev.Incidents) != tc.incidents {
				t.Fatalf("evidence %s (%v): want %d incidents", sv.Evidence, err, tc.incidents)
			}
			for i, inc := range ev.Incidents {
				// A server is restarted when a later run needs it: after the
				// last incident only if a probe followed.
				restart := i < len(ev.Incidents)-1 || tc.after != ""
				if inc.After != tc.probe || inc.Run != i+1 || inc.Exit != "exit status 1" || inc.Restarted != restart {
					t.Errorf("incident %+v: want %s run %d, exit status 1, restarted %v", inc, tc.probe, i+1, restart)
				}
			}
			if tc.after != "" {
				if st := checks[tc.after].Status; st != report.StatusPass {
					t.Errorf("%s after the restart: %s", tc.after, st)
				}
			}
		})
	}
}

// TestUnresponsiveServer: a server that never answers tools/list cannot be
// judged at all; every check says so, and none passes.
func TestUnresponsiveServer(t *testing.T) {
	t.Parallel()
	c, _ := connectFixture(t, "http", mcptest.DefectHang)
	checks := Probe(t.Context(), c, ProbeOptions{Runs: 1, Timeout: 500 * time.Millisecond})
	if len(checks) != len(probeIDs) {
		t.Fatalf("%d checks, want %d", len(checks), len(probeIDs))
	}
	for _, ch := range checks {
		if ch.Status != report.StatusError || !strings.Contains(ch.Message, "did not answer tools/list before any probe") {
			t.Errorf("%s: %s %q", ch.ID, ch.Status, ch.Message)
		}
	}
}

func TestViolatingArgs(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, schema string
		want         string // JSON of the arguments, or "" for a skip
	}{
		{"wrong type", `{"type":"object","properties":{"city":{"type":"string"}}}`, `{"city":12345}`},
		{"number property", `{"type":"object","properties":{"n":{"type":"number"}}}`, `{"n":"mcp-eval-probe"}`},
		{"untyped property, required other", `{"type":"object","properties":{"a":{}},"required":["b"]}`, `{"a":12345}`},
		{"ref", `{"type":"object","properties":{"c":{"$ref":"#/$defs/s"}},"$defs":{"s":{"type":"string"}}}`, `{"c":12345}`},
		{"closed, no properties", `{"type":"object","properties":{},"additionalProperties":false}`, `{"mcp-eval-probe":true}`},
		{"open", `{"type":"object"}`, `"mcp-eval-probe"`},
		{"accepts anything", `{}`, ``},
		{"does not compile", `{"type":"strnig"}`, ``},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			args, why, skip := violatingArgs(json.RawMessage(tc.schema))
			if tc.want == "" {
				if skip == "" {
					t.Errorf("got %v (%s), want a skip", args, why)
				}
				return
			}
			b, _ := json.Marshal(args)
			if string(b) != tc.want || why == "" {
				t.Errorf("got %s (%q, skip %q), want %s", b, why, skip, tc.want)
			}
		})
	}
}

func TestJudgeBadArgs(t *testing.T) {
	t.Parallel()
	call := &mcp.Call{ID: int64(7), Method: "tools/call"}
	msg := func(s string) *mcp.Message {
		m, err := mcp.ParseMessage([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	cases := []struct {
		name    string
		x       *mcp.Exchange
		err     error
		wantBad bool
	}{
		{"invalid params", &mcp.Exchange{Status: 200, Response: msg(`{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"bad"}}`)}, nil, false},
		{"isError", &mcp.Exchange{Status: 200, Response: msg(`{"jsonrpc":"2.0","id":7,"result":{"content":[],"isError":true}}`)}, nil, false},
		{"other refusal", &mcp.Exchange{Status: 400, Response: msg(`{"jsonrpc":"2.0","id":7,"error":{"code":-32021,"message":"cap"}}`)}, nil, false},
		{"input required", &mcp.Exchange{Status: 200, Response: msg(`{"jsonrpc":"2.0","id":7,"result":{"resultType":"input_required"}}`)}, nil, false},
		{"accepted", &mcp.Exchange{Status: 200, Response: msg(`{"jsonrpc":"2.0","id":7,"result":{"content":[]}}`)}, nil, true},
		{"internal error in band", &mcp.Exchange{Response: msg(`{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"boom"}}`)}, nil, true},
		{"500", &mcp.Exchange{Status: 500, Response: msg(`{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"bad"}}`)}, nil, true},
		{"no JSON-RPC", &mcp.Exchange{Status: 502, Body: []byte("bad gateway")}, nil, true},
		{"timeout", nil, &mcp.TimeoutError{Method: "tools/call", After: time.Second}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			note, bad := judgeBadArgs(call, tc.x, tc.err)
			if (bad != "") != tc.wantBad || note == "" {
				t.Errorf("note %q, bad %q; want bad=%v", note, bad, tc.wantBad)
			}
		})
	}
}

// TestBurstHeap runs the burst probe at its default size against the
// in-process fixture and measures the peak heap (the process's, so the
// server's share is counted too): the bound is 64 MiB.
func TestBurstHeap(t *testing.T) {
	c, _ := connectFixture(t, "http", "")
	p := &prober{o: ProbeOptions{BurstSize: DefaultBurstSize, Timeout: testTimeout}, c: c, kind: "http"}
	peak, r := measurePeakHeap(func() check.Outcome { return runBurst(t.Context(), p) })
	if r.Status != report.StatusPass {
		t.Fatalf("burst: %s %s", r.Status, r.Message)
	}
	t.Logf("burst of %d: peak heap %.1f MiB; %s", DefaultBurstSize, float64(peak)/(1<<20), r.Info)
	if peak >= 64<<20 {
		t.Errorf("peak heap %.1f MiB, want under 64 MiB", float64(peak)/(1<<20))
	}
}

func BenchmarkBurst(b *testing.B) {
	c, _ := connectFixture(b, "http", "")
	p := &prober{o: ProbeOptions{BurstSize: DefaultBurstSize, Timeout: testTimeout}, c: c, kind: "http"}
	b.ReportAllocs()
	var worst uint64
	for b.Loop() {
		peak, r := measurePeakHeap(func() check.Outcome { return runBurst(context.Background(), p) })
		if r.Status != report.StatusPass {
			b.Fatalf("burst: %s %s", r.Status, r.Message)
		}
		worst = max(worst, peak)
	}
	b.ReportMetric(float64(worst)/(1<<20), "peak-heap-MiB")
}

// measurePeakHeap runs f while sampling HeapAlloc every millisecond, and
// returns the highest value seen after a GC beforehand.
func measurePeakHeap(f func() check.Outcome) (uint64, check.Outcome) {
	runtime.GC()
	var peak atomic.Uint64
	sample := func() {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		if ms.HeapAlloc > peak.Load() {
			peak.Store(ms.HeapAlloc)
		}
	}
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			sample()
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	r := f()
	sample()
	close(stop)
	<-done
	return peak.Load(), r
}
