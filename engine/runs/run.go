package runs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/mcp-eval/mcp-eval/agent"
	"github.com/mcp-eval/mcp-eval/llm"
)

// DefaultConcurrency is the number of runs in flight at once when a Runner
// sets none. Runs spend nearly all their time waiting for the model, so the
// useful bound is what the providers accept, not the CPU count.
const DefaultConcurrency = 16

// Job is one (case, model, run index) to execute; the loader's Case
// converts to it.
type Job struct {
	CaseID string
	// Model is the spec "provider:model" (e.g. "openai:gpt-4.1-mini").
	Model string
	// Run is the 0-based repetition index; it is part of the cache key so
	// that the five runs of a case are five cache entries.
	Run int
	// Task is the run's task; Runner sets Task.Model from Model.
	Task agent.Task
}

// Runner executes jobs on the agent loop with bounded concurrency, a
// result cache and progress output.
type Runner struct {
	// Providers are keyed by provider name ("openai", "anthropic"); a job's
	// model spec picks one, and the part after the colon is the model.
	Providers map[string]agent.Model
	Server    agent.Server
	// Concurrency bounds the runs in flight across all models; 0 means
	// DefaultConcurrency. Each provider may bound its own requests lower.
	Concurrency int
	// Cache, if set, records every successful model call and answers an
	// identical later request from the record; tool calls still run.
	Cache *Cache
	// Progress receives progress lines; nil is silent. TTY selects a line
	// that updates in place instead of periodic lines for CI logs.
	Progress io.Writer
	TTY      bool
	// Cost, if set, prices a model spec's usage for the progress line
	// (the cost so far); nil shows none.
	Cost func(model string, u llm.Usage) (float64, bool)
}

// Result pairs a job with its transcript. A job that could not run at all
// (no provider for its model, the context ended first) has a transcript
// with Stop "error" and the reason in Err, like a run whose model failed,
// so that scoring counts it as errored.
type Result struct {
	Job        Job
	Transcript *agent.Transcript
	// Cached: every model call of the run was answered from the cache, so
	// no model was asked (the tools were still called).
	Cached bool
}

// Finished keeps the results whose run reached its end (a transcript that
// did not fail): after an interrupt, the runs it cut short or kept from
// starting say nothing about the server and are left out of the report.
func Finished(results []Result) []Result {
	var out []Result
	for _, r := range results {
		if r.Transcript != nil && r.Transcript.Failure() == "" {
			out = append(out, r)
		}
	}
	return out
}

// Run executes jobs and returns their results in job order. Up to
// Concurrency jobs run at once; when ctx ends, runs in flight stop at their
// next model or tool call and jobs not yet started are not started, so Run
// returns promptly with those results marked as errors.
func (r *Runner) Run(ctx context.Context, jobs []Job) []Result {
	results := make([]Result, len(jobs))
	if len(jobs) == 0 {
		return results
	}
	prog := newRunProgress(r.Progress, r.TTY, len(jobs), time.Now)
	if prog != nil {
		prog.cost = r.Cost
	}
	workers := r.Concurrency
	if workers <= 0 {
		workers = DefaultConcurrency
	}
	workers = min(workers, len(jobs))

	// A fixed pool pulling indexes, rather than a goroutine per job: jobs
	// start in order (the progress line and a cancelled run then describe a
	// prefix of the suite), and each worker writes only its own slots.
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range next {
				results[i] = r.runJob(ctx, jobs[i], prog)
				prog.record(results[i])
			}
		})
	}
	stopTicker := make(chan struct{})
	var tickerDone sync.WaitGroup
	if r.Progress != nil {
		tickerDone.Go(func() {
			t := time.NewTicker(progressTick)
			defer t.Stop()
			for {
				select {
				case <-t.C:
					prog.tick()
				case <-stopTicker:
					return
				}
			}
		})
	}
feed:
	for i := range jobs {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	close(stopTicker)
	tickerDone.Wait()

	for i := range results {
		if results[i].Transcript == nil {
			results[i] = Result{Job: jobs[i], Transcript: errorTranscript(fmt.Errorf("not started: %w", context.Cause(ctx)))}
		}
	}
	if err := r.Cache.Flush(); err != nil {
		prog.warnOnce("cache", "warning: could not write the model-call cache: "+err.Error())
	}
	prog.finish()
	return results
}

// runJob runs one job, its model calls through the cache.
func (r *Runner) runJob(ctx context.Context, job Job, prog *runProgress) Result {
	if err := ctx.Err(); err != nil {
		return Result{Job: job, Transcript: errorTranscript(fmt.Errorf("not started: %w", context.Cause(ctx)))}
	}
	provider, model, ok := llm.SplitSpec(job.Model)
	if !ok {
		return Result{Job: job, Transcript: errorTranscript(fmt.Errorf("model %q: want provider:model", job.Model))}
	}
	m := r.Providers[provider]
	if m == nil {
		return Result{Job: job, Transcript: errorTranscript(fmt.Errorf("no %s provider configured for model %s", provider, job.Model))}
	}
	if r.Server == nil {
		return Result{Job: job, Transcript: errorTranscript(errors.New("no server to run against"))}
	}
	task := job.Task
	task.Model = model
	var cm *CachedModel
	if r.Cache != nil {
		cm = r.Cache.Model(m, EndpointOf(m, provider), job.Run)
		m = cm
	}
	tr, err := agent.Run(ctx, m, r.Server, task)
	if err != nil {
		return Result{Job: job, Transcript: errorTranscript(err)}
	}
	return Result{Job: job, Transcript: tr, Cached: cm != nil && cm.Hits() > 0 && cm.Misses() == 0}
}

func errorTranscript(err error) *agent.Transcript {
	return &agent.Transcript{Calls: []agent.Call{}, Stop: agent.StopError, Err: err.Error()}
}

// ExecutedWrites counts, per tool, the calls that really ran on the server
// although the tool is not marked readOnlyHint: Layer 1 executes what the
// model calls unless a case stubs it — replayed runs included, since the
// cache records model answers, never tool results — and the run's output
// must say so.
func ExecutedWrites(results []Result) map[string]int {
	out := map[string]int{}
	for _, res := range results {
		if res.Transcript == nil {
			continue
		}
		for _, c := range res.Transcript.Calls {
			if c.Executed && !c.ReadOnly {
				out[c.Name]++
			}
		}
	}
	return out
}
