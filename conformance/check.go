package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/report"
)

// Revision scopes say which protocol revision a check belongs to.
const (
	revModern = "2026-07-28"
	revLegacy = "2025-11-25"
	revBoth   = "both"
)

// Check is one conformance rule.
type Check struct {
	ID      string
	Title   string
	Level   report.Level
	SpecRef string
	// Revision is revModern, revLegacy or revBoth.
	Revision string
	// Transport is "http", "stdio" or "" for both.
	Transport string
	// Once runs the check a single time whatever --runs says: it starts
	// processes or judges one observation.
	Once bool
	// After runs the check once all others have finished: it judges what
	// the run observed meanwhile (subscriptions/listen's stream, the
	// transports' protocol-hygiene records in checks_hygiene.go).
	After bool
	// Skip, if set, returns a reason not to run the check on this server
	// (an undeclared capability, nothing to probe).
	Skip func(e *Env) string
	// Run performs one run of the check.
	Run func(ctx context.Context, e *Env) Outcome
}

// Group returns the part of the id before the slash.
func (c *Check) Group() string {
	g, _, _ := strings.Cut(c.ID, "/")
	return g
}

// hardGroups are the seven assertions of DESIGN.md: every check in them is
// a hard gate whatever its level.
var hardGroups = map[string]bool{
	"discover": true, "ordering": true, "caching": true, "result-type": true,
	"schema": true, "errors": true, "headers": true,
}

// Hard reports whether a failure of c fails the run.
func (c *Check) Hard() bool { return hardGroups[c.Group()] || c.Level == report.LevelMust }

// Outcome is the result of one run of a check.
type Outcome struct {
	Status   report.Status
	Message  string
	Evidence any
	Info     string
}

func pass() Outcome                { return Outcome{Status: report.StatusPass} }
func passInfo(info string) Outcome { return Outcome{Status: report.StatusPass, Info: info} }
func skip(reason string) Outcome   { return Outcome{Status: report.StatusSkip, Message: reason} }
func fail(msg string, ev any) Outcome {
	return Outcome{Status: report.StatusFail, Message: msg, Evidence: ev}
}

func failf(ev any, format string, args ...any) Outcome {
	return Outcome{Status: report.StatusFail, Message: fmt.Sprintf(format, args...), Evidence: ev}
}

// errored reports a run that could not judge: the request timed out, the
// transport failed, or the answer could not be read. It counts as a failure
// for hard checks.
func errored(err error, ev any) Outcome {
	return Outcome{Status: report.StatusError, Message: err.Error(), Evidence: ev}
}

// Options configure a conformance run.
type Options struct {
	// Runs is how many times each check runs (default 5).
	Runs int
	// Concurrency bounds the runs in flight (default 8).
	Concurrency int
	// SafeTools may be called by probes besides tools marked readOnlyHint.
	SafeTools []string
	// Version is the revision to check: mcp.LatestVersion (default) or
	// mcp.LegacyVersion.
	Version string
	// Only, if set, keeps checks whose id or group is listed.
	Only []string
}

// Result is what a conformance run found.
type Result struct {
	Checks    []report.Check
	Era       mcp.Era
	Version   string
	Supported []string
	// ServerInfo is the server's self-description (from _meta or initialize).
	ServerInfo   json.RawMessage
	Capabilities json.RawMessage
	// Migration is what a legacy server must change for 2026-07-28.
	Migration []string
	// Surface holds the raw tools, prompts and resource templates lists.
	Tools, Prompts, Templates []json.RawMessage
}

// Run executes every applicable check against the server behind c, each
// opts.Runs times, concurrently, and returns the results sorted by id.
func Run(ctx context.Context, c *mcp.Client, opts Options) (*Result, error) {
	if opts.Runs <= 0 {
		opts.Runs = 5
	}
	if opts.Concurrency <= 0 {
		opts.Concurrency = 8
	}
	if opts.Version == "" {
		opts.Version = mcp.LatestVersion
	}
	e, err := newEnv(ctx, c, opts)
	if err != nil {
		return nil, err
	}
	defer e.close()

	checks := selectChecks(Checks(), opts.Only)
	type job struct {
		check int
		run   int
	}
	results := make([][]Outcome, len(checks))
	var jobs, after []job
	for i, ch := range checks {
		if reason := e.skipReason(ch); reason != "" {
			results[i] = []Outcome{skip(reason)}
			continue
		}
		if ch.After {
			results[i] = make([]Outcome, 1)
			after = append(after, job{i, 0})
			if ch.ID == "subscriptions/listen" {
				e.startListen(ctx)
			}
			continue
		}
		n := opts.Runs
		if ch.Once {
			n = 1
		}
		results[i] = make([]Outcome, n)
		for r := 0; r < n; r++ {
			jobs = append(jobs, job{i, r})
		}
	}
	// Bounded concurrency: each job writes its own slot, so no lock is
	// needed on results.
	sem := make(chan struct{}, opts.Concurrency)
	var wg sync.WaitGroup
	for _, j := range jobs {
		sem <- struct{}{}
		wg.Add(1)
		go func(j job) {
			defer func() { <-sem; wg.Done() }()
			results[j.check][j.run] = runOne(withRun(ctx, j.run), e, checks[j.check])
		}(j)
	}
	wg.Wait()
	for _, j := range after {
		results[j.check][j.run] = runOne(withRun(ctx, j.run), e, checks[j.check])
	}

	res := e.result()
	for i, ch := range checks {
		res.Checks = append(res.Checks, aggregate(ch, results[i]))
	}
	sort.Slice(res.Checks, func(a, b int) bool { return res.Checks[a].ID < res.Checks[b].ID })
	return res, nil
}

// runOne runs a check once under its own deadline. A panic in a check —
// which would be a bug in mcp-eval, but one a hostile server might
// trigger — becomes an error result rather than a crash.
func runOne(ctx context.Context, e *Env, ch *Check) (out Outcome) {
	defer func() {
		if r := recover(); r != nil {
			out = Outcome{Status: report.StatusError, Message: fmt.Sprintf("internal error in check: %v", r),
				Evidence: map[string]any{"stack": truncate(string(debug.Stack()), 2000)}}
		}
	}()
	// A run may send several requests, each with its own timeout.
	ctx, cancel := context.WithTimeout(ctx, 4*e.client.Timeout()+5*time.Second)
	defer cancel()
	return ch.Run(ctx, e)
}

func selectChecks(all []*Check, only []string) []*Check {
	if len(only) == 0 {
		return all
	}
	var out []*Check
	for _, c := range all {
		for _, o := range only {
			if c.ID == o || c.Group() == o {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

// aggregate folds the runs of a check into its report entry
// (report.FoldRuns: it passes only if every run passed).
func aggregate(ch *Check, outs []Outcome) report.Check {
	runs := make([]report.Run, len(outs))
	for i, o := range outs {
		runs[i] = report.Run{Status: o.Status, Message: o.Message, Info: o.Info}
		if o.Evidence != nil {
			if b, err := json.Marshal(o.Evidence); err == nil {
				runs[i].Evidence = b
			}
		}
	}
	return report.FoldRuns(report.Check{
		ID: ch.ID, Layer: report.LayerConformance, Group: ch.Group(), Level: ch.Level,
		Hard: ch.Hard(), Title: ch.Title, SpecRef: ch.SpecRef,
	}, runs)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
