// Package check is the one check engine of the deterministic layers: the
// conformance checks (Layer 0) and the resilience probes (Layer 2) are
// both a Def run N times by a Runner, each run an Outcome, folded into one
// report.Check by Fold. It owns the outcome constructors and the evidence
// helpers the checks share, so that a check written for either layer reads
// the same.
//
// It imports mcp, report and internal/clip; it must never import a layer
// (conformance, golden, resilience, telemetry): the layers import it.
package check

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcp-eval/mcp-eval/report"
)

// Def is one check. E is the environment a layer gives its checks (the
// conformance Env, the resilience prober).
type Def[E any] struct {
	// ID is the stable "group/check" id; the part before the slash is the
	// group.
	ID      string
	Title   string
	Level   report.Level
	SpecRef string
	// Reqs are the ids of the requirement rows (docs/requirements.md,
	// internal/requirements) the check enforces; a test keeps both in step.
	Reqs []string
	// Revision is the protocol revision the check belongs to; the layer
	// interprets it (conformance: revModern, revLegacy or revBoth).
	Revision string
	// Transport is "http", "stdio" or "" for both.
	Transport string
	// Once runs the check a single time whatever Runner.Runs says: it
	// starts processes or judges one observation.
	Once bool
	// After runs the check once all others have finished: it judges what
	// the run observed meanwhile.
	After bool
	// Skip, if set, returns a reason not to run the check on this server
	// (an undeclared capability, nothing to probe).
	Skip func(env E) string
	// Prepare, if set, runs once before the runs, under the run timeout,
	// and returns a reason not to run the check at all.
	Prepare func(ctx context.Context, env E) string
	// Run performs one run of the check.
	Run func(ctx context.Context, env E) Outcome
	// ThirdParty marks a check of another party than the server under
	// test: the authorization server a protected server's metadata names,
	// often another product (Hydra, an identity provider) that the
	// server's team cannot change. Its failures are reported at the
	// spec's level but fail the run only under --strict, as warnings do;
	// a team that runs its own authorization server gates it with
	// --strict or --checks.
	ThirdParty bool
}

// Group returns the part of the id before the slash.
func (d *Def[E]) Group() string {
	g, _, _ := strings.Cut(d.ID, "/")
	return g
}

// Hard reports whether a failure of d fails the run: every check of the
// seven assertion groups (report.HardGroups) whatever its level, and every
// MUST — of the server under test. A check of a third party is never hard.
func (d *Def[E]) Hard() bool {
	if d.ThirdParty {
		return false
	}
	return report.IsHardGroup(d.Group()) || d.Level == report.LevelMust
}

// Outcome is the result of one run of a check.
type Outcome struct {
	Status   report.Status
	Message  string
	Evidence any
	Info     string
}

// Pass is a run that passed.
func Pass() Outcome { return Outcome{Status: report.StatusPass} }

// PassInfo is a run that passed, with what it saw (the status or code the
// server chose where the spec leaves the choice open).
func PassInfo(info string) Outcome { return Outcome{Status: report.StatusPass, Info: info} }

// Skip is a run, or a check, that did not apply.
func Skip(reason string) Outcome { return Outcome{Status: report.StatusSkip, Message: reason} }

// Fail is a run that found the server at fault, with the evidence.
func Fail(msg string, ev any) Outcome {
	return Outcome{Status: report.StatusFail, Message: msg, Evidence: ev}
}

// Failf is Fail with a formatted message.
func Failf(ev any, format string, args ...any) Outcome {
	return Outcome{Status: report.StatusFail, Message: fmt.Sprintf(format, args...), Evidence: ev}
}

// Errored reports a run that could not judge: the request timed out, the
// transport failed, or the answer could not be read. It counts as a failure
// for hard checks.
func Errored(err error, ev any) Outcome {
	return Outcome{Status: report.StatusError, Message: err.Error(), Evidence: ev}
}

// Fold folds the runs of d into its report entry for layer
// (report.FoldRuns: it passes only if every run that ran passed).
func Fold[E any](d *Def[E], layer string, outs []Outcome) report.Check {
	runs := make([]report.Run, len(outs))
	for i, o := range outs {
		runs[i] = report.Run{Status: o.Status, Message: o.Message, Info: o.Info}
		if o.Evidence != nil {
			runs[i].Evidence = JSON(o.Evidence)
		}
	}
	return report.FoldRuns(report.Check{
		ID: d.ID, Layer: layer, Group: d.Group(), Level: d.Level,
		Hard: d.Hard(), Title: d.Title, SpecRef: d.SpecRef,
	}, runs)
}

// JSON encodes evidence; evidence that cannot be encoded says why instead.
func JSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(map[string]string{"error": "evidence could not be encoded: " + err.Error()})
	}
	return b
}
