package openai

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mcp-eval/mcp-eval/llm"
	"github.com/mcp-eval/mcp-eval/llm/llmtest"
	"github.com/mcp-eval/mcp-eval/llm/openai/openaitest"
	"github.com/mcp-eval/mcp-eval/llm/providertest"
)

const testKey = "sk-proj-TESTKEY0123456789abcdefABCDEF"

func env(m map[string]string) llm.Env { return llm.NewEnv(func(k string) string { return m[k] }) }

func TestNewFromEnvironment(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		env     map[string]string
		wantVar string // the EnvError's variable, "" for success
	}{
		{"key", map[string]string{"OPENAI_API_KEY": "sk-x"}, ""},
		{"no key", nil, "OPENAI_API_KEY"},
		// GitHub Actions passes an unavailable secret as "".
		{"blank key", map[string]string{"OPENAI_API_KEY": " \n"}, "OPENAI_API_KEY"},
		{"official URL set explicitly, no key", map[string]string{"OPENAI_BASE_URL": "https://api.openai.com/v1/"}, "OPENAI_API_KEY"},
		{"a compatible server without a key", map[string]string{"OPENAI_BASE_URL": "http://localhost:11434/v1"}, ""},
		{"base URL without scheme", map[string]string{"OPENAI_API_KEY": "sk-x", "OPENAI_BASE_URL": "localhost:11434/v1"}, "OPENAI_BASE_URL"},
		{"base URL of another scheme", map[string]string{"OPENAI_API_KEY": "sk-x", "OPENAI_BASE_URL": "ftp://example.com/v1"}, "OPENAI_BASE_URL"},
		// A key pasted into the wrong variable is not printed back.
		{"key as base URL", map[string]string{"OPENAI_API_KEY": "sk-x", "OPENAI_BASE_URL": "sk-proj-secret-value"}, "OPENAI_BASE_URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := providertest.FromEnv(t, Def, tt.env, tt.wantVar)
			if err != nil && strings.Contains(err.Error(), "secret") {
				t.Errorf("the value is echoed: %v", err)
			}
		})
	}
}

// TestEndpointAndHeaders: where each way of configuring the provider
// posts, and the credential headers it sends. Every host name is dialled
// to the emulation, so Azure's hosts can stand in the base URL.
func TestEndpointAndHeaders(t *testing.T) {
	t.Parallel()
	azure := func(host string) map[string]string {
		return map[string]string{"OPENAI_API_KEY": testKey, "OPENAI_BASE_URL": "http://" + host + "/openai/v1"}
	}
	tests := []struct {
		name        string
		env         func(base string) map[string]string // base: the emulation's URL
		path, query string
		header      map[string]string // "" for a header that must not be sent at all
	}{
		{
			// With OPENAI_BASE_URL set no key is needed and no
			// Authorization header is sent.
			name: "keyless",
			env: func(base string) map[string]string {
				return map[string]string{"OPENAI_BASE_URL": base + "/v1/", "OPENAI_API_KEY": "  "}
			},
			path:   "/v1/chat/completions",
			header: map[string]string{"Authorization": "", "Api-Key": ""},
		},
		{
			name: "organization and project",
			env: func(base string) map[string]string {
				return map[string]string{"OPENAI_API_KEY": testKey, "OPENAI_BASE_URL": base + "/v1", "OPENAI_ORG_ID": "org-123", "OPENAI_PROJECT_ID": "proj_456"}
			},
			path:   "/v1/chat/completions",
			header: map[string]string{"Authorization": "Bearer " + testKey, "OpenAI-Organization": "org-123", "OpenAI-Project": "proj_456", "Api-Key": ""},
		},
		{
			// An Azure deployment URL keeps its api-version query and gets
			// the api-key header.
			name: "azure deployment",
			env: func(string) map[string]string {
				return map[string]string{"OPENAI_API_KEY": testKey, "OPENAI_BASE_URL": "http://myres.openai.azure.com/openai/deployments/gpt-4o-mini?api-version=2024-10-21"}
			},
			path: "/openai/deployments/gpt-4o-mini/chat/completions", query: "api-version=2024-10-21",
			header: map[string]string{"api-key": testKey},
		},
		// Azure Government and China hosts get the api-key header like the
		// public cloud's.
		{name: "azure v1", env: func(string) map[string]string { return azure("r.openai.azure.com") }, path: "/openai/v1/chat/completions", header: map[string]string{"api-key": testKey}},
		{name: "azure government", env: func(string) map[string]string { return azure("r.openai.azure.us") }, path: "/openai/v1/chat/completions", header: map[string]string{"api-key": testKey}},
		{name: "azure china", env: func(string) map[string]string { return azure("r.openai.azure.cn") }, path: "/openai/v1/chat/completions", header: map[string]string{"api-key": testKey}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			var got *http.Request
			em := openaitest.Emulate(llmtest.Options{})
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				got = r.Clone(context.Background())
				mu.Unlock()
				r.URL.Path = "/v1/chat/completions" // the emulation serves one path
				em.ServeHTTP(w, r)
			}))
			defer srv.Close()
			dial := func(ctx context.Context, network, _ string) (net.Conn, error) {
				return (&net.Dialer{}).DialContext(ctx, network, srv.Listener.Addr().String())
			}
			p, err := Def.New(Def, env(tt.env(srv.URL)), llm.NewSettings(llm.WithHTTPClient(&http.Client{Transport: &http.Transport{DialContext: dial}})))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := p.Complete(t.Context(), llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}); err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			if got.URL.Path != tt.path || got.URL.RawQuery != tt.query {
				t.Errorf("got %s?%s, want %s?%s", got.URL.Path, got.URL.RawQuery, tt.path, tt.query)
			}
			for k, want := range tt.header {
				if _, sent := got.Header[http.CanonicalHeaderKey(k)]; want == "" && sent {
					t.Errorf("%s sent: %q", k, got.Header.Get(k))
				} else if v := got.Header.Get(k); want != "" && v != want {
					t.Errorf("%s = %q, want %q", k, v, want)
				}
			}
		})
	}
}
