package ollama

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/mcp-eval/mcp-eval/llm"
	"github.com/mcp-eval/mcp-eval/llm/llmtest"
	"github.com/mcp-eval/mcp-eval/llm/ollama/ollamatest"
	"github.com/mcp-eval/mcp-eval/llm/providertest"
)

func TestHost(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"":                        "http://127.0.0.1:11434",
		"127.0.0.1":               "http://127.0.0.1:11434",
		"0.0.0.0":                 "http://127.0.0.1:11434",
		"0.0.0.0:11435":           "http://127.0.0.1:11435",
		"[::]:11434":              "http://[::1]:11434",
		"ollama:11434":            "http://ollama:11434",
		"gpu-box":                 "http://gpu-box:11434",
		"http://gpu-box":          "http://gpu-box:80",
		"https://ollama.example":  "https://ollama.example:443",
		"https://x.example/proxy": "https://x.example:443/proxy",
	} {
		u, err := host(in)
		if err != nil || u.String() != want {
			t.Errorf("host(%q) = %v, %v; want %s", in, u, err, want)
		}
	}
	for _, bad := range []string{"ftp://x", "x:99999", "x:port"} {
		if _, err := host(bad); err == nil {
			t.Errorf("host(%q): no error", bad)
		}
	}
}

// rig is a provider on the emulation with opts, and what it received.
func rig(t *testing.T, opts llmtest.Options) (llm.Provider, *[][]byte) {
	t.Helper()
	var bodies [][]byte
	var mu sync.Mutex
	em := ollamatest.Emulate(opts)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var b bytes.Buffer
		b.ReadFrom(r.Body)
		mu.Lock()
		bodies = append(bodies, b.Bytes())
		mu.Unlock()
		r.Body = http.NoBody
		if b.Len() > 0 {
			r.Body = readCloser{bytes.NewReader(b.Bytes())}
		}
		em.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	p, err := Def.New(Def, llm.NewEnv(func(k string) string {
		if k == "OLLAMA_HOST" {
			return srv.URL
		}
		return ""
	}), llm.NewSettings(llm.WithMaxRetries(0)))
	if err != nil {
		t.Fatal(err)
	}
	return p, &bodies
}

type readCloser struct{ *bytes.Reader }

func (readCloser) Close() error { return nil }

var weather = llm.Tool{Name: "get_weather", Description: "Weather for a city.",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)}

