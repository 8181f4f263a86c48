package github_test

import (
	"fmt"

	"github.com/mcp-eval/mcp-eval/github"
)

// A pull request without the eval label runs conformance only; the label,
// as confirmed through the API, adds the model layers.
func ExampleSelectLayers() {
	ev := github.Event{Name: "pull_request", PullRequest: &github.PullRequest{
		Number: 7, HeadRepo: "acme/weather-mcp", BaseRepo: "acme/weather-mcp", BaseRef: "main",
	}}
	for _, labelled := range []bool{false, true} {
		sel, err := github.SelectLayers("auto", ev, github.DefaultEvalLabel, labelled)
		if err != nil {
			panic(err)
		}
		fmt.Println(sel.Layers, "-", sel.Reason)
	}
	// Output:
	// [conformance] - Conformance only: add the `run-evals` label to the pull request to run the model layers.
	// [conformance behavior resilience telemetry] - All layers: the pull request carries the `run-evals` label.
}
