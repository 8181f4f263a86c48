package conformance

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/mcp-eval/mcp-eval/engine/check"
	"github.com/mcp-eval/mcp-eval/engine/wire"
	"github.com/mcp-eval/mcp-eval/internal/clip"
	"github.com/mcp-eval/mcp-eval/report"
)

// wireCheckID is the whole-message check; the pipeline judges it again
// once every layer has run (WireCheck), so that it covers their messages
// too.
const wireCheckID = "jsonrpc/wire-schema"

// maxWireEvidence bounds the findings quoted in full.
const maxWireEvidence = 10

func wireChecks() []*Check {
	return []*Check{
		// basic/index: every message follows JSON-RPC 2.0 and the revision's
		// schema ("the source of truth for all protocol messages and
		// structures"): a result's resultType and members, an error's
		// integer code and message, each notification's params. Judged on
		// what the transports received during the run (engine/wire).
		{ID: wireCheckID, Reqs: []string{"base/result-field", "base/error-field", "base/error-code-integer", "guidance/schema-shapes", "features/prompt-embedded-resource", "features/sampling-role"},
			Level: report.LevelMust, Revision: revModern, Once: true, After: true,
			SpecRef: spec("schema"),
			Title:   "every message the server sends (results, errors, notifications; JSON, SSE and stdio) validates against the 2026-07-28 schema",
			Skip: func(e *Env) string {
				if e.opts.Wire == nil {
					return "no message recorder is attached to this run's transports"
				}
				return ""
			},
			Run: func(ctx context.Context, e *Env) Outcome { return judgeWire(e.opts.Wire.Summary()) }},
	}
}

// WireCheck judges jsonrpc/wire-schema on everything rec saw, for the
// pipeline to replace the entry conformance.Run made before the other
// layers ran.
func WireCheck(rec *wire.Recorder) report.Check {
	var def *Check
	for _, c := range Checks() {
		if c.ID == wireCheckID {
			def = c
		}
	}
	return check.Fold(def, report.LayerConformance, []Outcome{judgeWire(rec.Summary())})
}

// WireCheckID is the id of the whole-message check.
func WireCheckID() string { return wireCheckID }

// recorderJudges are the checks judged on what the run's message recorder
// saw (engine/wire), by id: the pipeline judges them again once every
// layer has run, so that they cover every request mcp-eval sent.
var recorderJudges = map[string]func(*wire.Recorder) Outcome{
	wireCheckID:                    func(rec *wire.Recorder) Outcome { return judgeWire(rec.Summary()) },
	"jsonrpc/id-echo-every-method": func(rec *wire.Recorder) Outcome { return judgeIDs(rec.Summary().IDs) },
	uniqueNamesID:                  func(rec *wire.Recorder) Outcome { return judgeDuplicates(rec.Duplicates()) },
}

// RecorderCheckIDs are the ids of the checks judged on the message
// recorder's observations, sorted.
func RecorderCheckIDs() []string {
	ids := make([]string, 0, len(recorderJudges))
	for id := range recorderJudges {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// RecorderCheck judges the recorder check id on everything rec saw, for
// the pipeline to replace the entry conformance.Run made before the other
// layers ran.
func RecorderCheck(id string, rec *wire.Recorder) report.Check {
	for _, c := range Checks() {
		if c.ID == id {
			return check.Fold(c, report.LayerConformance, []Outcome{recorderJudges[id](rec)})
		}
	}
	panic("conformance: no check " + id)
}

func judgeWire(s wire.Summary) Outcome {
	if s.Unavailable != "" {
		return check.Skip(s.Unavailable)
	}
	seen := fmt.Sprintf("%d messages validated against the %s schema in %v", s.Validated, s.Revision, s.Time.Round(100*time.Microsecond))
	if s.OtherRevision > 0 {
		seen += fmt.Sprintf("; %d answers to probes that did not declare %s were not judged (a dual-era server may serve them in another revision)", s.OtherRevision, s.Revision)
	}
	if len(s.Findings) == 0 {
		return check.PassInfo(seen)
	}
	fs := wire.Sorted(s.Findings)
	var parts []string
	total := s.Overflow
	for _, f := range fs {
		total += f.Count
	}
	for _, f := range fs[:min(len(fs), 3)] {
		parts = append(parts, fmt.Sprintf("%s %s (%s: %s)", f.Method, f.Pointer, f.Keyword, clip.Runes(f.Message, 80)))
	}
	more := ""
	if len(fs) > 3 {
		more = fmt.Sprintf(" and %d more", len(fs)-3)
	}
	ev := map[string]any{"findings": fs[:min(len(fs), maxWireEvidence)], "distinct": len(fs), "validated": s.Validated}
	if s.Overflow > 0 {
		ev["notKept"] = s.Overflow
	}
	return check.Failf(ev, "%d violations of the %s schema in %d places: %s%s (%s)",
		total, s.Revision, len(fs), strings.Join(parts, "; "), more, seen)
}
