package golden

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcp-eval/mcp-eval/agent"
	"github.com/mcp-eval/mcp-eval/mcp"
)

// TestCacheRerunMakesNoModelCalls is the cache's promise: an unchanged
// re-run is answered from disk with zero model calls, even with no
// provider at all (replay), and returns the recorded transcripts.
func TestCacheRerunMakesNoModelCalls(t *testing.T) {
	t.Parallel()
	_, c, tools := fixtureClient(t)
	dir := t.TempDir()
	jobs := makeJobs(tools, 6, []string{"openai:m1", "anthropic:m2"}, 3)

	first := &weatherModel{}
	r := &Runner{Providers: map[string]agent.Model{"openai": first, "anthropic": first}, Server: c,
		Cache: NewCache(dir, "fp-1", "judge-1")}
	recorded := r.Run(t.Context(), jobs)
	if first.calls.Load() == 0 {
		t.Fatal("the first run made no model call")
	}

	second := &weatherModel{}
	r2 := &Runner{Providers: map[string]agent.Model{"openai": second, "anthropic": second}, Server: c,
		Cache: NewCache(dir, "fp-1", "judge-1")}
	replayed := r2.Run(t.Context(), jobs)
	if n := second.calls.Load(); n != 0 {
		t.Errorf("the re-run made %d model calls; want 0", n)
	}
	for i := range replayed {
		if !replayed[i].Cached {
			t.Errorf("result %d not from the cache", i)
		}
		if d := cmp.Diff(recorded[i].Transcript, replayed[i].Transcript); d != "" {
			t.Errorf("result %d differs from the recording (-want +got):\n%s", i, d)
		}
	}

	// Replay needs neither providers nor a server.
	r3 := &Runner{Cache: NewCache(dir, "fp-1", "judge-1")}
	for i, res := range r3.Run(t.Context(), jobs) {
		if !res.Cached || res.Transcript.Stop == agent.StopError {
			t.Errorf("replay result %d: cached %v stop %q", i, res.Cached, res.Transcript.Stop)
		}
	}
}

// TestCacheMisses: changing a prompt misses only that case's runs;
// changing the fingerprint, the extra string or bypassing misses all.
func TestCacheMisses(t *testing.T) {
	t.Parallel()
	_, c, tools := fixtureClient(t)
	dir := t.TempDir()
	jobs := makeJobs(tools, 4, []string{"openai:m"}, 2)
	run := func(cache *Cache, jobs []Job) (calls int64, cached int) {
		m := &weatherModel{}
		r := &Runner{Providers: map[string]agent.Model{"openai": m}, Server: c, Cache: cache}
		for _, res := range r.Run(t.Context(), jobs) {
			if res.Cached {
				cached++
			}
		}
		return m.calls.Load(), cached
	}
	run(NewCache(dir, "fp-1", ""), jobs)

	changed := append([]Job(nil), jobs...)
	changed[0].Task.Prompt += " (tomorrow)"
	changed[1].Task.Prompt += " (tomorrow)"
	if _, cached := run(NewCache(dir, "fp-1", ""), changed); cached != len(jobs)-2 {
		t.Errorf("changed prompt: %d cached; want %d", cached, len(jobs)-2)
	}
	if calls, cached := run(NewCache(dir, "fp-2", ""), jobs); cached != 0 || calls == 0 {
		t.Errorf("changed fingerprint: %d cached, %d calls; want all missed", cached, calls)
	}
	if _, cached := run(NewCache(dir, "fp-1", "judge-2"), jobs); cached != 0 {
		t.Errorf("changed extra: %d cached; want 0", cached)
	}
	bypass := NewCache(dir, "fp-1", "")
	bypass.Bypass = true
	if _, cached := run(bypass, jobs); cached != 0 {
		t.Errorf("bypass: %d cached; want 0", cached)
	}
}

