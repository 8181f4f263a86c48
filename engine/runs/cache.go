package runs

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcp-eval/mcp-eval/agent"
	"github.com/mcp-eval/mcp-eval/internal/canon"
	"github.com/mcp-eval/mcp-eval/internal/redact"
	"github.com/mcp-eval/mcp-eval/llm"
)

// DefaultCacheDir is where the CLI keeps the model-call cache.
const DefaultCacheDir = ".mcp-eval-cache"

// HarnessVersion is part of every cache key. Bump it whenever the llm
// encoding or the agent loop changes what a request means, so that old
// answers are not replayed as if this harness had asked for them.
const HarnessVersion = "mcp-eval-agent/3"

// Cache records and replays model calls. Each call is keyed by the
// request exactly as the loop sends it — every field of llm.Request:
// messages (tool results included), tools, token limit, temperature,
// format, seed — together with the
// provider's endpoint, the model and the run index; tool calls are never
// cached and always run against the live server. A server whose answers
// change therefore changes the next request and misses, while an unchanged
// server and golden set re-run with zero model calls. Judge calls go
// through the same cache, keyed by their full input (the judge prompt, the
// rubric and the judged transcript are all in the request).
//
// What invalidates an entry: anything that changes a request (the tools'
// names, descriptions or schemas, any tool result, stubs, prompts, the
// system prompt, max_turns reached or not, the token limit, temperature,
// an earlier answer of the model), the model, the provider's base URL, the
// run index, and HarnessVersion. Nothing else: the cache holds no clock.
//
// Entries are JSON files written atomically (a temporary file renamed into
// place), so concurrent runs and interrupted writes never leave half a file
// under a key; an unreadable entry is a miss and is rewritten. They are
// written by a background writer, so that disk time is off the runs'
// critical path; Flush waits for it (Runner.Run flushes before it
// returns; a caller using Model directly flushes itself). Answers are
// stored through the run's redactor, so a provider that echoes a key or a
// header value never puts it on disk; requests are not stored at all (only
// their hash), which keeps tool results that carry secrets off the disk too.
// Failed calls are never recorded.
type Cache struct {
	dir string
	// Bypass skips reads (for --no-cache) but still writes, so a forced
	// re-run refreshes the entries a later run will use.
	Bypass bool
	// Redactor masks every secret of the run in what is written; nil
	// writes answers as they came.
	Redactor *redact.Redactor

	markOnce sync.Once
	// schemas memoises canonicalJSON of tool schemas (raw text → canonical
	// form): every call of a run offers the same tools. dirs remembers the
	// entry directories already created.
	schemas sync.Map
	dirs    sync.Map
	// prefilled holds the answers batch APIs gave (Prefill), by key, until
	// the run's call takes them.
	prefilled prefilledMap

	// Entries are written by background writers, off the runs' critical
	// path; Flush waits for them.
	startWriter sync.Once
	queue       chan cacheEntry
	unwritten   sync.Map // key → *cacheEntry queued and not yet on disk
	pending     sync.WaitGroup
	errMu       sync.Mutex
	writeErr    error
}

// record queues e for the background writer.
func (c *Cache) record(e cacheEntry) {
	c.startWriter.Do(func() {
		c.queue = make(chan cacheEntry, 256)
		for range cacheWriters {
			go c.writer()
		}
	})
	c.pending.Add(1)
	c.unwritten.Store(e.Key, &e)
	c.queue <- e
}

// cacheWriters is how many files are written at once: disk time is mostly
// waiting, so a few writers keep up with many runs.
const cacheWriters = 4

func (c *Cache) writer() {
	for e := range c.queue {
		err := c.put(e)
		c.unwritten.Delete(e.Key)
		if err != nil {
			c.errMu.Lock()
			if c.writeErr == nil {
				c.writeErr = err
			}
			c.errMu.Unlock()
		}
		c.pending.Done()
	}
}

// Flush waits until every recorded answer is on disk and returns the
// first write error since the last Flush, if any. A nil cache has nothing
// to flush.
func (c *Cache) Flush() error {
	if c == nil {
		return nil
	}
	c.pending.Wait()
	c.errMu.Lock()
	defer c.errMu.Unlock()
	err := c.writeErr
	c.writeErr = nil
	return err
}

// NewCache returns a cache in dir (created on first write).
func NewCache(dir string) *Cache { return &Cache{dir: dir} }

// Dir returns the cache directory.
func (c *Cache) Dir() string { return c.dir }

// keyedRequest is what a key is the hash of: the whole llm.Request,
// every field of it (encoding/json writes each exported field, so a field
// added to llm.Request is in the key without a change here;
// TestCacheKeyCoversEveryRequestField fails for one that is not), in a
// normalised copy, with what is not in a request: the harness version,
// the provider's endpoint and the run index.
type keyedRequest struct {
	Harness  string      `json:"harness"`
	Endpoint string      `json:"endpoint"`
	Run      int         `json:"run"`
	Request  llm.Request `json:"request"`
}

