package check

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/report"
)

// env records the order in which runs happened.
type env struct {
	mu    sync.Mutex
	order []string
}

func (e *env) saw(s string) {
	e.mu.Lock()
	e.order = append(e.order, s)
	e.mu.Unlock()
}

func TestRunner(t *testing.T) {
	t.Parallel()
	for _, conc := range []int{1, 4} {
		e := &env{}
		defs := []*Def[*env]{
			{ID: "g/after", Level: report.LevelShould, After: true, Run: func(_ context.Context, e *env) Outcome {
				e.saw("after")
				return Pass()
			}},
			{ID: "g/each", Level: report.LevelMust, Run: func(ctx context.Context, e *env) Outcome {
				e.saw("each")
				if RunIndex(ctx) == 1 {
					return Failf(map[string]int{"run": 1}, "run %d failed", 1)
				}
				return PassInfo("fine")
			}},
			{ID: "g/once", Level: report.LevelShould, Once: true, Run: func(context.Context, *env) Outcome { return Pass() }},
			{ID: "g/panics", Level: report.LevelShould, Run: func(context.Context, *env) Outcome { panic("boom") }},
			{ID: "g/skipped", Level: report.LevelShould, Skip: func(*env) string { return "not here" }, Run: nil},
			{ID: "g/unprepared", Level: report.LevelShould, Prepare: func(context.Context, *env) string { return "nothing to probe" }},
		}
		prog := &countProgress{}
		r := &Runner[*env]{Env: e, Runs: 3, Concurrency: conc, Progress: prog}
		outs := r.Run(t.Context(), defs)
		// after 1 + each 3 + once 1 + panics 3 + skipped 3 + unprepared 3
		// (the skipped ones counted done when their skip is known).
		if prog.planned != 14 || prog.done.Load() != 14 {
			t.Errorf("concurrency %d: progress planned %d, done %d; want 14 and 14", conc, prog.planned, prog.done.Load())
		}
		got := map[string]report.Check{}
		for i, d := range defs {
			got[d.ID] = Fold(d, report.LayerConformance, outs[i])
		}
		if c := got["g/each"]; c.Status != report.StatusFail || c.Runs != 3 || c.Passed != 2 || c.Message != "run 1 failed (2 of 3 runs passed)" || string(c.Evidence) != `{"run":1}` || !c.Hard {
			t.Errorf("concurrency %d: g/each = %+v", conc, c)
		}
		if c := got["g/once"]; c.Status != report.StatusPass || c.Runs != 1 {
			t.Errorf("concurrency %d: g/once = %+v", conc, c)
		}
		if c := got["g/panics"]; c.Status != report.StatusError || !strings.HasPrefix(c.Message, "internal error in check: boom") || !strings.Contains(string(c.Evidence), "stack") {
			t.Errorf("concurrency %d: g/panics = %+v", conc, c)
		}
		for id, reason := range map[string]string{"g/skipped": "not here", "g/unprepared": "nothing to probe"} {
			if c := got[id]; c.Status != report.StatusSkip || c.Message != reason {
				t.Errorf("concurrency %d: %s = %+v", conc, id, c)
			}
		}
		if n := len(e.order); n != 4 || e.order[n-1] != "after" {
			t.Errorf("concurrency %d: runs in order %v, want the After check last", conc, e.order)
		}
	}
}

// TestRunnerReadyThen: a sequential runner asks Ready before each run and
// lets Then change each outcome, as resilience's liveness check does.
func TestRunnerReadyThen(t *testing.T) {
	t.Parallel()
	calls := 0
	d := &Def[*env]{ID: "resilience/x", Level: report.LevelShould, Run: func(context.Context, *env) Outcome { calls++; return Pass() }}
	r := &Runner[*env]{Env: &env{}, Runs: 5, Concurrency: 1,
		Ready: func(context.Context) string {
			if calls == 2 {
				return "down"
			}
			return ""
		},
		Then: func(_ context.Context, _ *Def[*env], run int, o *Outcome) {
			if run == 1 {
				*o = Fail("died after run 2", nil)
			}
		}}
	c := Fold(d, report.LayerResilience, r.Run(t.Context(), []*Def[*env]{d})[0])
	if c.Status != report.StatusFail || c.Runs != 2 || c.Message != "died after run 2 (1 of 2 runs passed)" || c.Hard || c.Group != "resilience" {
		t.Errorf("got %+v", c)
	}
}

func TestEvidence(t *testing.T) {
	t.Parallel()
	x := &mcp.Exchange{Sent: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`), Status: 500, ContentType: "text/plain",
		Body: []byte("oops"), SentHeader: map[string][]string{"Mcp-Method": {"tools/list"}, "Authorization": {"secret"}}}
	tests := []struct {
		name string
		got  map[string]any
		want string
	}{
		{"protocol", Protocol.Of(x), `{"request":{"body":{"jsonrpc":"2.0","id":1,"method":"tools/list"},"headers":{"Mcp-Method":"tools/list"}},"response":{"body":"oops","contentType":"text/plain","status":500}}`},
		{"probe", Evidence{Request: 10, Body: 2, Sizes: true}.Of(x), `{"request":{"body":"{\"jsonrpc\"…","bytes":46},"response":{"body":"oo…","contentType":"text/plain","status":500}}`},
		{"with error", WithError(Probe.Of(nil), errors.New("reset")), `{"error":"reset"}`},
	}
	for _, tt := range tests {
		if got := string(JSON(tt.got)); got != tt.want {
			t.Errorf("%s:\ngot  %s\nwant %s", tt.name, got, tt.want)
		}
	}
}

// TestHard: the seven assertion groups and MUSTs of the server under test
// fail the run; a check of a third party (the authorization server) never
// does, whatever its level.
func TestHard(t *testing.T) {
	for _, tt := range []struct {
		def  Def[int]
		want bool
	}{
		{Def[int]{ID: "caching/tools-list", Level: report.LevelShould}, true},
		{Def[int]{ID: "http/origin", Level: report.LevelMust}, true},
		{Def[int]{ID: "http/get-not-allowed", Level: report.LevelShould}, false},
		{Def[int]{ID: "auth/malformed-token", Level: report.LevelMust}, true},
		{Def[int]{ID: "auth/as-https", Level: report.LevelMust, ThirdParty: true}, false},
		{Def[int]{ID: "auth/as-iss-parameter", Level: report.LevelShould, ThirdParty: true}, false},
	} {
		if got := tt.def.Hard(); got != tt.want {
			t.Errorf("%s (%s, third party %v): Hard() = %v, want %v", tt.def.ID, tt.def.Level, tt.def.ThirdParty, got, tt.want)
		}
	}
}

// countProgress counts what a Runner tells its Progress.
type countProgress struct {
	planned int
	done    atomic.Int64
}

func (c *countProgress) Planned(n int) { c.planned += n }
func (c *countProgress) Done(n int)    { c.done.Add(int64(n)) }
