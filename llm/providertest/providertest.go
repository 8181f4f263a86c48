// Package providertest runs a provider against its own emulation, for the
// tests of the provider packages and of the registry: the emulation
// served over HTTP, the provider built from the environment that points at
// it, and a log of what it received.
//
// It is also the registry of the emulations. Each provider's strict
// emulation lives in its test-only subpackage (llm/openai/openaitest, …),
// not in the provider package, so that the shipped binary (package main and
// what it imports) holds no emulator: only tests import this package, and
// TestNoEmulatorInBinary (deps_test.go) holds that true.
package providertest

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mcp-eval/mcp-eval/llm"
	"github.com/mcp-eval/mcp-eval/llm/anthropic/anthropictest"
	"github.com/mcp-eval/mcp-eval/llm/llamacpp/llamacpptest"
	"github.com/mcp-eval/mcp-eval/llm/llmtest"
	"github.com/mcp-eval/mcp-eval/llm/lmstudio/lmstudiotest"
	"github.com/mcp-eval/mcp-eval/llm/ollama/ollamatest"
	"github.com/mcp-eval/mcp-eval/llm/openai/openaitest"
	"github.com/mcp-eval/mcp-eval/llm/openrouter/openroutertest"
	"github.com/mcp-eval/mcp-eval/llm/vllm/vllmtest"
)

// emulations are the providers' strict emulations by provider name: each
// speaks its provider's wire format, refuses what the real server
// refuses, with its status and message, and serves its model list.
// TestEveryProviderAgainstItsEmulation fails for a provider of the
// registry that has none here.
var emulations = map[string]func(llmtest.Options) http.Handler{
	"openai":     openaitest.Emulate,
	"anthropic":  anthropictest.Emulate,
	"ollama":     ollamatest.Emulate,
	"llamacpp":   llamacpptest.Emulate,
	"vllm":       vllmtest.Emulate,
	"lmstudio":   lmstudiotest.Emulate,
	"openrouter": openroutertest.Emulate,
}

// Emulation returns the emulation of the provider named name, or nil.
func Emulation(name string) func(llmtest.Options) http.Handler { return emulations[name] }

// Emulate is def's emulation with o; a provider without one fails t.
func Emulate(t testing.TB, def *llm.Def, o llmtest.Options) http.Handler {
	t.Helper()
	em := emulations[def.Name]
	if em == nil {
		t.Fatalf("provider %s has no emulation in llm/providertest", def.Name)
	}
	return em(o)
}

// Log is what an emulation received.
type Log struct {
	mu   sync.Mutex
	reqs []Received
}

// Received is one request.
type Received struct {
	Method, Path string
	Header       http.Header
	Body         []byte
}

// All returns the requests so far.
func (l *Log) All() []Received {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Received(nil), l.reqs...)
}

// Posts returns the bodies of the POST requests so far.
func (l *Log) Posts() [][]byte {
	var out [][]byte
	for _, r := range l.All() {
		if r.Method == http.MethodPost {
			out = append(out, r.Body)
		}
	}
	return out
}

// Serve serves def's emulation with o; env is the environment that points
// the provider at it (its base URL variable, and o.Key as its key).
func Serve(t testing.TB, def *llm.Def, o llmtest.Options) (srv *httptest.Server, env map[string]string, log *Log) {
	t.Helper()
	log = &Log{}
	em := Emulate(t, def, o)
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		log.mu.Lock()
		log.reqs = append(log.reqs, Received{r.Method, r.URL.Path, r.Header.Clone(), b})
		log.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(b))
		em.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	env = map[string]string{def.BaseURLEnv: srv.URL + apiPath(def.BaseURL)}
	if o.Key != "" {
		env[def.Keys[0]] = o.Key
	}
	return srv, env, log
}

// Rig is Serve and the provider on it, made from the environment with
// opts (no retries unless opts say otherwise).
func Rig(t testing.TB, def *llm.Def, o llmtest.Options, opts ...llm.Option) (llm.Provider, *Log) {
	t.Helper()
	_, env, log := Serve(t, def, o)
	p, err := def.New(def, llm.NewEnv(func(k string) string { return env[k] }), llm.NewSettings(append([]llm.Option{llm.WithMaxRetries(0)}, opts...)...))
	if err != nil {
		t.Fatal(err)
	}
	return p, log
}

// apiPath is the path of a base URL ("/v1" of http://127.0.0.1:8000/v1).
func apiPath(u string) string {
	_, rest, _ := strings.Cut(u, "://")
	if i := strings.Index(rest, "/"); i >= 0 {
		return rest[i:]
	}
	return ""
}

// Ask sends one user message offering tools.
func Ask(t testing.TB, p llm.Provider, model, prompt string, tools ...llm.Tool) (*llm.Response, error) {
	t.Helper()
	zero := 0.0
	return p.Complete(t.Context(), llm.Request{Model: model, Temperature: &zero, Tools: tools, Messages: []llm.Message{{Role: llm.RoleUser, Content: prompt}}})
}

// FromEnv builds def's provider from the variables in env and checks the
// outcome: with wantVar "" a provider named def.Name, otherwise an
// llm.EnvError naming wantVar first in its message. It returns the error.
func FromEnv(t testing.TB, def *llm.Def, env map[string]string, wantVar string) error {
	t.Helper()
	p, err := def.New(def, llm.NewEnv(func(k string) string { return env[k] }), llm.NewSettings())
	if wantVar == "" {
		if err != nil || p.Name() != def.Name {
			t.Fatalf("got %v, %v; want the %s provider", p, err, def.Name)
		}
		return nil
	}
	var ee *llm.EnvError
	if !errors.As(err, &ee) || ee.Var != wantVar || !strings.HasPrefix(err.Error(), wantVar+" ") {
		t.Fatalf("got %v, want an EnvError for %s", err, wantVar)
	}
	return err
}
