package github

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcp-eval/mcp-eval/internal/option"
	"github.com/mcp-eval/mcp-eval/report"
)

// allLayers is the canonical order of the layers, cheapest first.
var allLayers = report.Layers()

// Selection is what SelectLayers decided for this run.
type Selection struct {
	// Layers to run, in canonical order.
	Layers []string
	// Reason explains the choice in a sentence for the job summary.
	Reason string
	// NoCache bypasses the result cache: scheduled runs exist to catch model
	// drift, which a cached answer would hide (DESIGN.md).
	NoCache bool
	// ReadOnly says the token is read-only and secrets are absent (fork or
	// Dependabot pull request): skip the comment as well as the model layers.
	ReadOnly bool
}

// SelectLayers resolves the layers input for the event. "auto" (or empty)
// runs conformance on every event, and the model layers too on a schedule,
// a manual dispatch, or a pull request carrying the eval label.
// labelPresent must come from LabelPresent, not from the payload, whose
// labels are frozen when a run is re-run. An explicit list is honoured,
// except that a fork or Dependabot pull request always runs conformance
// only: it has no secrets for the models and must not be handed any.
func SelectLayers(layersInput string, ev Event, evalLabel string, labelPresent bool) (Selection, error) {
	sel := Selection{NoCache: ev.Name == "schedule"}
	auto, explicit, err := parseLayers(layersInput)
	if err != nil {
		return sel, err
	}
	readOnly, why := ev.ReadOnly()
	sel.ReadOnly = readOnly
	if readOnly {
		sel.Layers = []string{report.LayerConformance}
		sel.Reason = "Conformance only: " + why + ", so the model layers and the pull request comment are skipped."
		return sel, nil
	}
	if !auto {
		sel.Layers = explicit
		sel.Reason = "Layers as set by the layers input: " + strings.Join(explicit, ", ") + "."
		return sel, nil
	}
	full := slices.Clone(allLayers)
	conf := []string{report.LayerConformance}
	switch {
	case ev.Name == "schedule":
		sel.Layers, sel.Reason = full, "All layers: scheduled run (the result cache is bypassed to catch model drift)."
	case ev.Name == "workflow_dispatch":
		sel.Layers, sel.Reason = full, "All layers: run started by hand (workflow_dispatch)."
	case ev.PullRequest != nil && labelPresent:
		sel.Layers, sel.Reason = full, fmt.Sprintf("All layers: the pull request carries the %s label.", codeSpan(evalLabel))
	case ev.PullRequest != nil:
		sel.Layers, sel.Reason = conf, fmt.Sprintf("Conformance only: add the %s label to the pull request to run the model layers.", codeSpan(evalLabel))
	default:
		sel.Layers, sel.Reason = conf, fmt.Sprintf("Conformance only on %s events: the model layers run on a schedule, by hand, or on a pull request labelled %s.", codeSpan(orUnknown(ev.Name)), codeSpan(evalLabel))
	}
	if len(explicit) > 0 { // "auto,telemetry": the event's choice plus the named layers
		sel.Layers = union(sel.Layers, explicit)
	}
	return sel, nil
}

// union merges layer lists in canonical order.
func union(a, b []string) []string {
	var out []string
	for _, l := range allLayers {
		if slices.Contains(a, l) || slices.Contains(b, l) {
			out = append(out, l)
		}
	}
	return out
}

// parseLayers splits the layers input. "auto" anywhere in the list means
// auto; the named layers are then implied by the event.
func parseLayers(s string) (auto bool, layers []string, err error) {
	seen := map[string]bool{}
	for _, l := range option.SplitList(s) {
		l = strings.ToLower(l)
		switch {
		case l == "auto":
			auto = true
		case slices.Contains(allLayers, l):
			seen[l] = true
		default:
			return false, nil, fmt.Errorf("input layers: unknown layer %q (want auto or a list of %s)", l, strings.Join(allLayers, ", "))
		}
	}
	if len(seen) == 0 {
		return true, nil, nil
	}
	for _, l := range allLayers {
		if seen[l] {
			layers = append(layers, l)
		}
	}
	return auto, layers, nil
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// codeSpan puts a name chosen by the workflow author in a Markdown code
// span, widening the backtick fence when the name itself holds backticks.
func codeSpan(s string) string {
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}