// TestWire: what goes over the wire for a tool round, byte for byte: stream
// false, options, arguments as an object, the tool result's tool_name.
func TestWire(t *testing.T) {
	t.Parallel()
	p, bodies := rig(t, llmtest.Options{Models: []string{"qwen2.5:7b"}, Reply: func(r llmtest.Request) llmtest.Reply {
		if r.ToolResults() == 0 {
			return llmtest.Reply{Calls: []llmtest.ReplyCall{{Name: "get_weather", Args: `{"city":"Paris"}`}}}
		}
		return llmtest.Reply{Text: "Sunny."}
	}})
	zero := 0.0
	req := llm.Request{Model: "qwen2.5:7b", Temperature: &zero, MaxTokens: 64, Tools: []llm.Tool{weather},
		Messages: []llm.Message{{Role: llm.RoleUser, Content: "Weather in Paris?"}}}
	resp, err := p.Complete(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StopReason != llm.StopToolUse || len(resp.Message.ToolCalls) != 1 || string(resp.Message.ToolCalls[0].Arguments) != `{"city":"Paris"}` ||
		!strings.HasPrefix(resp.Message.ToolCalls[0].ID, "call_") || resp.Usage != (llm.Usage{InputTokens: 10, OutputTokens: 5}) {
		t.Fatalf("answer %+v", resp)
	}
	call := resp.Message.ToolCalls[0]
	req.Messages = append(req.Messages, resp.Message, llm.Message{Role: llm.RoleTool, ToolCallID: call.ID, Content: "18 °C, sunny"})
	if resp, err = p.Complete(t.Context(), req); err != nil || resp.Message.Content != "Sunny." {
		t.Fatalf("%+v, %v", resp, err)
	}
	want := `{"model":"qwen2.5:7b","messages":[{"role":"user","content":"Weather in Paris?"},` +
		`{"role":"assistant","content":"","tool_calls":[{"id":"` + call.ID + `","function":{"name":"get_weather","arguments":{"city":"Paris"}}}]},` +
		`{"role":"tool","content":"18 °C, sunny","tool_name":"get_weather","tool_call_id":"` + call.ID + `"}],` +
		`"tools":[{"type":"function","function":{"name":"get_weather","description":"Weather for a city.","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}}],` +
		`"stream":false,"options":{"temperature":0,"num_predict":64}}`
	if got := string((*bodies)[1]); got != want {
		t.Errorf("second request\n got %s\nwant %s", got, want)
	}
}

// TestEmulationIsStrict: what Ollama's decoder refuses, the emulation
// refuses, so a client that sent it would fail here first.
func TestEmulationIsStrict(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(ollamatest.Emulate(llmtest.Options{Models: []string{"qwen2.5:7b"}}))
	defer srv.Close()
	for name, tt := range map[string]struct {
		body   string
		status int
		msg    string
	}{
		"arguments as a string":   {`{"model":"qwen2.5:7b","stream":false,"messages":[{"role":"assistant","tool_calls":[{"function":{"name":"f","arguments":"{\"a\":1}"}}]}]}`, 400, "cannot unmarshal string"},
		"a boolean property":      {`{"model":"qwen2.5","stream":false,"messages":[],"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{"a":true}}}}]}`, 400, "api.ToolProperty"},
		"a type list at the root": {`{"model":"qwen2.5","stream":false,"messages":[],"tools":[{"type":"function","function":{"name":"f","parameters":{"type":["object"]}}}]}`, 400, "cannot unmarshal array"},
		"a model not pulled":      {`{"model":"llama3.2","stream":false,"messages":[{"role":"user","content":"hi"}]}`, 404, "model 'llama3.2' not found"},
		"no body":                 {``, 400, "missing request body"},
		"the name without a tag":  {`{"model":"qwen2.5:7b","stream":false,"messages":[{"role":"user","content":"hi"}]}`, 200, `"done":true`},
	} {
		res, err := http.Post(srv.URL+"/api/chat", "application/json", strings.NewReader(tt.body))
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		b.ReadFrom(res.Body)
		res.Body.Close()
		if res.StatusCode != tt.status || !strings.Contains(b.String(), tt.msg) {
			t.Errorf("%s: %d %s; want %d with %q", name, res.StatusCode, b.String(), tt.status, tt.msg)
		}
	}
	// Without "stream": false Ollama streams NDJSON, which is not one
	// answer: the client must always say false (TestWire).
	res, err := http.Post(srv.URL+"/api/chat", "application/json", strings.NewReader(`{"model":"qwen2.5:7b","messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if ct := res.Header.Get("Content-Type"); ct != "application/x-ndjson" {
		t.Errorf("default answer %s, want an NDJSON stream", ct)
	}
}

// TestOlderVersionsWithoutIDs: an answer without tool-call ids gets ids
// the agent loop echoes back; the history still names each result's tool.
func TestOlderVersionsWithoutIDs(t *testing.T) {
	t.Parallel()
	p, _ := rig(t, llmtest.Options{Models: []string{"llama3.1:8b"}, Quirks: map[string]bool{"no-ids": true}, Reply: func(r llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Calls: []llmtest.ReplyCall{{Name: "get_weather", Args: `{"city":"Paris"}`}, {Name: "get_weather", Args: `{"city":"Oslo"}`}}}
	}})
	resp, err := p.Complete(t.Context(), llm.Request{Model: "llama3.1:8b", Tools: []llm.Tool{weather}, Messages: []llm.Message{{Role: llm.RoleUser, Content: "Paris and Oslo?"}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Message.ToolCalls) != 2 || resp.Message.ToolCalls[0].ID == resp.Message.ToolCalls[1].ID || resp.StopReason != llm.StopToolUse {
		t.Errorf("calls %+v", resp.Message.ToolCalls)
	}
}

// TestExplain: a model that is not pulled or cannot call tools is one
// final error saying what to do, not five retries.
func TestExplain(t *testing.T) {
	t.Parallel()
	p, bodies := rig(t, llmtest.Options{Models: []string{"gemma3:270m"}, Quirks: map[string]bool{"no-tools": true}})
	_, err := p.Complete(t.Context(), llm.Request{Model: "gemma3:270m", Tools: []llm.Tool{weather}, Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}})
	if err == nil || !strings.Contains(err.Error(), "does not support tools") || !strings.Contains(err.Error(), "pick one that can") {
		t.Errorf("got %v", err)
	}
	err = p.(llm.Prober).Probe(t.Context(), "gemma3:270m")
	if err == nil || !strings.Contains(err.Error(), "model ollama:gemma3:270m at http://127.0.0.1:") || !strings.Contains(err.Error(), "does not support tools") {
		t.Errorf("probe: %v", err)
	}
	err = p.(llm.Prober).Probe(t.Context(), "gemma3:27")
	var me *llm.ModelNotServedError
	if !errors.As(err, &me) || !strings.Contains(err.Error(), `did you mean "gemma3:270m"?`) || !strings.Contains(err.Error(), "ollama pull gemma3:27") {
		t.Errorf("probe of a model not pulled: %v", err)
	}
	n := len(*bodies)
	_, err = p.Complete(t.Context(), llm.Request{Model: "qwen3", Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}})
	if err == nil || !strings.Contains(err.Error(), "ollama pull qwen3") || len(*bodies) != n+1 {
		t.Errorf("got %v after %d requests", err, len(*bodies)-n)
	}
}

// TestProbeLineAsREADMEShowsIt: the line README.md shows for a model that
// is not pulled.
func TestProbeLineAsREADMEShowsIt(t *testing.T) {
	t.Parallel()
	_, env, _ := providertest.Serve(t, Def, llmtest.Options{Models: []string{"qwen2.5:7b", "llama3.2"}})
	env["OLLAMA_HOST"] = strings.Replace(env["OLLAMA_HOST"], "http://127.0.0.1:", "127.0.0.1:", 1)
	p, err := Def.New(Def, llm.NewEnv(func(k string) string { return env[k] }), llm.NewSettings())
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := strings.Cut(env["OLLAMA_HOST"], ":")
	want := `model ollama:qwen2.5:7 at http://127.0.0.1:` + port + `: the server serves no model "qwen2.5:7" (did you mean "qwen2.5:7b"? it serves llama3.2:latest, qwen2.5:7b); pull it: ollama pull qwen2.5:7`
	if err := p.(llm.Prober).Probe(t.Context(), "qwen2.5:7"); err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
	readme, _ := os.ReadFile("../../README.md")
	if !strings.Contains(string(readme), strings.Replace(want, ":"+port+":", ":11434:", 1)) {
		t.Errorf("README.md does not show the line:\n%s", want)
	}
}

func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"model":"m","message":{"role":"assistant","content":"hi"},"done":true,"done_reason":"stop","prompt_eval_count":3,"eval_count":2}`,
		`{"message":{"tool_calls":[{"function":{"name":"f","arguments":{"a":[1,{"b":null}]}}}]},"done":true}`,
		`{"message":{"tool_calls":[{"function":{"name":"f","arguments":"{\"a\""}}]}}`,
		`{"error":"boom"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := decode(data, "m")
		if err != nil {
			return
		}
		if _, err := json.Marshal(r); err != nil {
			t.Fatalf("decoded answer does not marshal: %v", err)
		}
		for _, c := range r.Message.ToolCalls {
			if c.ID == "" || (c.Arguments == nil) == (c.InvalidArguments == "") {
				t.Errorf("call %+v", c)
			}
		}
	})
}
