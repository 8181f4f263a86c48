package report

import (
	"fmt"
	"slices"
	"strconv"
)

// Merge joins the reports of one evaluation split with --shard, in the
// order given; names name them in errors (their files). It keeps one
// server (the shards must share the transport, the target and the
// surface), the earliest start, the longest duration, the first shard's
// verdict on each check (every shard may run conformance on the same
// server), every case once (shards must not overlap), the confusion counts
// and the last judge. It leaves Telemetry and the scores to the layers
// that own them: the caller pools the telemetry and recomputes the scores
// from the cases.
func Merge(names []string, rs []*Report) (*Report, error) {
	var merged *Report
	// Sized once: 10 000 cases × 6 models grown by appending copied the
	// cases about twenty times over.
	total := 0
	for _, r := range rs {
		total += len(r.Cases)
	}
	seenCase := make(map[string]string, total)
	seenCheck := map[string]bool{}
	for i, r := range rs {
		if merged == nil {
			merged = &Report{SchemaVersion: r.SchemaVersion, Tool: r.Tool, StartedAt: r.StartedAt,
				Server: r.Server, Surface: r.Surface, Commit: r.Commit, History: r.History, Strict: r.Strict,
				RunID: r.RunID, RunURL: r.RunURL,
				Checks: []Check{}, Cases: make([]Case, 0, total), Scores: map[string]float64{}}
		} else if err := sameServer(names[0], merged, names[i], r); err != nil {
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
		for _, c := range r.Checks {
			if !seenCheck[c.ID] {
				seenCheck[c.ID] = true
				merged.Checks = append(merged.Checks, c)
			}
		}
		for _, c := range r.Cases {
			key := c.ID + "@" + c.Model
			if prev, dup := seenCase[key]; dup {
				return nil, fmt.Errorf("merge: case %s ran in both %s and %s; shards must not overlap", key, prev, names[i])
			}
			seenCase[key] = names[i]
			merged.Cases = append(merged.Cases, c)
		}
		merged.Confusion = append(merged.Confusion, r.Confusion...)
		// Every shard compared the same surface with the same baseline.
		if merged.SurfaceDiff == nil {
			merged.SurfaceDiff = r.SurfaceDiff
		}
		merged.Selection = mergeSelection(merged.Selection, r.Selection)
		if r.Judge != nil {
			merged.Judge = r.Judge
		}
	}
	return merged, nil
}

// sameServer refuses to merge reports of different servers: shards split
// one evaluation, so they must share the transport, the target and the
// surface (fingerprint). The message names both files and what differs.
func sameServer(firstPath string, first *Report, path string, r *Report) error {
	a, b := first.Server, r.Server
	differ := func(what, x, y string) error {
		return fmt.Errorf("merge: %s and %s evaluated different servers: %s %s in %s, %s in %s; merge only the shards of one run (--shard i/n)",
			firstPath, path, what, orNone(x), firstPath, orNone(y), path)
	}
	switch {
	case a.Transport != b.Transport:
		return differ("transport", a.Transport, b.Transport)
	case a.Target != b.Target:
		return differ("target", strconv.Quote(a.Target), strconv.Quote(b.Target))
	case a.Fingerprint != b.Fingerprint:
		return differ("server surface (fingerprint)", shortFingerprint(a.Fingerprint), shortFingerprint(b.Fingerprint))
	}
	return nil
}

func orNone(s string) string {
	if s == "" || s == `""` {
		return "none"
	}
	return s
}

func shortFingerprint(s string) string {
	if len(s) > 12 {
		return s[:12] + "…"
	}
	return s
}