// Key returns the hex SHA-256 key of one model call: the request as sent
// to endpoint (the provider's URL), for the run index run.
func (c *Cache) Key(endpoint string, run int, req llm.Request) string {
	// Schemas and arguments that mean the same key the same; copies keep
	// the caller's request untouched.
	if len(req.Tools) > 0 {
		tools := make([]llm.Tool, len(req.Tools))
		for i, t := range req.Tools {
			t.InputSchema = c.canonicalSchema(t.InputSchema)
			tools[i] = t
		}
		req.Tools = tools
	}
	copied := false
	for i, m := range req.Messages {
		if len(m.ToolCalls) == 0 {
			continue
		}
		calls := append([]llm.ToolCall(nil), m.ToolCalls...)
		for j := range calls {
			calls[j].Arguments = canonicalJSON(calls[j].Arguments)
		}
		if !copied {
			req.Messages = append([]llm.Message(nil), req.Messages...)
			copied = true
		}
		req.Messages[i].ToolCalls = calls
	}
	if req.Format != nil {
		f := *req.Format
		f.Schema = canonicalJSON(f.Schema)
		req.Format = &f
	}
	b, err := json.Marshal(keyedRequest{Harness: HarnessVersion, Endpoint: endpoint, Run: run, Request: req})
	if err != nil {
		// Only invalid raw JSON gets here, and canonicalJSON has already
		// replaced it; a key that cannot be built must still not collide.
		b = fmt.Appendf(nil, "unkeyable %q %q %d %d", endpoint, req.Model, run, time.Now().UnixNano())
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func (c *Cache) canonicalSchema(raw json.RawMessage) json.RawMessage {
	if c == nil {
		return canonicalJSON(raw)
	}
	if v, ok := c.schemas.Load(string(raw)); ok {
		return v.(json.RawMessage)
	}
	b := canonicalJSON(raw)
	c.schemas.Store(string(raw), b)
	return b
}

// canonicalJSON re-encodes a JSON value in canon's form, so that two
// spellings of the same schema share a key. Text that is not JSON is kept
// as a JSON string, which is still deterministic. (canon leaves <, > and &
// unescaped where json.Marshal escaped them; the key is the same, because
// json.Marshal of the keyed request escapes them in every RawMessage.)
func canonicalJSON(raw json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	if b, ok := canon.JSON(raw); ok {
		return b
	}
	b, _ := json.Marshal(string(raw))
	return b
}

// cacheEntry is one recorded answer. The identity beside it lets a person
// looking into the directory tell what a file is.
type cacheEntry struct {
	Key      string        `json:"key"`
	Endpoint string        `json:"endpoint"`
	Model    string        `json:"model"`
	Run      int           `json:"run"`
	Response *llm.Response `json:"response"`
	// LatencyNs is the recorded call's wall time, replayed to telemetry.
	LatencyNs int64 `json:"latencyNs"`
}

// path spreads entries over 256 subdirectories, as git does with objects,
// so that no directory grows to hundreds of thousands of files.
func (c *Cache) path(key string) string {
	return filepath.Join(c.dir, key[:2], key+".json")
}

func (c *Cache) get(key string) (*cacheEntry, bool) {
	if c == nil || c.Bypass || c.dir == "" {
		return nil, false
	}
	if e, ok := c.unwritten.Load(key); ok {
		return e.(*cacheEntry), true
	}
	data, err := os.ReadFile(c.path(key))
	if err != nil {
		return nil, false
	}
	var e cacheEntry
	if json.Unmarshal(data, &e) != nil || e.Key != key || e.Response == nil {
		return nil, false
	}
	return &e, true
}

func (c *Cache) put(e cacheEntry) error {
	if c == nil || c.dir == "" {
		return nil
	}
	data, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("cache entry for %s run %d: %w", e.Model, e.Run, err)
	}
	data = c.Redactor.JSON(data)
	p := c.path(e.Key)
	if _, ok := c.dirs.Load(filepath.Dir(p)); !ok {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		c.dirs.Store(filepath.Dir(p), true)
	}
	c.markOnce.Do(c.mark)
	f, err := os.CreateTemp(filepath.Dir(p), e.Key[:8]+".tmp-*")
	if err != nil {
		return err
	}
	// No fsync: an entry lost to a crash is only a miss next time, and
	// syncing hundreds of small files would cost more than the runs gain.
	_, werr := f.Write(data)
	cerr := f.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(f.Name(), p)
	}
	if werr != nil {
		os.Remove(f.Name())
		return werr
	}
	return nil
}

// Endpointer is implemented by providers that can name their endpoint
// (llm's providers do); the cache keys on it so that the same model name
// on another backend is never answered from the first backend's entries.
type Endpointer interface {
	Endpoint() string
}

// EndpointOf returns m's endpoint, or fallback when m cannot name one.
func EndpointOf(m agent.Model, fallback string) string {
	if e, ok := m.(Endpointer); ok {
		return e.Endpoint()
	}
	return fallback
}

