package runs

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcp-eval/mcp-eval/agent"
	"github.com/mcp-eval/mcp-eval/internal/redact"
	"github.com/mcp-eval/mcp-eval/llm"
	"github.com/mcp-eval/mcp-eval/mcp"
)

// TestCacheRerunMakesNoModelCalls is the cache's promise: an unchanged
// re-run asks no model anything, still calls every tool on the live
// server, and scores the same transcripts.
func TestCacheRerunMakesNoModelCalls(t *testing.T) {
	t.Parallel()
	_, c, tools := fixtureClient(t)
	dir := t.TempDir()
	jobs := makeJobs(tools, 6, []string{"openai:m1", "anthropic:m2"}, 3)

	first := &weatherModel{}
	r := &Runner{Providers: map[string]agent.Model{"openai": first, "anthropic": first}, Server: c, Cache: NewCache(dir)}
	recorded := r.Run(t.Context(), jobs)
	if first.calls.Load() == 0 {
		t.Fatal("the first run made no model call")
	}

	second := &weatherModel{}
	r2 := &Runner{Providers: map[string]agent.Model{"openai": second, "anthropic": second}, Server: c, Cache: NewCache(dir)}
	replayed := r2.Run(t.Context(), jobs)
	if n := second.calls.Load(); n != 0 {
		t.Errorf("the re-run made %d model calls; want 0", n)
	}
	executed := 0
	for i := range replayed {
		if !replayed[i].Cached {
			t.Errorf("result %d not from the cache", i)
		}
		got, want := replayed[i].Transcript, recorded[i].Transcript
		if d := cmp.Diff(want.Selected(), got.Selected()); d != "" {
			t.Errorf("result %d calls differ from the recording (-want +got):\n%s", i, d)
		}
		if got.Final != want.Final || got.ReplayedCalls != got.ModelCalls {
			t.Errorf("result %d: final %q (recorded %q), %d of %d calls replayed", i, got.Final, want.Final, got.ReplayedCalls, got.ModelCalls)
		}
		for _, call := range got.Calls {
			if call.Executed {
				executed++
			}
		}
	}
	if executed == 0 {
		t.Error("the replayed runs executed no tool call; tools must always run live")
	}
}

// resultServer answers every tool call with its current text.
type resultServer struct {
	mu    sync.Mutex
	text  string
	calls atomic.Int64
}

func (s *resultServer) set(text string) { s.mu.Lock(); s.text = text; s.mu.Unlock() }

func (s *resultServer) CallTool(context.Context, string, map[string]any, map[string]any) (*mcp.CallToolResult, error) {
	s.calls.Add(1)
	s.mu.Lock()
	defer s.mu.Unlock()
	b, _ := json.Marshal(map[string]string{"type": "text", "text": s.text})
	return &mcp.CallToolResult{Content: []json.RawMessage{b}}, nil
}

// TestCacheSeesToolResultChange: the tool list stays the same, the tool's
// answer changes between two cached runs. The first model call (same
// request) is replayed; the second one carries the new result, so it must
// reach the model — and the run's answer is the fresh one.
func TestCacheSeesToolResultChange(t *testing.T) {
	t.Parallel()
	srv := &resultServer{text: "18 °C"}
	tools := []mcp.Tool{{Name: "get_forecast", InputSchema: json.RawMessage(`{"type":"object"}`)}}
	jobs := []Job{{CaseID: "a", Model: "openai:m", Task: agent.Task{Prompt: "get_forecast: Oslo", Tools: tools}}}
	dir := t.TempDir()
	run := func() (*weatherModel, Result) {
		m := &weatherModel{}
		r := &Runner{Providers: map[string]agent.Model{"openai": m}, Server: srv, Cache: NewCache(dir)}
		return m, r.Run(t.Context(), jobs)[0]
	}
	if m, res := run(); m.calls.Load() != 2 || res.Cached || res.Transcript.Final != "Answer: 18 °C" {
		t.Fatalf("first run: %d model calls, cached %v, final %q", m.calls.Load(), res.Cached, res.Transcript.Final)
	}
	if m, res := run(); m.calls.Load() != 0 || !res.Cached {
		t.Fatalf("unchanged re-run: %d model calls, cached %v", m.calls.Load(), res.Cached)
	}
	srv.set("-4 °C, snow")
	m, res := run()
	if m.calls.Load() != 1 || res.Cached || res.Transcript.ReplayedCalls != 1 {
		t.Errorf("after the result changed: %d model calls (want 1), cached %v, %d replayed (want 1)",
			m.calls.Load(), res.Cached, res.Transcript.ReplayedCalls)
	}
	if res.Transcript.Final != "Answer: -4 °C, snow" {
		t.Errorf("final %q: a stale answer was replayed", res.Transcript.Final)
	}
	if srv.calls.Load() != 3 {
		t.Errorf("the server saw %d tool calls over 3 runs; want 3 (tools always run)", srv.calls.Load())
	}
}

