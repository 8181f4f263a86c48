package config

import (
	"encoding/base64"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-eval/mcp-eval/internal/exitcode"
	"github.com/mcp-eval/mcp-eval/internal/redact"
)

// TestHeaderSecrets is the rule of which header values are secrets: a
// header whose name carries a credential is one (and its parts a server
// may echo alone), so is any value from the environment, and other
// headers are shown; a secret too short to mask stops the run (exit 2)
// naming the header, anything else does not.
func TestHeaderSecrets(t *testing.T) {
	basic := base64.StdEncoding.EncodeToString([]byte("alice:pa55w0rd-long"))
	env := map[string]string{"TOKEN": "tok-0123456789", "TRACE": "on", "TENANT": "acme-corp-eu"}
	tests := []struct {
		header  string
		masked  []string // the secrets, in any order
		wantErr string   // a refusal naming this
	}{
		{"X-Trace: on", nil, ""},
		{"X-Tenant: acme", nil, ""},
		{"Accept: application/json", nil, ""},
		{"X-Key-Id: 1234567890", nil, ""},
		{"Authorization: Bearer $TOKEN", []string{"Bearer tok-0123456789", "tok-0123456789"}, ""},
		{"Authorization: Basic " + basic, []string{"Basic " + basic, basic, "alice:pa55w0rd-long", "pa55w0rd-long"}, ""},
		{"Proxy-Authorization: Bearer abcdefgh12", []string{"Bearer abcdefgh12", "abcdefgh12"}, ""},
		{"Cookie: theme=dark; session=s3ss10n-id-42", []string{"theme=dark; session=s3ss10n-id-42", "s3ss10n-id-42"}, ""},
		{"X-API-Key: k-0123456789", []string{"k-0123456789"}, ""},
		{"apikey: k-0123456789", []string{"k-0123456789"}, ""},
		{"X-Auth-Token: t-0123456789", []string{"t-0123456789"}, ""},
		{"X-Hasura-Admin-Secret: s-0123456789", []string{"s-0123456789"}, ""},
		{"X-Tenant: $TENANT", []string{"acme-corp-eu"}, ""},
		{"X-Api-Key: short", nil, "--header X-Api-Key: the secret is 5 characters long"},
		{"Authorization: Bearer abc", nil, "--header Authorization (the credential in it): the secret is 3 characters long"},
		{"X-Trace: $TRACE", nil, "--header X-Trace ($TRACE): the secret is 2 characters long"},
	}
	for _, tt := range tests {
		t.Run(tt.header, func(t *testing.T) {
			cfg, err := Parse("conformance", []string{"--server-url", "http://127.0.0.1:1/mcp", "--header", tt.header}, func(k string) string { return env[k] })
			if err != nil {
				t.Fatal(err)
			}
			r, err := cfg.Redactor(func(k string) string { return env[k] })
			if tt.wantErr != "" {
				if exitcode.Of(err) != exitcode.Usage || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Redactor error = %v (exit %d), want exit 2 with %q", err, exitcode.Of(err), tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			hs, _ := cfg.ExpandHeaders(func(k string) string { return env[k] })
			var got []string
			for _, s := range hs[0].Secrets() {
				if !slices.Contains(got, s.Value) {
					got = append(got, s.Value)
				}
			}
			slices.Sort(got)
			want := slices.Clone(tt.masked)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("secrets = %q, want %q", got, want)
			}
			value := hs[0].Value
			if shown := r.String(value); (len(tt.masked) == 0) != (shown == value) {
				t.Errorf("the value %q shows as %q", value, shown)
			}
		})
	}
}

// ANTHROPIC_AUTH_TOKEN is sent by the Anthropic client, so it is a secret
// of every run, as the keys are.
func TestEnvSecretsIncludeEveryCredentialTheProvidersRead(t *testing.T) {
	env := map[string]string{"ANTHROPIC_AUTH_TOKEN": "gateway-token-0123", "OPENAI_API_KEY": "sk-0123456789", "GITHUB_TOKEN": "ghs_0123456789"}
	r := EnvRedactor(func(k string) string { return env[k] })
	for k, v := range env {
		if got := r.String("x " + v); got != "x "+redact.Mask {
			t.Errorf("%s: %q", k, got)
		}
	}
}
