package config

import (
	"strings"
	"testing"

	"github.com/mcp-eval/mcp-eval/llm/providers"
)

// TestEveryProviderCredentialIsMasked: the credential variables of every
// provider of the registry are secrets of the run, ANTHROPIC_AUTH_TOKEN
// (which the Anthropic provider reads) included, before and after the
// configuration is read.
func TestEveryProviderCredentialIsMasked(t *testing.T) {
	t.Parallel()
	vars := providers.CredentialVars()
	if !strings.Contains(strings.Join(vars, " "), "ANTHROPIC_AUTH_TOKEN") {
		t.Fatalf("CredentialVars() = %v", vars)
	}
	for _, v := range vars {
		value := "secret-of-" + strings.ToLower(v) + "-0123456789"
		getenv := func(k string) string {
			if k == v {
				return value
			}
			return ""
		}
		if got := EnvRedactor(getenv).String("the key is " + value); strings.Contains(got, value) {
			t.Errorf("%s is not masked before the configuration: %q", v, got)
		}
		red, err := (&Config{}).Redactor(getenv)
		if err != nil {
			t.Fatal(err)
		}
		if got := red.String("the key is " + value); strings.Contains(got, value) {
			t.Errorf("%s is not masked by the run's redactor: %q", v, got)
		}
	}
}
