package conformance

import (
	"context"
	"encoding/json"
	"slices"
	"sort"
	"strings"

	"github.com/mcp-eval/mcp-eval/engine/check"
	"github.com/mcp-eval/mcp-eval/engine/describe"
	"github.com/mcp-eval/mcp-eval/engine/wire"
	"github.com/mcp-eval/mcp-eval/internal/otlpreceiver"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/report"
)

// Revision scopes say which protocol revision a check belongs to.
const (
	revModern = "2026-07-28"
	revLegacy = "2025-11-25"
	revBoth   = "both"
)

// Check is one conformance rule: a check.Def whose environment is the
// run's Env. Its Revision is revModern, revLegacy or revBoth.
type Check = check.Def[*Env]

// Outcome is the result of one run of a check.
type Outcome = check.Outcome

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
	// Wire, if set, is the recorder attached to the client's transports
	// (engine/wire): jsonrpc/wire-schema judges what it saw. Run tells it
	// the client's revision.
	Wire *wire.Recorder
	// Auth is what the auth group may use beyond the server's answers (the
	// run's OAuth client); nil when the run has none.
	Auth *Auth
	// Listed, when set, is the run's description of the server on the
	// same client (engine/describe): the setup takes its tools, prompts
	// and resource templates rather than list them again.
	Listed *describe.Server
	// Replicas are the other endpoints that serve this server under one
	// name (--server-url given more than once): surface/replicas lists
	// their tools and compares them with the run's.
	Replicas []Replica
	// Traces is the run's OTLP receiver (--otlp-receiver), nil without
	// one: the trace checks judge the server's spans that reach it.
	Traces *otlpreceiver.Receiver
	// Progress, if set, is told the check runs planned and done (the
	// run's heartbeat on stderr).
	Progress check.Progress
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

	passthrough *passthroughRejudge // see PassthroughCheck
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
	if opts.Wire != nil {
		opts.Wire.SetRevision(c.Version())
	}
	e, err := newEnv(ctx, c, opts)
	if err != nil {
		return nil, err
	}
	defer e.close()

	checks := selectChecks(Checks(), opts.Only)
	r := &check.Runner[*Env]{Env: e, Runs: opts.Runs, Concurrency: opts.Concurrency, Timeout: c.Timeout(), Progress: opts.Progress,
		Skip: func(ch *Check) string {
			reason := e.skipReason(ch)
			if reason == "" && ch.ID == "subscriptions/listen" {
				// Opened before the other checks run, judged after them.
				e.startListen(ctx)
			}
			return reason
		}}
	outs := r.Run(ctx, checks)
	res := e.result()
	for i, ch := range checks {
		res.Checks = append(res.Checks, check.Fold(ch, report.LayerConformance, outs[i]))
	}
	sort.Slice(res.Checks, func(a, b int) bool { return res.Checks[a].ID < res.Checks[b].ID })
	e.keepPassthrough(ctx, res, checks)
	return res, nil
}

// Selected reports whether a run limited to only (ids or groups; none
// means every check) runs the check id.
func Selected(only []string, id string) bool {
	group, _, _ := strings.Cut(id, "/")
	return len(only) == 0 || slices.Contains(only, id) || slices.Contains(only, group)
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
