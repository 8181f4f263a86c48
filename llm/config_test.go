package llm

import (
	"errors"
	"strings"
	"testing"
)

func TestParseSpec(t *testing.T) {
	t.Parallel()
	tests := []struct {
		spec, provider, model string
		bad                   bool
	}{
		{spec: "openai:gpt-4.1-mini", provider: "openai", model: "gpt-4.1-mini"},
		{spec: "anthropic:claude-sonnet-4-5", provider: "anthropic", model: "claude-sonnet-4-5"},
		{spec: "openai:llama3.1:8b", provider: "openai", model: "llama3.1:8b"},
		{spec: " OpenAI:gpt-4o ", provider: "openai", model: "gpt-4o"},
		{spec: "gpt-4o", bad: true},
		{spec: "openai:", bad: true},
		{spec: "gemini:gemini-2.5-pro", bad: true},
		{spec: "", bad: true},
	}
	for _, tt := range tests {
		p, m, err := ParseSpec(tt.spec)
		if (err != nil) != tt.bad || p != tt.provider || m != tt.model {
			t.Errorf("ParseSpec(%q) = %q, %q, %v", tt.spec, p, m, err)
		}
	}
}

func TestNewFromEnvironment(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		provider string
		env      map[string]string
		wantVar  string // the EnvError's variable, "" for success
	}{
		{"openai key", "openai", map[string]string{"OPENAI_API_KEY": "sk-x"}, ""},
		{"openai no key", "openai", nil, "OPENAI_API_KEY"},
		// GitHub Actions passes an unavailable secret as "".
		{"openai blank key", "openai", map[string]string{"OPENAI_API_KEY": " \n"}, "OPENAI_API_KEY"},
		{"openai official URL set explicitly, no key", "openai", map[string]string{"OPENAI_BASE_URL": "https://api.openai.com/v1/"}, "OPENAI_API_KEY"},
		{"ollama without a key", "openai", map[string]string{"OPENAI_BASE_URL": "http://localhost:11434/v1"}, ""},
		{"base URL without scheme", "openai", map[string]string{"OPENAI_API_KEY": "sk-x", "OPENAI_BASE_URL": "localhost:11434/v1"}, "OPENAI_BASE_URL"},
		{"base URL of another scheme", "openai", map[string]string{"OPENAI_API_KEY": "sk-x", "OPENAI_BASE_URL": "ftp://example.com/v1"}, "OPENAI_BASE_URL"},
		{"anthropic key", "anthropic", map[string]string{"ANTHROPIC_API_KEY": "sk-ant-x"}, ""},
		{"anthropic auth token", "anthropic", map[string]string{"ANTHROPIC_AUTH_TOKEN": "tok"}, ""},
		{"anthropic no key", "anthropic", map[string]string{"OPENAI_API_KEY": "sk-x"}, "ANTHROPIC_API_KEY"},
		{"anthropic gateway without a key", "anthropic", map[string]string{"ANTHROPIC_BASE_URL": "http://litellm:4000"}, ""},
		{"anthropic bad base URL", "anthropic", map[string]string{"ANTHROPIC_API_KEY": "sk-ant-x", "ANTHROPIC_BASE_URL": "::"}, "ANTHROPIC_BASE_URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := New(tt.provider, envMap(tt.env))
			if tt.wantVar == "" {
				if err != nil {
					t.Fatal(err)
				}
				if p.Name() != tt.provider {
					t.Errorf("Name() = %q", p.Name())
				}
				return
			}
			var ee *EnvError
			if !errors.As(err, &ee) || ee.Var != tt.wantVar {
				t.Fatalf("got %v, want an EnvError for %s", err, tt.wantVar)
			}
			if !strings.HasPrefix(err.Error(), tt.wantVar+" ") {
				t.Errorf("message %q should start with the variable", err)
			}
		})
	}
}

// TestEnvErrorDoesNotEchoValue: a key pasted into the wrong variable must
// not be printed by the error about it.
func TestEnvErrorDoesNotEchoValue(t *testing.T) {
	t.Parallel()
	_, err := New("openai", envMap(map[string]string{"OPENAI_API_KEY": "sk-x", "OPENAI_BASE_URL": "sk-proj-secret-value"}))
	if err == nil || strings.Contains(err.Error(), "secret") {
		t.Errorf("got %v", err)
	}
}

func TestNewUnknownProvider(t *testing.T) {
	t.Parallel()
	if _, err := New("gemini", envMap(nil)); err == nil {
		t.Error("got no error")
	}
}
