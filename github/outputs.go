package github

import "github.com/mcp-eval/mcp-eval/report"

// Output is one output of the Action, declared once: action.yml's outputs
// and the README's list are made from Outputs (a test keeps them in step),
// and a score output is set from the report by ReportOutputs.
type Output struct {
	Name string
	Doc  string // action.yml's description
	// Score is the report score key (DESIGN.md "Score keys") the output
	// carries; "" for an output the action sets itself.
	Score string
}

// Outputs are every output the Action sets. Adding a score output is one
// line here; another output is one line here and the code that sets it
// (app/action).
var Outputs = []Output{
	{Name: "passed", Doc: `"true" when every gate passed.`},
	{Name: "exit-code", Doc: "0 passed, 1 failed (checks or gate), 2 bad configuration, 3 could not evaluate (the server did not answer as MCP): the CLI's exit codes."},
	{Name: "error", Doc: "Why the run could not evaluate (exit 2 or 3), else empty."},
	{Name: "report-path", Doc: "Path of report.json, relative to the workspace (the next step's working directory), so it exists on the host after the step."},
	{Name: "summary-path", Doc: "Path of summary.md, relative to the workspace."},
	{Name: "sarif-path", Doc: "Path of results.sarif, relative to the workspace, for github/codeql-action/upload-sarif."},
	{Name: "layers", Doc: "The layers that ran, comma-separated."},
	{Name: "baseline-url", Doc: "The run the baseline came from, when there was one."},
	{Name: "conformance-pass-rate", Score: report.ScoreConformancePassRate, Doc: "Hard conformance checks passed / hard conformance checks."},
	{Name: "behavior-pass-rate", Score: report.ScoreBehaviorPassRate, Doc: "behavior.passRate, when the behavior layer ran."},
	{Name: "selection-accuracy", Score: report.ScoreSelectionAccuracy, Doc: "behavior.selectionAccuracy."},
	{Name: "false-activation-rate", Score: report.ScoreFalseActivationRate, Doc: "behavior.falseActivationRate (lower is better)."},
	{Name: "argument-accuracy", Score: report.ScoreArgumentAccuracy, Doc: "behavior.argumentAccuracy."},
	{Name: "sequence-accuracy", Score: report.ScoreSequenceAccuracy, Doc: "behavior.sequenceAccuracy."},
	{Name: "task-completion", Score: report.ScoreTaskCompletion, Doc: "behavior.taskCompletion (judged)."},
	{Name: "answer-accuracy", Score: report.ScoreAnswerAccuracy, Doc: "behavior.answerAccuracy (the cases' expect_answer checks)."},
	{Name: "resilience-pass-rate", Score: report.ScoreResiliencePassRate, Doc: "resilience.passRate, when the resilience layer ran."},
	{Name: "fabrication-rate", Score: report.ScoreFabricationRate, Doc: "resilience.fabricationRate (lower is better)."},
	{Name: "attack-success-rate", Score: report.ScoreAttackSuccessRate, Doc: "resilience.attackSuccessRate (lower is better)."},
}
