package github

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcp-eval/mcp-eval/report"
)

// LayerPart is the part of r that belongs to layer: its checks, cases,
// scores (overall and per model) and the layer's own sections, with the
// server and tool of r. Layers is [layer].
func LayerPart(r *report.Report, layer string) *report.Report {
	p := &report.Report{
		SchemaVersion: r.SchemaVersion,
		Tool:          r.Tool,
		StartedAt:     r.StartedAt,
		Layers:        []string{layer},
		Server:        r.Server,
		Checks:        []report.Check{},
		Cases:         []report.Case{},
		Scores:        map[string]float64{},
		Surface:       r.Surface,
		Strict:        r.Strict,
		Commit:        r.Commit,
		RunID:         r.RunID,
		RunURL:        r.RunURL,
	}
	for _, c := range r.Checks {
		if c.Layer == layer {
			p.Checks = append(p.Checks, c)
		}
	}
	for _, c := range r.Cases {
		if c.Layer() == layer && layer != report.LayerConformance {
			p.Cases = append(p.Cases, c)
		}
	}
	for k, v := range r.Scores {
		if report.ScoreLayer(k) == layer {
			p.Scores[k] = v
		}
	}
	for model, scores := range r.ScoresByModel {
		for k, v := range scores {
			if report.ScoreLayer(k) != layer {
				continue
			}
			if p.ScoresByModel == nil {
				p.ScoresByModel = map[string]map[string]float64{}
			}
			if p.ScoresByModel[model] == nil {
				p.ScoresByModel[model] = map[string]float64{}
			}
			p.ScoresByModel[model][k] = v
		}
	}
	switch layer {
	case report.LayerBehavior:
		p.Confusion, p.Judge = r.Confusion, r.Judge
	case report.LayerTelemetry:
		p.Telemetry = r.Telemetry
	}
	return p
}

// Compose is the baseline the gate compares a run with when its layers'
// baselines came from different runs: each of layers (in order) taken from
// its own part; layers without a part are left out. The run, server and
// history are those of the first layer's source (conformance, the newest),
// except that a model layer's source supplies the server fingerprint, so
// that "the server is unchanged, likely model drift" is judged against the
// run whose model scores are compared. nil when parts is empty.
func Compose(parts map[string]*report.Report, layers []string) *report.Report {
	var out *report.Report
	for _, l := range layers {
		src, ok := parts[l]
		if !ok {
			continue
		}
		part := LayerPart(src, l)
		if out == nil {
			out = part
			out.History = slices.Clone(src.History)
			out.Gate = nil
			continue
		}
		out.Layers = append(out.Layers, l)
		out.Checks = append(out.Checks, part.Checks...)
		out.Cases = append(out.Cases, part.Cases...)
		maps.Copy(out.Scores, part.Scores)
		for model, scores := range part.ScoresByModel {
			if out.ScoresByModel == nil {
				out.ScoresByModel = map[string]map[string]float64{}
			}
			if out.ScoresByModel[model] == nil {
				out.ScoresByModel[model] = map[string]float64{}
			}
			maps.Copy(out.ScoresByModel[model], scores)
		}
		if part.Confusion != nil {
			out.Confusion = part.Confusion
		}
		if part.Judge != nil {
			out.Judge = part.Judge
		}
		if part.Telemetry != nil {
			out.Telemetry = part.Telemetry
		}
		if l != report.LayerConformance && src.Server.Fingerprint != "" {
			out.Server.Fingerprint = src.Server.Fingerprint
			// The surface goes with its fingerprint: --select affected
			// compares the tool surface with the one the carried
			// verdicts were decided on, and names that run.
			out.Surface = src.Surface
			out.RunID, out.RunURL = src.RunID, src.RunURL
		}
	}
	return out
}

// CarryForward writes, into the run's report directory, each layer of bs
// that the run did not produce: carried/<layer>.json with that layer's part
// of its baseline and the run it came from. Uploaded with the report
// directory, they let the next run find the layer in this run's artifact,
// so a run of one layer never breaks the chain of another. clean, when
// set, masks secrets in what is written. It returns the layers written.
func CarryForward(dir string, r *report.Report, bs *Baselines, clean func([]byte) []byte) ([]string, error) {
	if bs == nil {
		return nil, nil
	}
	var wrote []string
	for _, l := range allLayers {
		src, ok := bs.Parts[l]
		if !ok || slices.Contains(r.Layers, l) {
			continue
		}
		c := Carried{Layer: l, Origin: bs.From[l], Report: LayerPart(src, l)}
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetIndent("", "  ")
		if err := enc.Encode(c); err != nil {
			return wrote, fmt.Errorf("carrying the %s baseline forward: %w", l, err)
		}
		data := b.Bytes()
		if clean != nil {
			data = clean(data)
		}
		if err := os.MkdirAll(filepath.Join(dir, CarriedDir), 0o755); err != nil {
			return wrote, fmt.Errorf("carrying the %s baseline forward: %w", l, err)
		}
		if err := os.WriteFile(filepath.Join(dir, CarriedDir, l+".json"), data, 0o644); err != nil {
			return wrote, fmt.Errorf("carrying the %s baseline forward: %w", l, err)
		}
		wrote = append(wrote, l)
	}
	return wrote, nil
}

// Lines says per layer where its baseline came from, for the summary and
// the comment, e.g. "behavior baseline: run #812 on main (schedule,
// 2026-11-28 03:17 UTC, 3 days ago, 1a2b3c4) URL"; a layer without one says
// so.
func (bs *Baselines) Lines(layers []string, now time.Time) []string {
	var out []string
	for _, l := range layers {
		d, ok := bs.From[l]
		if !ok {
			out = append(out, fmt.Sprintf("%s baseline: none found in the last %d runs examined (absolute floors only)", l, bs.Examined))
			continue
		}
		line := l + " baseline: " + d.Line(now)
		if d.CarriedBy != 0 {
			line += fmt.Sprintf(" (carried forward by run #%d)", d.CarriedBy)
		}
		// The newer runs whose artifact expired: the baseline is older
		// than the last green run, and the reader should know why.
		var newer []string
		for _, n := range bs.Expired {
			if n > d.RunNumber && n > d.CarriedBy {
				newer = append(newer, fmt.Sprintf("#%d", n))
			}
		}
		if len(newer) > 0 {
			line += fmt.Sprintf("; the artifacts of the newer runs %s have expired", strings.Join(newer, ", "))
		}
		out = append(out, line)
	}
	return out
}
