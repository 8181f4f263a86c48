package check

import (
	"context"
	"fmt"
	"runtime/debug"
	"sync"
	"time"

	"github.com/mcp-eval/mcp-eval/internal/clip"
	"github.com/mcp-eval/mcp-eval/report"
)

// RunTimeout is the deadline of one run, given the per-request timeout: a
// run may send several requests, each under that timeout.
func RunTimeout(perRequest time.Duration) time.Duration { return 4*perRequest + 5*time.Second }

// Runner runs checks against one environment.
type Runner[E any] struct {
	Env E
	// Runs is how many times each check runs (Once and After checks run
	// once).
	Runs int
	// Concurrency bounds the runs in flight. At most 1 runs every run of
	// every check one after another, in order, which Ready and Then need.
	Concurrency int
	// Timeout is the per-request timeout; each run and each Prepare get
	// RunTimeout(Timeout).
	Timeout time.Duration
	// Skip, if set, returns a reason not to run d at all (the layer's
	// transport and revision rules, before the check's own Def.Skip).
	Skip func(d *Def[E]) string
	// Ready, if set, is asked before Prepare and before every run of a
	// sequential Runner: a reason stops d's runs (d is skipped with it if
	// none had run).
	Ready func(ctx context.Context) string
	// Then, if set, is called after every run of a sequential Runner with
	// its 0-based index and outcome, which it may change.
	Then func(ctx context.Context, d *Def[E], run int, o *Outcome)
	// Progress, if set, is told how many runs Run plans and each one
	// done, for the run's heartbeat on stderr.
	Progress Progress
}

// Progress is told the runs of checks a Runner plans, then those done.
type Progress interface {
	Planned(n int)
	Done(n int)
}

func (r *Runner[E]) done(n int) {
	if r.Progress != nil && n > 0 {
		r.Progress.Done(n)
	}
}

// Run runs every check and returns the outcomes of each, in the order of
// defs. Checks marked After run, one after another, once all others have
// finished.
func (r *Runner[E]) Run(ctx context.Context, defs []*Def[E]) [][]Outcome {
	type job struct{ def, run int }
	results := make([][]Outcome, len(defs))
	var jobs, after []job
	// Every run is planned; a skipped check's count as done when its
	// skip is known (a Skip may read what earlier checks left, so it is
	// asked in order, as before).
	planned := 0
	for _, d := range defs {
		planned += r.runsOf(d)
	}
	if r.Progress != nil {
		r.Progress.Planned(planned)
	}
	for i, d := range defs {
		if reason := r.skipReason(d); reason != "" {
			results[i] = []Outcome{Skip(reason)}
			r.done(r.runsOf(d))
			continue
		}
		n := r.runsOf(d)
		if r.Concurrency <= 1 {
			// Sequential: each check is prepared and run in turn, so
			// that Ready and Then see the runs in order.
			if !d.After {
				results[i] = r.sequential(ctx, d, n)
			}
			continue
		}
		if reason := r.prepare(ctx, d); reason != "" {
			results[i] = []Outcome{Skip(reason)}
			r.done(n)
			continue
		}
		results[i] = make([]Outcome, n)
		for run := range n {
			if d.After {
				after = append(after, job{i, run})
			} else {
				jobs = append(jobs, job{i, run})
			}
		}
	}
	// Bounded concurrency: Concurrency workers take the jobs in order, and
	// each job writes its own slot, so no lock is needed on results. The
	// workers live for the whole run rather than one goroutine a job: a
	// check's stack grows (JSON encoding is deep), and a fresh goroutine
	// grew it again by copying, a few percent of a small server's run.
	next := make(chan job)
	var wg sync.WaitGroup
	for range min(max(r.Concurrency, 1), len(jobs)) {
		wg.Go(func() {
			for j := range next {
				results[j.def][j.run] = r.once(ctx, defs[j.def], j.run)
				r.done(1)
			}
		})
	}
	for _, j := range jobs {
		next <- j
	}
	close(next)
	wg.Wait()
	for _, j := range after {
		results[j.def][j.run] = r.once(ctx, defs[j.def], j.run)
		r.done(1)
	}
	if r.Concurrency <= 1 {
		for i, d := range defs {
			if d.After && results[i] == nil {
				results[i] = r.sequential(ctx, d, 1)
			}
		}
	}
	return results
}

func (r *Runner[E]) skipReason(d *Def[E]) string {
	if r.Skip != nil {
		if reason := r.Skip(d); reason != "" {
			return reason
		}
	}
	if d.Skip != nil {
		return d.Skip(r.Env)
	}
	return ""
}

// sequential prepares d and runs it n times, asking Ready before each run
// and calling Then after it.
func (r *Runner[E]) sequential(ctx context.Context, d *Def[E], n int) []Outcome {
	if reason := r.ready(ctx); reason != "" {
		r.done(n)
		return []Outcome{Skip(reason)}
	}
	if reason := r.prepare(ctx, d); reason != "" {
		r.done(n)
		return []Outcome{Skip(reason)}
	}
	outs := make([]Outcome, 0, n)
	for run := range n {
		if reason := r.ready(ctx); reason != "" {
			if len(outs) == 0 {
				outs = append(outs, Skip(reason))
			}
			r.done(n - run)
			break
		}
		o := r.once(ctx, d, run)
		r.done(1)
		if r.Then != nil {
			r.Then(ctx, d, run, &o)
		}
		outs = append(outs, o)
	}
	return outs
}

// runsOf is how many times d runs.
func (r *Runner[E]) runsOf(d *Def[E]) int {
	if d.Once || d.After {
		return 1
	}
	return r.Runs
}

// prepare runs d.Prepare, if any, under the run timeout.
func (r *Runner[E]) prepare(ctx context.Context, d *Def[E]) string {
	if d.Prepare == nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, RunTimeout(r.Timeout))
	defer cancel()
	return d.Prepare(ctx, r.Env)
}

func (r *Runner[E]) ready(ctx context.Context) string {
	if r.Ready == nil {
		return ""
	}
	return r.Ready(ctx)
}

type runKey struct{}

// RunIndex returns the 0-based index of the run whose context ctx is, so
// that the checks of one run can share what that run observed (one walk
// through a list per run).
func RunIndex(ctx context.Context) int {
	n, _ := ctx.Value(runKey{}).(int)
	return n
}

// once runs d once under its own deadline. A panic in a check — a bug in
// mcp-eval, but one a hostile server might trigger — becomes an error
// outcome with the stack rather than a crash.
//
// A run that the end of ctx itself (an interrupt) kept from starting or cut
// short is skipped as not finished: its error says nothing about the server.
func (r *Runner[E]) once(ctx context.Context, d *Def[E], run int) (out Outcome) {
	whole := ctx // the run's own deadline below is no interrupt
	if whole.Err() != nil {
		return Skip("not finished: " + context.Cause(whole).Error())
	}
	defer func() {
		if v := recover(); v != nil {
			out = Outcome{Status: report.StatusError, Message: fmt.Sprintf("internal error in check: %v", v),
				Evidence: map[string]any{"stack": clip.Bytes(string(debug.Stack()), 2000)}}
		}
		if whole.Err() != nil && out.Status != report.StatusPass {
			out = Skip("not finished: " + context.Cause(whole).Error())
		}
	}()
	ctx, cancel := context.WithTimeout(context.WithValue(ctx, runKey{}, run), RunTimeout(r.Timeout))
	defer cancel()
	return d.Run(ctx, r.Env)
}
