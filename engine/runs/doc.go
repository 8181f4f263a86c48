// Package runs executes model runs for Layers 1 and 2: a [Runner] takes
// jobs (a case, a "provider:model" spec, a repetition index, the agent
// task) and runs them on the agent loop with bounded concurrency and
// progress output, and a [Cache] records every model call keyed by the full
// request and replays it, so that re-running an unchanged server and golden
// set asks no model (tool calls always run live). The judge's calls go
// through the same cache. It knows nothing of scoring.
package runs
