package github

import (
	"slices"
	"strings"
	"testing"
)

func TestSelectLayers(t *testing.T) {
	t.Parallel()
	prExtra := map[string]string{"GITHUB_BASE_REF": "main"}
	tests := []struct {
		name         string
		event        string
		fixture      string
		extra        map[string]string
		input        string
		labelPresent bool
		want         []string
		noCache      bool
		readOnly     bool
		reason       string
	}{
		{name: "push", event: "push", fixture: "push.json", input: "auto",
			want: conf, reason: "Conformance only on `push` events"},
		{name: "empty input means auto", event: "push", fixture: "push.json", input: "",
			want: conf, reason: "Conformance only"},
		{name: "schedule", event: "schedule", fixture: "schedule.json", input: "auto",
			want: full, noCache: true, reason: "scheduled run"},
		{name: "workflow_dispatch", event: "workflow_dispatch", fixture: "workflow_dispatch.json", input: "auto",
			want: full, reason: "workflow_dispatch"},
		{name: "labelled pull request", event: "pull_request", fixture: "pull_request_labeled.json", extra: prExtra,
			input: "auto", labelPresent: true, want: full, reason: "carries the `run-evals` label"},
		{name: "label gone since the payload (re-run)", event: "pull_request", fixture: "pull_request_labeled.json", extra: prExtra,
			input: "auto", labelPresent: false, want: conf, reason: "add the `run-evals` label"},
		{name: "fork pull request with the label", event: "pull_request", fixture: "pull_request_fork.json", extra: prExtra,
			input: "auto", labelPresent: true, want: conf, readOnly: true, reason: "comes from a fork"},
		{name: "dependabot", event: "pull_request", fixture: "pull_request_dependabot.json",
			extra: map[string]string{"GITHUB_BASE_REF": "main", "GITHUB_ACTOR": "dependabot[bot]"},
			input: "auto", labelPresent: true, want: conf, readOnly: true, reason: "Dependabot"},
		{name: "explicit list honoured", event: "push", fixture: "push.json", input: "telemetry, conformance",
			want: []string{"conformance", "telemetry"}, reason: "layers input"},
		{name: "explicit list on a fork", event: "pull_request", fixture: "pull_request_fork.json", extra: prExtra,
			input: "behavior", want: conf, readOnly: true, reason: "the model layers and the pull request comment are skipped"},
		{name: "auto plus a layer", event: "push", fixture: "push.json", input: "auto,resilience",
			want: []string{"conformance", "resilience"}, reason: "Conformance only"},
		{name: "newline list", event: "schedule", fixture: "schedule.json", input: "conformance\nbehavior\n",
			want: []string{"conformance", "behavior"}, noCache: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, ev := readFixture(t, tt.event, tt.fixture, tt.extra)
			sel, err := SelectLayers(tt.input, ev, DefaultEvalLabel, tt.labelPresent)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(sel.Layers, tt.want) {
				t.Errorf("Layers = %v, want %v", sel.Layers, tt.want)
			}
			if sel.NoCache != tt.noCache || sel.ReadOnly != tt.readOnly {
				t.Errorf("NoCache, ReadOnly = %v, %v; want %v, %v", sel.NoCache, sel.ReadOnly, tt.noCache, tt.readOnly)
			}
			if !strings.Contains(sel.Reason, tt.reason) {
				t.Errorf("Reason = %q, want it to say %q", sel.Reason, tt.reason)
			}
		})
	}
}

func TestSelectLayersRejectsUnknown(t *testing.T) {
	t.Parallel()
	_, err := SelectLayers("conformance,vibes", Event{Name: "push"}, DefaultEvalLabel, false)
	if err == nil || !strings.Contains(err.Error(), `input layers: unknown layer "vibes"`) {
		t.Errorf("err = %v", err)
	}
}

func TestCodeSpan(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"run-evals": "`run-evals`", "a`b": "``a`b``", "`x": "`` `x ``"} {
		if got := codeSpan(in); got != want {
			t.Errorf("codeSpan(%q) = %q, want %q", in, got, want)
		}
	}
}