func TestCacheKey(t *testing.T) {
	t.Parallel()
	temp0, temp1 := 0.0, 1.0
	base := Job{CaseID: "weather", Model: "openai:m", Run: 2, Task: agent.Task{
		System: "sys", Prompt: "p", MaxTurns: 4, Temperature: &temp0, MaxTokens: 100,
		Tools:          []mcp.Tool{{Name: "t", Description: "d", InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)}},
		Stubs:          map[string]json.RawMessage{"t": json.RawMessage(`{"a":1,"b":[1,2]}`)},
		InputResponses: map[string]json.RawMessage{"confirm": json.RawMessage(`{"action":"accept"}`)},
	}}
	c := NewCache(t.TempDir(), "fp", "x")
	key := c.Key(base)
	changes := map[string]func(j *Job){
		"case":           func(j *Job) { j.CaseID = "other" },
		"model":          func(j *Job) { j.Model = "openai:n" },
		"run":            func(j *Job) { j.Run = 3 },
		"system":         func(j *Job) { j.Task.System = "sys2" },
		"prompt":         func(j *Job) { j.Task.Prompt = "p2" },
		"max turns":      func(j *Job) { j.Task.MaxTurns = 5 },
		"temperature":    func(j *Job) { j.Task.Temperature = &temp1 },
		"no temperature": func(j *Job) { j.Task.Temperature = nil },
		"max tokens":     func(j *Job) { j.Task.MaxTokens = 200 },
		"description": func(j *Job) {
			j.Task.Tools = []mcp.Tool{{Name: "t", Description: "d2", InputSchema: base.Task.Tools[0].InputSchema}}
		},
		"stub":    func(j *Job) { j.Task.Stubs = map[string]json.RawMessage{"t": json.RawMessage(`{"a":2,"b":[1,2]}`)} },
		"no stub": func(j *Job) { j.Task.Stubs = nil },
		"input responses": func(j *Job) {
			j.Task.InputResponses = map[string]json.RawMessage{"confirm": json.RawMessage(`{"action":"decline"}`)}
		},
	}
	for name, change := range changes {
		j := base
		change(&j)
		if c.Key(j) == key {
			t.Errorf("%s: key unchanged", name)
		}
	}
	if NewCache("", "fp2", "x").Key(base) == key || NewCache("", "fp", "y").Key(base) == key {
		t.Error("fingerprint or extra: key unchanged")
	}
	// Spelling that does not change meaning does not change the key.
	same := base
	same.Task.Stubs = map[string]json.RawMessage{"t": json.RawMessage(`{ "b": [1, 2], "a": 1 }`)}
	if c.Key(same) != key {
		t.Error("reordered stub keys changed the key")
	}
	// 0 max turns means the default, and keys as the default.
	a, b := base, base
	a.Task.MaxTurns, b.Task.MaxTurns = 0, agent.DefaultMaxTurns
	if c.Key(a) != c.Key(b) {
		t.Error("MaxTurns 0 and DefaultMaxTurns key differently")
	}
}

func TestCacheFiles(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), DefaultCacheDir)
	c := NewCache(dir, "fp", "")
	job := Job{CaseID: "a", Model: "openai:m", Task: agent.Task{Prompt: "p"}}
	tr := &agent.Transcript{Stop: agent.StopFinal, Final: "ok", ModelCalls: 1, Calls: []agent.Call{}}

	if _, ok := c.Get(job); ok {
		t.Fatal("hit in an empty cache")
	}
	if err := c.Put(job, tr); err != nil {
		t.Fatal(err)
	}
	got, ok := c.Get(job)
	if !ok || got.Final != "ok" {
		t.Fatalf("Get after Put: %+v %v", got, ok)
	}
	// Only the entry and the markers: no temporary file is left behind.
	var files []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	key := c.Key(job)
	want := []string{".gitignore", "CACHEDIR.TAG", key[:2] + "/" + key + ".json"}
	if d := cmp.Diff(want, files); d != "" {
		t.Errorf("files (-want +got):\n%s", d)
	}

	// A corrupt entry is a miss, and the next Put repairs it.
	entry := filepath.Join(dir, key[:2], key+".json")
	for _, bad := range []string{`{"key":"`, `{"key":"other","transcript":{"stop":"final"}}`, `{"key":"` + key + `","transcript":{"stop":"error"}}`} {
		if err := os.WriteFile(entry, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, ok := c.Get(job); ok {
			t.Errorf("corrupt entry %q: hit", bad)
		}
	}
	if err := c.Put(job, tr); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Get(job); !ok {
		t.Error("no hit after rewriting a corrupt entry")
	}

	// Errored transcripts are not stored; a nil cache is inert.
	errJob := Job{CaseID: "b", Model: "openai:m"}
	if err := c.Put(errJob, &agent.Transcript{Stop: agent.StopError, Err: "503"}); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Get(errJob); ok {
		t.Error("an errored transcript was cached")
	}
	var nilCache *Cache
	if _, ok := nilCache.Get(job); ok || nilCache.Put(job, tr) != nil {
		t.Error("nil cache is not inert")
	}

	// A cache under another name is not git-ignored: it may be a replay
	// fixture meant to be committed.
	other := filepath.Join(t.TempDir(), "replay")
	if err := NewCache(other, "fp", "").Put(job, tr); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(other, ".gitignore")); !os.IsNotExist(err) {
		t.Errorf(".gitignore in a non-default cache dir: %v", err)
	}
}

// TestCacheSkipsErroredRuns: a provider outage is not recorded, so the
// next run tries again instead of replaying the failure.
func TestCacheSkipsErroredRuns(t *testing.T) {
	t.Parallel()
	_, c, tools := fixtureClient(t)
	dir := t.TempDir()
	jobs := makeJobs(tools, 2, []string{"openai:m"}, 1)
	down := &errModel{}
	r := &Runner{Providers: map[string]agent.Model{"openai": down}, Server: c, Cache: NewCache(dir, "fp", "")}
	for _, res := range r.Run(t.Context(), jobs) {
		if res.Transcript.Stop != agent.StopError || !strings.Contains(res.Transcript.Err, "503") {
			t.Errorf("got %+v; want the provider error", res.Transcript)
		}
	}
	up := &weatherModel{}
	r.Providers = map[string]agent.Model{"openai": up}
	for _, res := range r.Run(t.Context(), jobs) {
		if res.Cached || res.Transcript.Stop != agent.StopFinal {
			t.Errorf("after the outage: cached %v stop %q; want a fresh run", res.Cached, res.Transcript.Stop)
		}
	}
	if up.calls.Load() == 0 {
		t.Error("no model call after the outage")
	}
}
