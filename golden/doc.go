// Package golden is Layer 1, behaviour: it runs the cases of a golden set
// (golden/tasks.yaml, read by package tasks) on agent and scores the
// transcripts: tool selection, false
// activation on negative cases, argument correctness, the order of chains
// and, where a case has a rubric, task completion graded by a model judge.
//
// The pieces, in the order a run uses them:
//
//   - [NewPlan] checks everything the model layers need before any network
//     call (the golden set, the providers and their keys, the judge and its
//     prompt); [Plan.Bind] binds it to the server's tools as a [ModelRun]:
//     the runner, its cache, --model-budget and the judge, which Layer 2's
//     model half runs its variants through too ([ModelRun.Run]).
//     [ModelRun.Behavior] is Layer 1: it runs the cases, keeps the
//     transcripts of failed runs and scores them.
//   - tasks.Load reads and tasks.Suite.Validate checks the file; a case's
//     tasks.Case.Task is the agent.Task of one of its runs.
//   - [ScoreCase] scores the transcripts of one case on one model;
//     [Summarize] pools those into report.json's cases, scores,
//     scoresByModel and confusion, and [Summary.Apply] writes them into a
//     report. [ScoresFromCases] and [MergeConfusion] recompute the same from
//     shard reports.
//   - engine/runs runs the jobs on agent and records and replays their
//     model calls; tool calls always run live.
//   - [ScoreOptions.Judge] (a judge.Grader) and tasks.SimilarityJudge are the
//     model-graded parts; judge.New implements both over any agent.Model,
//     with the prompt kept in judge/judge_prompt.txt.
//
// golden imports agent, mcp, report, llm and the neutral packages it shares
// with Layer 2 (tasks, judge, engine/runs, internal/stats), and
// internal/exitcode for the kind of a planning error; it never
// imports another layer (conformance, resilience, telemetry) or the GitHub
// code.
package golden
