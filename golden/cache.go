package golden

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/mcp-eval/mcp-eval/agent"
	"github.com/mcp-eval/mcp-eval/llm"
)

// DefaultCacheDir is where the CLI keeps the result cache.
const DefaultCacheDir = ".mcp-eval-cache"

// HarnessVersion is part of every cache key. Bump it whenever the agent
// loop or the runner changes what a model is shown or how a transcript is
// recorded, so that old transcripts are not replayed as if this harness
// had produced them.
const HarnessVersion = "mcp-eval-agent/1"

// Cache stores one transcript per job under dir, keyed by everything that
// can change the run: the case, the server's tool-surface fingerprint, the
// model, the run index, the task's prompt, system prompt, tools, stubs,
// input responses, turn and token limits and temperature, HarnessVersion,
// and the caller's extra string (the judge prompt's hash, say). A re-run of
// an unchanged suite is then answered entirely from disk, with no model
// call; change any of those and the affected runs miss.
//
// The cache doubles as record and replay: a run with a warm cache and no
// providers at all replays the recorded transcripts, which makes scoring
// tests deterministic.
//
// Entries are JSON files written atomically (a temporary file renamed into
// place), so concurrent runs and interrupted writes never leave half a file
// under a key; an unreadable entry is treated as a miss and rewritten.
// Task.OnResult is a function and cannot be keyed: a caller that sets it
// must put what it does into extra.
type Cache struct {
	dir, fingerprint, extra string
	// Bypass skips reads (for --no-cache) but still writes, so a forced
	// re-run refreshes the entries a later run will use.
	Bypass bool

	markOnce sync.Once
}

// NewCache returns a cache in dir (created on first write). fingerprint is
// the server's tool-surface fingerprint; extra is any further input that
// should invalidate entries when it changes.
func NewCache(dir, fingerprint, extra string) *Cache {
	return &Cache{dir: dir, fingerprint: fingerprint, extra: extra}
}

// Dir returns the cache directory.
func (c *Cache) Dir() string { return c.dir }

// cacheKey is what a key is the hash of. The JSON field names are fixed:
// renaming one changes every key.
type cacheKey struct {
	Harness        string                     `json:"harness"`
	Case           string                     `json:"case"`
	Fingerprint    string                     `json:"fingerprint"`
	Model          string                     `json:"model"`
	Run            int                        `json:"run"`
	System         string                     `json:"system"`
	Prompt         string                     `json:"prompt"`
	Tools          []llm.Tool                 `json:"tools"`
	Stubs          map[string]json.RawMessage `json:"stubs"`
	InputResponses map[string]json.RawMessage `json:"inputResponses"`
	MaxTurns       int                        `json:"maxTurns"`
	Temperature    *float64                   `json:"temperature"`
	MaxTokens      int                        `json:"maxTokens"`
	Extra          string                     `json:"extra"`
}

// Key returns the hex SHA-256 key of a job.
func (c *Cache) Key(j Job) string {
	t := j.Task
	maxTurns := t.MaxTurns
	if maxTurns <= 0 {
		maxTurns = agent.DefaultMaxTurns
	}
	k := cacheKey{
		Harness: HarnessVersion, Case: j.CaseID, Fingerprint: c.fingerprint, Model: j.Model, Run: j.Run,
		System: t.System, Prompt: t.Prompt,
		Stubs: canonicalMap(t.Stubs), InputResponses: canonicalMap(t.InputResponses),
		MaxTurns: maxTurns, Temperature: t.Temperature, MaxTokens: t.MaxTokens, Extra: c.extra,
	}
	for _, tool := range t.Tools {
		k.Tools = append(k.Tools, llm.Tool{Name: tool.Name, Description: tool.Description, InputSchema: canonicalJSON(tool.InputSchema)})
	}
	b, err := json.Marshal(k)
	if err != nil {
		// Only invalid raw JSON gets here, and canonicalJSON has already
		// replaced it; a key that cannot be built must still not collide.
		b = fmt.Appendf(nil, "unkeyable %q %q %d", j.CaseID, j.Model, j.Run)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// canonicalJSON re-encodes a JSON value with sorted keys and no spaces, so
// that two spellings of the same stub or schema share a key. Text that is
// not JSON is kept as a JSON string, which is still deterministic.
func canonicalJSON(raw json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		b, _ := json.Marshal(string(raw))
		return b
	}
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(string(raw))
	}
	return b
}

func canonicalMap(m map[string]json.RawMessage) map[string]json.RawMessage {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]json.RawMessage, len(m))
	for k, v := range m {
		if v = canonicalJSON(v); v == nil {
			v = json.RawMessage("null")
		}
		out[k] = v
	}
	return out
}

// cacheEntry is one file. The job's identity is kept beside the transcript
// so that a person looking into the directory can tell what a file is.
type cacheEntry struct {
	Key        string            `json:"key"`
	Case       string            `json:"case"`
	Model      string            `json:"model"`
	Run        int               `json:"run"`
	Transcript *agent.Transcript `json:"transcript"`
}

// path spreads entries over 256 subdirectories, as git does with objects,
// so that no directory grows to hundreds of thousands of files.
func (c *Cache) path(key string) string {
	return filepath.Join(c.dir, key[:2], key+".json")
}

// Get returns the stored transcript of j. A nil cache, Bypass, a missing
// entry and an unreadable one are all misses.
func (c *Cache) Get(j Job) (*agent.Transcript, bool) {
	if c == nil || c.Bypass {
		return nil, false
	}
	key := c.Key(j)
	data, err := os.ReadFile(c.path(key))
	if err != nil {
		return nil, false
	}
	var e cacheEntry
	if json.Unmarshal(data, &e) != nil || e.Key != key || e.Transcript == nil || !cacheableStop(e.Transcript.Stop) {
		return nil, false
	}
	return e.Transcript, true
}

func cacheableStop(s string) bool { return s == agent.StopFinal || s == agent.StopMaxTurns }

// Put stores tr as the transcript of j, replacing any entry. A nil cache
// stores nothing; an errored transcript is refused, since replaying an
// outage would hide the next real run.
func (c *Cache) Put(j Job, tr *agent.Transcript) error {
	if c == nil || tr == nil || !cacheableStop(tr.Stop) {
		return nil
	}
	key := c.Key(j)
	data, err := json.Marshal(cacheEntry{Key: key, Case: j.CaseID, Model: j.Model, Run: j.Run, Transcript: tr})
	if err != nil {
		return fmt.Errorf("cache entry for %s %s run %d: %w", j.CaseID, j.Model, j.Run, err)
	}
	p := c.path(key)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	c.markOnce.Do(c.mark)
	f, err := os.CreateTemp(filepath.Dir(p), key[:8]+".tmp-*")
	if err != nil {
		return err
	}
	// No fsync: a cache entry lost to a crash is only a miss next time, and
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
	_ = os.WriteFile(tag, []byte("Signature: 8a477f597d28d172789f06886806bc55\n# This file marks mcp-eval's result cache. See https://bford.info/cachedir/\n"), 0o644)
	if filepath.Base(filepath.Clean(c.dir)) == DefaultCacheDir {
		_ = os.WriteFile(filepath.Join(c.dir, ".gitignore"), []byte("# mcp-eval's result cache; safe to delete.\n*\n"), 0o644)
	}
}
