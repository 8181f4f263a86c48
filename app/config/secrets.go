package config

import (
	"fmt"
	"os"
	"strings"

	"github.com/mcp-eval/mcp-eval/internal/exitcode"
	"github.com/mcp-eval/mcp-eval/internal/redact"
	"github.com/mcp-eval/mcp-eval/llm/providers"
)

// Header is one --header after $VAR expansion.
type Header struct {
	Name, Value string
	// Vars are the environment variables $VAR expansion put in Value,
	// with their values.
	Vars []redact.Secret
}

// Secrets are the values of h to mask, with where each came from. By the
// rule of DESIGN.md ("which header values are secrets"), a header whose
// name carries a credential (redact.CredentialHeader: Authorization,
// Cookie, *-Key, *-Token, *-Secret…) is a secret whole, with the parts a
// server may echo alone (redact.HeaderCredentials: the credential after
// "Bearer", a Basic password, each cookie); and a value that came from
// the environment is a secret whatever the header's name. Any other
// header (X-Trace: on) is shown as it is.
func (h Header) Secrets() []redact.Secret {
	src := "--header " + h.Name
	var out []redact.Secret
	if redact.CredentialHeader(h.Name) {
		out = append(out, redact.Secret{Source: src, Value: h.Value})
		_, _, hasScheme := strings.Cut(h.Value, " ")
		auth := strings.HasSuffix(strings.ToLower(h.Name), "authorization")
		for i, v := range redact.HeaderCredentials(h.Name, h.Value) {
			// The credential after a scheme must be long enough to mask, as
			// the whole value must; a shorter decoded part or cookie is
			// masked within the whole value only.
			if len(v) >= redact.MinLen || i == 0 && hasScheme && auth {
				out = append(out, redact.Secret{Source: src + " (the credential in it)", Value: v})
			}
		}
	}
	for _, v := range h.Vars {
		out = append(out, redact.Secret{Source: src + " ($" + v.Source + ")", Value: v.Value})
	}
	return out
}

// ExpandHeaders parses --header values, expanding $VAR and ${VAR} from the
// environment. An unset variable is an error naming it: sending an empty
// Authorization header would fail later in a far less clear way.
func (c *Config) ExpandHeaders(getenv func(string) string) ([]Header, error) {
	var out []Header
	for i, h := range c.Headers.Vals {
		name, value, ok := strings.Cut(h, ":")
		name = strings.TrimSpace(name)
		src := c.Source("header", i)
		if len(c.fileLines["header"]) == 0 {
			src = fmt.Sprintf("--header number %d", i+1)
		}
		if !ok || name == "" || strings.ContainsAny(name, " \t") {
			// The value is not quoted back: it may be the credential itself.
			return nil, exitcode.Usagef("%s: want 'Name: value' (the value is not shown: it may be a secret)", src)
		}
		var missing string
		var vars []redact.Secret
		value = os.Expand(strings.TrimSpace(value), func(v string) string {
			s := getenv(v)
			if s == "" && missing == "" {
				missing = v
			}
			vars = append(vars, redact.Secret{Source: v, Value: strings.TrimSpace(s)})
			return s
		})
		if missing != "" {
			return nil, exitcode.Configf("%s (%s): environment variable %s is not set", src, name, missing)
		}
		out = append(out, Header{Name: name, Value: value, Vars: vars})
	}
	return out, nil
}

// envSecrets are the environment variables whose values are credentials
// wherever mcp-eval runs: every model provider's credential variables
// (the registry, llm/providers: ANTHROPIC_AUTH_TOKEN among them) and the
// GitHub token.
var envSecrets = append(providers.CredentialVars(), "INPUT_GITHUB-TOKEN", "GITHUB_TOKEN")

// EnvRedactor masks the credentials of the environment alone, for what is
// printed before the configuration is read. A short value ("ollama" for a
// local server) is no credential worth masking and is left as it is rather
// than failing the run.
func EnvRedactor(getenv func(string) string) *redact.Redactor {
	r, _ := redact.New(envSecretValues(getenv)...)
	return r
}

// envSecretValues are the values of envSecrets long enough to mask.
func envSecretValues(getenv func(string) string) []redact.Secret {
	var secrets []redact.Secret
	for _, v := range envSecrets {
		if val := strings.TrimSpace(getenv(v)); len(val) >= redact.MinLen {
			secrets = append(secrets, redact.Secret{Source: v, Value: val})
		}
	}
	return secrets
}

// Redactor knows every secret of the run: the secrets of each --header
// (Header.Secrets: credential headers whole and in their parts, values
// from the environment), the variables --secrets (secrets: in the config
// file) names, the model API keys and tokens and the GitHub token. A
// header or --secrets secret shorter than redact.MinLen is refused: it
// cannot be masked without masking ordinary text. Model keys and tokens
// are treated as EnvRedactor does.
func (c *Config) Redactor(getenv func(string) string) (*redact.Redactor, error) {
	hs, err := c.ExpandHeaders(getenv)
	if err != nil {
		return nil, err
	}
	var secrets []redact.Secret
	for _, h := range hs {
		secrets = append(secrets, h.Secrets()...)
	}
	for _, v := range c.Secrets.Vals {
		// An unset variable has nothing to mask: a fork's pull request runs
		// without the repository's secrets, and that is no error.
		secrets = append(secrets, redact.Secret{Source: "--secrets " + v, Value: strings.TrimSpace(getenv(v))})
	}
	secrets = append(secrets, c.oauthSecrets(getenv)...)
	r, err := redact.New(append(secrets, envSecretValues(getenv)...)...)
	if err != nil {
		return nil, exitcode.Config(err)
	}
	return r, nil
}
