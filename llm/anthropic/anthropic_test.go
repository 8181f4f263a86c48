package anthropic

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/mcp-eval/mcp-eval/llm"
	"github.com/mcp-eval/mcp-eval/llm/anthropic/anthropictest"
	"github.com/mcp-eval/mcp-eval/llm/llmtest"
	"github.com/mcp-eval/mcp-eval/llm/providertest"
)

func env(m map[string]string) llm.Env { return llm.NewEnv(func(k string) string { return m[k] }) }

func TestNewFromEnvironment(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		env     map[string]string
		wantVar string
	}{
		{"key", map[string]string{"ANTHROPIC_API_KEY": "sk-ant-x"}, ""},
		{"auth token", map[string]string{"ANTHROPIC_AUTH_TOKEN": "tok"}, ""},
		{"no key", map[string]string{"OPENAI_API_KEY": "sk-x"}, "ANTHROPIC_API_KEY"},
		{"gateway without a key", map[string]string{"ANTHROPIC_BASE_URL": "http://litellm:4000"}, ""},
		{"bad base URL", map[string]string{"ANTHROPIC_API_KEY": "sk-ant-x", "ANTHROPIC_BASE_URL": "::"}, "ANTHROPIC_BASE_URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			providertest.FromEnv(t, Def, tt.env, tt.wantVar)
		})
	}
}

// TestAuthToken: ANTHROPIC_AUTH_TOKEN alone is enough and goes out as a
// Bearer token, as in the official SDKs, with no x-api-key; the version
// header is always sent.
func TestAuthToken(t *testing.T) {
	t.Parallel()
	const token = "gateway-token-0123456789"
	var mu sync.Mutex
	var h http.Header
	em := anthropictest.Emulate(llmtest.Options{Key: token})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		h = r.Header.Clone()
		mu.Unlock()
		em.ServeHTTP(w, r)
	}))
	defer srv.Close()
	p, err := Def.New(Def, env(map[string]string{"ANTHROPIC_AUTH_TOKEN": token, "ANTHROPIC_BASE_URL": srv.URL + "/"}), llm.NewSettings())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Complete(t.Context(), llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if h.Get("Authorization") != "Bearer "+token || h.Get("X-Api-Key") != "" || h.Get("Anthropic-Version") != "2023-06-01" {
		t.Errorf("headers %v", h)
	}
}
