package golden

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mcp-eval/mcp-eval/agent"
	"github.com/mcp-eval/mcp-eval/engine/runs"
	"github.com/mcp-eval/mcp-eval/judge"
	"github.com/mcp-eval/mcp-eval/llm"
	"github.com/mcp-eval/mcp-eval/tasks"
)

// --batch auto sends what can wait to the providers' batch APIs at half
// price (runs.Cache.Prefill): the first model turn of every case with one
// user message (its request is known before it runs: the prompt and the
// tools), and the judge's calls (known once the runs are done). A
// multi-turn case's first turn, every later turn, and whatever a batch did
// not answer by --batch-wait go synchronously, so scores are those of a
// synchronous run.

// batchGroup is the calls of one model of one provider.
type batchGroup struct {
	spec     string
	batcher  llm.Batcher
	endpoint string
	calls    []runs.BatchCall
}

// batchOptions bound each batch: --batch-wait from now, polled every
// BatchPoll (30 s unless a test says otherwise). Its status lines go to
// Stderr under mu: the batches of several models poll at once.
func (mr *ModelRun) batchOptions(spec string, mu *sync.Mutex) llm.BatchOptions {
	last := ""
	return llm.BatchOptions{
		Deadline: time.Now().Add(mr.o.BatchWait),
		Poll:     mr.o.BatchPoll,
		Status: func(s string) {
			mu.Lock()
			defer mu.Unlock()
			if s != last {
				last = s
				fmt.Fprintf(mr.o.Stderr, "mcp-eval: batch %s: %s\n", spec, s)
			}
		},
	}
}

// batcherOf is the provider of spec when it has a batch API.
func (mr *ModelRun) batcherOf(spec string, p llm.Provider) (llm.Batcher, bool) {
	if mr.o.Batch != "auto" || p == nil {
		return nil, false
	}
	b, ok := p.(llm.Batcher)
	return b, ok && b.CanBatch()
}

// prefill sends the groups' batches at once and waits for them; a batch
// that fails leaves its calls to the synchronous runs, with a warning.
func (mr *ModelRun) prefill(ctx context.Context, what string, groups []*batchGroup) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	for _, g := range groups {
		if len(g.calls) == 0 {
			continue
		}
		wg.Go(func() {
			st, err := mr.runner.Cache.Prefill(ctx, g.batcher, g.endpoint, g.calls, mr.batchOptions(g.spec, &mu))
			mu.Lock()
			defer mu.Unlock()
			if err != nil && !errors.Is(err, context.Canceled) {
				fmt.Fprintf(mr.o.Stderr, "mcp-eval: warning: batch of %s for %s failed (%v); those calls go synchronously\n", what, g.spec, err)
			}
			if st.Sent > 0 {
				left := st.Sent - st.Answered
				fmt.Fprintf(mr.o.Stderr, "mcp-eval: batch %s: %d of %d %s answered at the batch price; %d go synchronously\n",
					g.spec, st.Answered, st.Sent, what, left)
			}
		})
	}
	wg.Wait()
}

// batchFirstTurns prefills the first turn of every job of a case with one
// user message, on the models whose provider has a batch API.
func (mr *ModelRun) batchFirstTurns(ctx context.Context, jobs []runs.Job) {
	if mr.o.Batch != "auto" {
		return
	}
	groups := map[string]*batchGroup{}
	for _, j := range jobs {
		if len(j.Task.FollowUps) > 0 {
			continue // multi-turn: synchronous
		}
		provider, model, ok := llm.SplitSpec(j.Model)
		if !ok {
			continue
		}
		b, ok := mr.batcherOf(j.Model, mr.plan.providers[provider])
		if !ok {
			continue
		}
		g := groups[j.Model]
		if g == nil {
			g = &batchGroup{spec: j.Model, batcher: b, endpoint: runs.EndpointOf(b, provider)}
			groups[j.Model] = g
		}
		task := j.Task
		task.Model = model
		g.calls = append(g.calls, runs.BatchCall{Run: j.Run, Request: agent.FirstRequest(task)})
	}
	mr.prefill(ctx, "first turns", sortedGroups(groups))
}

// batchJudge scores runs (case i's transcript i, a run of models[i]) once
// with judges that only collect their requests, sends each judge's in one
// batch, and leaves the real scoring to take the answers from the cache.
func (mr *ModelRun) batchJudge(ctx context.Context, cases []*tasks.Case, models []string, transcripts []*agent.Transcript) {
	groups := map[string]*batchGroup{}
	cols := map[string]*collector{}
	for i := range cases {
		key := strings.ToLower(mr.plan.JudgeOf(models[i]))
		jc, bj := mr.plan.judges[key], mr.judges[key]
		if jc == nil || bj == nil {
			continue
		}
		col := cols[key]
		if col == nil {
			b, ok := mr.batcherOf(jc.spec, jc.provider)
			if !ok {
				continue
			}
			provider, _, _ := llm.SplitSpec(jc.spec)
			col = &collector{}
			cols[key] = col
			groups[key] = &batchGroup{spec: jc.spec, batcher: b, endpoint: runs.EndpointOf(jc.provider, provider)}
		}
		j := judge.New(col, jc.model).WithPrompt(mr.plan.judgePrompt)
		ScoreRun(ctx, cases[i], transcripts[i], ScoreOptions{Judge: j, Similar: j})
	}
	if len(groups) == 0 {
		return
	}
	for key, g := range groups {
		for _, req := range cols[key].reqs {
			g.calls = append(g.calls, runs.BatchCall{Run: 0, Request: req})
		}
	}
	mr.prefill(ctx, "judge calls", sortedGroups(groups))
}

func sortedGroups(m map[string]*batchGroup) []*batchGroup {
	out := make([]*batchGroup, 0, len(m))
	for _, g := range m {
		out = append(out, g)
	}
	sort.Slice(out, func(i, k int) bool { return out[i].spec < out[k].spec })
	return out
}

// collector is a judge model that keeps the requests it is asked and
// answers none.
type collector struct {
	mu   sync.Mutex
	reqs []llm.Request
}

var errCollected = errors.New("collected for a batch")

func (c *collector) Complete(_ context.Context, req llm.Request) (*llm.Response, error) {
	c.mu.Lock()
	c.reqs = append(c.reqs, req)
	c.mu.Unlock()
	return nil, errCollected
}