func TestCacheKey(t *testing.T) {
	t.Parallel()
	temp0, temp1 := 0.0, 1.0
	base := llm.Request{Model: "m", MaxTokens: 100, Temperature: &temp0,
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "sys"},
			{Role: llm.RoleUser, Content: "p"},
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c1", Name: "t", Arguments: json.RawMessage(`{"a":1,"b":[1,2]}`)}}},
			{Role: llm.RoleTool, ToolCallID: "c1", Content: "result"},
		},
		Tools: []llm.Tool{{Name: "t", Description: "d", InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)}},
	}
	c := NewCache(t.TempDir())
	const endpoint = "https://api.openai.com/v1/chat/completions"
	key := c.Key(endpoint, 0, base)
	clone := func(r llm.Request) llm.Request {
		r.Messages = append([]llm.Message(nil), r.Messages...)
		r.Tools = append([]llm.Tool(nil), r.Tools...)
		return r
	}
	changes := map[string]func(r *llm.Request){
		"model":          func(r *llm.Request) { r.Model = "n" },
		"system":         func(r *llm.Request) { r.Messages[0].Content = "sys2" },
		"prompt":         func(r *llm.Request) { r.Messages[1].Content = "p2" },
		"tool result":    func(r *llm.Request) { r.Messages[3].Content = "other result" },
		"error flag":     func(r *llm.Request) { r.Messages[3].IsError = true },
		"temperature":    func(r *llm.Request) { r.Temperature = &temp1 },
		"no temperature": func(r *llm.Request) { r.Temperature = nil },
		"max tokens":     func(r *llm.Request) { r.MaxTokens = 200 },
		"description":    func(r *llm.Request) { r.Tools[0].Description = "d2" },
		"format":         func(r *llm.Request) { r.Format = &llm.Format{Name: "verdict", Schema: json.RawMessage(`{}`)} },
		"arguments": func(r *llm.Request) {
			r.Messages[2].ToolCalls = []llm.ToolCall{{ID: "c1", Name: "t", Arguments: json.RawMessage(`{"a":2}`)}}
		},
	}
	for name, change := range changes {
		r := clone(base)
		change(&r)
		if c.Key(endpoint, 0, r) == key {
			t.Errorf("%s: key unchanged", name)
		}
	}
	if c.Key("http://localhost:11434/v1/chat/completions", 0, base) == key {
		t.Error("another endpoint: key unchanged")
	}
	if c.Key(endpoint, 1, base) == key {
		t.Error("another run index: key unchanged")
	}
	// Spelling that does not change meaning does not change the key.
	same := clone(base)
	same.Messages[2].ToolCalls = []llm.ToolCall{{ID: "c1", Name: "t", Arguments: json.RawMessage(`{ "b": [1, 2], "a": 1 }`)}}
	same.Tools[0].InputSchema = json.RawMessage(`{"properties": {}, "type": "object"}`)
	if c.Key(endpoint, 0, same) != key {
		t.Error("reordered JSON keys changed the key")
	}
	if string(base.Messages[2].ToolCalls[0].Arguments) != `{"a":1,"b":[1,2]}` {
		t.Error("Key changed the caller's request")
	}
}

// countingModel answers every request with the same text.
type countingModel struct {
	calls atomic.Int64
	text  string
	err   error
}

func (m *countingModel) Complete(context.Context, llm.Request) (*llm.Response, error) {
	m.calls.Add(1)
	if m.err != nil {
		return nil, m.err
	}
	return &llm.Response{Model: "m", Message: llm.Message{Role: llm.RoleAssistant, Content: m.text}, Usage: llm.Usage{InputTokens: 3}}, nil
}

