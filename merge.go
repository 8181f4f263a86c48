package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"

	"github.com/mcp-eval/mcp-eval/golden"
	"github.com/mcp-eval/mcp-eval/report"
	"github.com/mcp-eval/mcp-eval/resilience"
	"github.com/mcp-eval/mcp-eval/telemetry"
)

// sameServer refuses to merge reports of different servers: shards split
// one evaluation, so they must share the transport, the target and the
// surface (fingerprint). The message names both files and what differs.
func sameServer(firstPath string, first *report.Report, path string, r *report.Report) error {
	a, b := first.Server, r.Server
	differ := func(what, x, y string) error {
		return &configError{fmt.Sprintf("merge: %s and %s evaluated different servers: %s %s in %s, %s in %s; merge only the shards of one run (--shard i/n)",
			firstPath, path, what, orNone(x), firstPath, orNone(y), path)}
	}
	switch {
	case a.Transport != b.Transport:
		return differ("transport", a.Transport, b.Transport)
	case a.Target != b.Target:
		return differ("target", strconv.Quote(a.Target), strconv.Quote(b.Target))
	case a.Fingerprint != b.Fingerprint:
		return differ("server surface (fingerprint)", shortFP(a.Fingerprint), shortFP(b.Fingerprint))
	}
	return nil
}

func orNone(s string) string {
	if s == "" || s == `""` {
		return "none"
	}
	return s
}

func shortFP(s string) string {
	if len(s) > 12 {
		return s[:12] + "…"
	}
	return s
}

// mergeFlagSet binds the flags of mcp-eval merge, for parsing and --help.
func mergeFlagSet() (*flag.FlagSet, *string) {
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	out := fs.String("o", "", "where to write the merged report.json")
	return fs, out
}

// mergeCommand is `mcp-eval merge -o report.json shard1.json …`: it joins
// the reports of a job matrix split with --shard into one, recomputing the
// pooled scores from the cases (every case fraction carries its own
// denominator, so the numbers equal those of one unsplit run), for one job
// to gate on with `mcp-eval gate`.
func mergeCommand(args []string, stdout io.Writer) error {
	fs, out := mergeFlagSet()
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usagef("%s", flagError(err, fs))
	}
	if *out == "" || fs.NArg() == 0 {
		return usagef("want -o report.json and at least one shard report")
	}
	merged, err := mergeReports(fs.Args())
	if err != nil {
		return err
	}
	rescore(merged)
	var buf bytes.Buffer
	if err := report.WriteJSON(&buf, merged); err != nil {
		return err
	}
	if err := os.WriteFile(*out, buf.Bytes(), 0o644); err != nil {
		return &configError{fmt.Sprintf("merge -o: %v", err)}
	}
	fmt.Fprintf(stdout, "merged %d reports: %d checks, %d cases → %s\n", fs.NArg(), len(merged.Checks), len(merged.Cases), *out)
	return nil
}

// mergeReports joins the shard reports at paths: one server (sameServer),
// the first shard's verdict on each check, every case once (shards must not
// overlap), the confusion counts, the telemetry and the judge.
func mergeReports(paths []string) (*report.Report, error) {
	var merged *report.Report
	var tele []*report.Telemetry
	seenCase := map[string]string{}
	seenCheck := map[string]bool{}
	for _, path := range paths {
		r, err := readReport("merge", path)
		if err != nil {
			return nil, err
		}
		if merged == nil {
			merged = &report.Report{SchemaVersion: r.SchemaVersion, Tool: r.Tool, StartedAt: r.StartedAt,
				Server: r.Server, Surface: r.Surface, Commit: r.Commit, History: r.History, Strict: r.Strict,
				Checks: []report.Check{}, Cases: []report.Case{}, Scores: map[string]float64{}}
		} else if err := sameServer(paths[0], merged, path, r); err != nil {
			return nil, err
		}
		if r.StartedAt != "" && (merged.StartedAt == "" || r.StartedAt < merged.StartedAt) {
			merged.StartedAt = r.StartedAt
		}
		merged.DurationMs = max(merged.DurationMs, r.DurationMs)
		for _, l := range r.Layers {
			if !slices.Contains(merged.Layers, l) {
				merged.Layers = append(merged.Layers, l)
			}
		}
		// Every shard may run conformance; it is the same server, so the
		// first shard's verdict on a check stands.
		for _, c := range r.Checks {
			if !seenCheck[c.ID] {
				seenCheck[c.ID] = true
				merged.Checks = append(merged.Checks, c)
			}
		}
		for _, c := range r.Cases {
			key := c.ID + "@" + c.Model
			if prev, dup := seenCase[key]; dup {
				return nil, &configError{fmt.Sprintf("merge: case %s ran in both %s and %s; shards must not overlap", key, prev, path)}
			}
			seenCase[key] = path
			merged.Cases = append(merged.Cases, c)
		}
		merged.Confusion = append(merged.Confusion, r.Confusion...)
		if r.Telemetry != nil {
			tele = append(tele, r.Telemetry)
		}
		if r.Judge != nil {
			merged.Judge = r.Judge
		}
	}
	if len(tele) > 0 {
		// Reports keep raw latency samples, so percentiles are recomputed
		// over all shards rather than averaged.
		merged.Telemetry = telemetry.Merge(tele...)
	}
	return merged, nil
}

// rescore recomputes the merged report's scores from its checks and cases:
// each case fraction carries its own denominator, so the pooled scores
// equal those of one unsplit run.
func rescore(merged *report.Report) {
	if rate, ok := merged.ConformancePassRate(); ok {
		merged.Scores["conformance.passRate"] = rate
	}
	// Layer 1 cases and Layer 2 variants share the cases list; each layer
	// recomputes its own scores from its own cases.
	var behavior, variants []report.Case
	for _, c := range merged.Cases {
		if resilience.IsVariantID(c.ID) {
			variants = append(variants, c)
		} else {
			behavior = append(behavior, c)
		}
	}
	for _, part := range []struct {
		cases  []report.Case
		scores func([]report.Case) (map[string]float64, map[string]map[string]float64)
	}{{behavior, golden.ScoresFromCases}, {variants, resilience.ScoresFromCases}} {
		if len(part.cases) == 0 {
			continue
		}
		merged.AddScores(part.scores(part.cases))
	}
	if len(merged.Confusion) > 0 {
		merged.Confusion = golden.MergeConfusion(merged.Confusion)
	}
	merged.Sort()
}
