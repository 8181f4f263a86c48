// Package providertest runs a provider against its own emulation, for the
// tests of the provider packages and of the registry: the emulation
// served over HTTP, the provider built from the environment that points at
// it, and a log of what it received.
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
	"github.com/mcp-eval/mcp-eval/llm/llmtest"
)

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
	em := def.Emulate(o)
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
