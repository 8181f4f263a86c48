package runs

import (
	"context"
	"fmt"
	"sync"

	"github.com/mcp-eval/mcp-eval/llm"
)

// Batch APIs answer requests known before the runs (the first turn of a
// case with one user message: its request is the prompt and the tools) or
// after them (the judge's), at half price, within hours. They enter the
// runs through the cache: an answer a batch returned is prefilled under
// the request's key, and the run's call with that request takes it as the
// model's answer — a live call, billed at the batch rate (its usage's
// Batch part), recorded on disk like any other. A request the batch did
// not answer (expired, cancelled at the deadline, errored, never sent) is
// simply not prefilled, so the run sends it synchronously: a batch can
// make a run cheaper, never different.

// BatchCall is one request to send through a batch: the run index it
// belongs to (part of its cache key) and the request as the run will
// send it.
type BatchCall struct {
	Run     int
	Request llm.Request
}

// BatchStats count what a Prefill did.
type BatchStats struct {
	// Sent went into a batch; Answered came back with an answer and were
	// prefilled; Failed came back with an error (expired, cancelled,
	// refused); the rest of Sent had no result by the deadline. Cached
	// were answered by the cache already and not sent.
	Sent, Answered, Failed, Cached int
}

// Prefill sends calls (of one model) through b's batch API and prefills
// the cache with the answers, under the keys of endpoint (the provider's,
// as EndpointOf names it) and each call's run. Calls the cache can already
// answer, and duplicates, are not sent. An error means the batch gave
// nothing (refused, failed validation): every call is then left to the
// runs, which send it synchronously.
func (c *Cache) Prefill(ctx context.Context, b llm.Batcher, endpoint string, calls []BatchCall, o llm.BatchOptions) (BatchStats, error) {
	var st BatchStats
	keys := map[string]string{} // item id → cache key
	var items []llm.BatchItem
	seen := map[string]bool{}
	for _, call := range calls {
		key := c.Key(endpoint, call.Run, call.Request)
		if seen[key] {
			continue
		}
		seen[key] = true
		if _, ok := c.get(key); ok {
			st.Cached++
			continue
		}
		id := fmt.Sprintf("r%d", len(items))
		keys[id] = key
		items = append(items, llm.BatchItem{ID: id, Request: call.Request})
	}
	st.Sent = len(items)
	if len(items) == 0 {
		return st, nil
	}
	results, err := b.Batch(ctx, items, o)
	for id, r := range results {
		switch {
		case r.Err != nil || r.Response == nil:
			st.Failed++
		default:
			st.Answered++
			c.prefilled.Store(keys[id], r.Response)
		}
	}
	return st, err
}

// takePrefilled returns, once, the answer a batch gave to the request
// under key.
func (c *Cache) takePrefilled(key string) (*llm.Response, bool) {
	if c == nil {
		return nil, false
	}
	v, ok := c.prefilled.LoadAndDelete(key)
	if !ok {
		return nil, false
	}
	return v.(*llm.Response), true
}

// BatchAnswered counts the calls of cm a batch answered.
func (cm *CachedModel) BatchAnswered() int64 { return cm.batched.Load() }

// prefilledMap is the cache's store of batch answers not yet taken.
type prefilledMap = sync.Map