func TestCacheFiles(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), DefaultCacheDir)
	c := NewCache(dir)
	req := llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.RoleUser, Content: "p"}}}
	inner := &countingModel{text: "ok"}
	cm := c.Model(inner, "e", 0)
	for range 2 {
		resp, err := cm.Complete(t.Context(), req)
		if err != nil || resp.Message.Content != "ok" {
			t.Fatalf("Complete: %v %+v", err, resp)
		}
	}
	if inner.calls.Load() != 1 || cm.Hits() != 1 || cm.Misses() != 1 {
		t.Fatalf("%d model calls, %d hits, %d misses; want 1, 1, 1", inner.calls.Load(), cm.Hits(), cm.Misses())
	}
	if err := c.Flush(); err != nil {
		t.Fatal(err)
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
	key := c.Key("e", 0, req)
	want := []string{".gitignore", "CACHEDIR.TAG", key[:2] + "/" + key + ".json"}
	slices.Sort(want)
	if d := cmp.Diff(want, files); d != "" {
		t.Errorf("files (-want +got):\n%s", d)
	}

	// A corrupt entry is a miss, and the next call repairs it.
	entry := filepath.Join(dir, key[:2], key+".json")
	for _, bad := range []string{`{"key":"`, `{"key":"other","response":{}}`, `{"key":"` + key + `"}`} {
		if err := os.WriteFile(entry, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		before := inner.calls.Load()
		if _, err := cm.Complete(t.Context(), req); err != nil || inner.calls.Load() != before+1 {
			t.Errorf("corrupt entry %q: answered from the cache", bad)
		}
		c.Flush()
	}
	if _, err := cm.Complete(t.Context(), req); err != nil || cm.Hits() != 2 {
		t.Errorf("no hit after rewriting a corrupt entry (%d hits)", cm.Hits())
	}

	// Bypass asks the model but still records.
	bypass := NewCache(dir)
	bypass.Bypass = true
	before := inner.calls.Load()
	bypass.Model(inner, "e", 0).Complete(t.Context(), req)
	if inner.calls.Load() != before+1 {
		t.Error("Bypass answered from the cache")
	}
	bypass.Flush()

	// A cache under another name is not git-ignored: it may be a replay
	// fixture meant to be committed.
	other := filepath.Join(t.TempDir(), "replay")
	oc := NewCache(other)
	oc.Model(inner, "e", 0).Complete(t.Context(), req)
	oc.Flush()
	if _, err := os.Stat(filepath.Join(other, ".gitignore")); !os.IsNotExist(err) {
		t.Errorf(".gitignore in a non-default cache dir: %v", err)
	}
}

// TestCacheNeverStoresSecrets: a provider that echoes the API key (in any
// spelling) does not put it on disk, and requests — whose tool results may
// carry header tokens — are not stored at all.
func TestCacheNeverStoresSecrets(t *testing.T) {
	t.Parallel()
	const key = "sk-proj-SECRET/0123456789<abc>"
	red, err := redact.New(redact.Secret{Source: "OPENAI_API_KEY", Value: key})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	c := NewCache(dir)
	c.Redactor = red
	escaped, _ := json.Marshal(key)
	inner := &countingModel{text: "your key is " + key + " or " + string(escaped)}
	req := llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.RoleUser, Content: "p"},
		{Role: llm.RoleTool, Content: "token " + key}}}
	if _, err := c.Model(inner, "e", 0).Complete(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		b, _ := os.ReadFile(p)
		for _, sp := range redact.Spellings(key) {
			if strings.Contains(string(b), sp) {
				t.Errorf("%s holds the key spelled %q", p, sp)
			}
		}
		return nil
	})
}

// TestCacheSkipsErrors: a failed call is not recorded, so the next run
// asks again instead of replaying the outage.
func TestCacheSkipsErrors(t *testing.T) {
	t.Parallel()
	_, c, tools := fixtureClient(t)
	dir := t.TempDir()
	jobs := makeJobs(tools, 2, []string{"openai:m"}, 1)
	down := &errModel{}
	r := &Runner{Providers: map[string]agent.Model{"openai": down}, Server: c, Cache: NewCache(dir)}
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

// TestCacheAccepting: an answer the acceptance rule refuses (a judge's
// malformed verdict) is passed on but not recorded, and an entry an older
// run recorded is not replayed: the next call asks the model again.
func TestCacheAccepting(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	req := llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.RoleUser, Content: "grade this"}}}
	good := func(r *llm.Response) bool { return r.Message.Content == "verdict" }

	bad := &countingModel{text: "not a verdict"}
	c := NewCache(dir)
	if resp, err := c.Model(bad, "e", 0).Accepting(good).Complete(t.Context(), req); err != nil || resp.Message.Content != "not a verdict" {
		t.Fatalf("Complete = %+v, %v; want the answer passed on", resp, err)
	}
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}
	// Without the rule the same answer is recorded, as an older run did.
	old := NewCache(dir)
	if _, err := old.Model(bad, "e", 0).Complete(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	if err := old.Flush(); err != nil {
		t.Fatal(err)
	}
	if bad.calls.Load() != 2 {
		t.Fatalf("%d model calls; want 2 (the refused answer was replayed)", bad.calls.Load())
	}

	fixed := &countingModel{text: "verdict"}
	last := NewCache(dir)
	cm := last.Model(fixed, "e", 0).Accepting(good)
	for range 2 {
		if resp, err := cm.Complete(t.Context(), req); err != nil || resp.Message.Content != "verdict" {
			t.Fatalf("Complete = %+v, %v", resp, err)
		}
	}
	if err := last.Flush(); err != nil {
		t.Fatal(err)
	}
	if fixed.calls.Load() != 1 || cm.Hits() != 1 {
		t.Errorf("%d model calls, %d hits; want the old entry ignored once, then the verdict replayed", fixed.calls.Load(), cm.Hits())
	}
}