// CachedModel is a model whose calls are recorded in, and replayed from, a
// Cache. It counts hits and misses, so a run can say whether any model was
// really asked.
type CachedModel struct {
	m        agent.Model
	c        *Cache
	endpoint string
	run      int
	hits     atomic.Int64
	misses   atomic.Int64
	batched  atomic.Int64
	mu       sync.Mutex
	usage    llm.Usage // of the calls the model answered
	// accept, when set, says which answers are recorded and replayed.
	accept func(*llm.Response) bool
}

// Accepting makes cm record and replay only the answers accept takes (the
// judge's: judge.Usable). One it refuses is passed on but never written,
// and an entry an older run wrote is not replayed: the model is asked
// again, so a malformed answer is not an error forever. It returns cm.
func (cm *CachedModel) Accepting(accept func(*llm.Response) bool) *CachedModel {
	cm.accept = accept
	return cm
}

// Model wraps m (talking to endpoint) for the calls of run index run. A
// nil cache still counts calls, and records nothing.
func (c *Cache) Model(m agent.Model, endpoint string, run int) *CachedModel {
	return &CachedModel{m: m, c: c, endpoint: endpoint, run: run}
}

// Complete implements agent.Model: a recorded answer to the identical
// request, or the model's answer, recorded when it succeeds.
func (cm *CachedModel) Complete(ctx context.Context, req llm.Request) (*llm.Response, error) {
	var key string
	if cm.c != nil {
		key = cm.c.Key(cm.endpoint, cm.run, req)
		if e, ok := cm.c.get(key); ok && (cm.accept == nil || cm.accept(e.Response)) {
			cm.hits.Add(1)
			resp := *e.Response
			resp.Replayed = true
			resp.Latency = time.Duration(e.LatencyNs)
			return &resp, nil
		}
	}
	cm.misses.Add(1)
	if resp, ok := cm.c.takePrefilled(key); ok {
		// A batch's answer to this very request: the model's answer,
		// billed at the batch rate, recorded like any live answer.
		cm.batched.Add(1)
		out := *resp
		out.Message.ToolCalls = append([]llm.ToolCall(nil), resp.Message.ToolCalls...)
		return cm.answered(req, key, &out, 0)
	}
	if cm.m == nil {
		return nil, fmt.Errorf("no provider configured for %s, and the cache has no answer to this request", req.Model)
	}
	start := time.Now()
	resp, err := cm.m.Complete(ctx, req)
	if err != nil || resp == nil {
		return resp, err
	}
	return cm.answered(req, key, resp, time.Since(start))
}

// answered counts a model's answer and records it (when accepted).
func (cm *CachedModel) answered(req llm.Request, key string, resp *llm.Response, latency time.Duration) (*llm.Response, error) {
	cm.mu.Lock()
	cm.usage.Add(resp.Usage)
	cm.mu.Unlock()
	if cm.c == nil || cm.accept != nil && !cm.accept(resp) {
		return resp, nil
	}
	// The entry is a copy: the caller may change the response it gets.
	saved := *resp
	saved.Message.ToolCalls = append([]llm.ToolCall(nil), resp.Message.ToolCalls...)
	cm.c.record(cacheEntry{Key: key, Endpoint: cm.endpoint, Model: req.Model, Run: cm.run, Response: &saved,
		LatencyNs: int64(latency)})
	return resp, nil
}

// Usage sums the usage of the calls the model answered (not replayed).
func (cm *CachedModel) Usage() llm.Usage {
	cm.mu.Lock()
	defer cm.mu.Unlock()
	return cm.usage
}

// Hits and Misses count the calls answered from the cache and those sent
// to the model.
func (cm *CachedModel) Hits() int64   { return cm.hits.Load() }
func (cm *CachedModel) Misses() int64 { return cm.misses.Load() }

// mark tags the directory as a cache. CACHEDIR.TAG makes backup tools skip
// it (https://bford.info/cachedir/). The default directory also gets a
// .gitignore of "*", which keeps it out of commits without the user editing
// their own .gitignore; a directory under another name was chosen on
// purpose, perhaps as a replay fixture meant to be committed, and is left
// alone. Failures are ignored: the markers are a courtesy.
func (c *Cache) mark() {
	tag := filepath.Join(c.dir, "CACHEDIR.TAG")
	if _, err := os.Stat(tag); err == nil {
		return
	}
	_ = os.WriteFile(tag, []byte("Signature: 8a477f597d28d172789f06886806bc55\n# This file marks mcp-eval's model-call cache. See https://bford.info/cachedir/\n"), 0o644)
	if filepath.Base(filepath.Clean(c.dir)) == DefaultCacheDir {
		_ = os.WriteFile(filepath.Join(c.dir, ".gitignore"), []byte("# mcp-eval's model-call cache; safe to delete.\n*\n"), 0o644)
	}
}
