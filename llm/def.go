package llm

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// Def declares one model provider: everything mcp-eval knows about it,
// in one value that its package exports and the registry
// (llm/providers) lists. The CLI's provider names, the credential
// variables masked in every output, the price rules and the docs' table
// of providers all come from these values; the provider's own package
// holds its wire format (or picks one of this package's: Chat, Messages).
// Its strict emulation, for tests, lives in its test-only subpackage
// (llm/<name>/<name>test), registered in llm/providertest, so that no
// emulator is compiled into the shipped binary.
type Def struct {
	// Name is the prefix of a model spec: "ollama" in ollama:qwen2.5:7b.
	Name string
	// Title is the product's name, for docs and messages.
	Title string
	// Wire names the API spoken, for docs ("Chat Completions").
	Wire string
	// Example is a model spec for --help and the docs.
	Example string
	// BaseURL is where the provider listens unless configured otherwise.
	BaseURL string
	// BaseURLEnv is the variable that overrides BaseURL.
	BaseURLEnv string
	// Keys are the credential variables the provider reads, in order;
	// every one is a secret of the run, masked in every output.
	Keys []string
	// KeyRequired: a key is needed at BaseURL (the vendor's own API); a
	// missing one is an *EnvError naming Keys[0]. Elsewhere (a local
	// server, a gateway) no key is needed, and none is sent when unset.
	KeyRequired bool
	// OneModel: the server serves the one model it was started with,
	// whatever a request names (llama-server), so a probe does not look
	// the name up.
	OneModel bool
	// Local: the provider serves models on the user's machine, so every
	// model costs nothing when its answers report usage (a model whose
	// answers carry no usage still has an unknown cost).
	Local bool
	// Prices are the built-in list prices of the provider's models in US
	// dollars per million tokens (input, cached input, output), keyed by
	// the model name as in a spec; dated snapshots and -latest aliases
	// resolve to them (telemetry.Prices).
	Prices map[string][3]float64
	// CachedRate and CacheWriteRate price prompt-cache reads and writes
	// as a multiple of the input price for a price file entry that gives
	// none (Anthropic: 0.1 and 1.25); 0 means the input price.
	CachedRate, CacheWriteRate float64
	// PriceKey, when set, maps a model to the price-table key that prices
	// it ("openai:gpt-4.1-mini" for OpenRouter's openai/gpt-4.1-mini), or
	// says it is free (OpenRouter's :free models).
	PriceKey func(model string) (key string, free bool)
	// Batch: the vendor has a batch API the provider speaks (llm.Batcher)
	// at BatchRate of its prices: OpenAI's Batch API, Anthropic's Message
	// Batches. --dry-run prices --batch auto by it.
	Batch bool
	// Accepts are the optional request parameters the provider sends on
	// its wire. A parameter set on a request but not listed here would be
	// dropped silently; Unaccepted names it so the caller can say so
	// (TestAcceptedParamsAreSent holds each list to the wire).
	Accepts []Param
	// Notes say in a sentence or two what differs on this provider's
	// wire, for the docs.
	Notes string
	// New makes the provider d from the environment (trimmed; an empty
	// value is unset) and the settings.
	New func(d *Def, env Env, s Settings) (Provider, error)
}

// Unaccepted are the optional parameters req sets that d does not send.
func (d *Def) Unaccepted(req Request) []Param {
	var out []Param
	for _, p := range req.Params() {
		if !slices.Contains(d.Accepts, p) {
			out = append(out, p)
		}
	}
	return out
}

// Env reads the environment: trimmed, an empty value counting as unset.
// GitHub Actions passes a secret that is not available (fork PRs) as an
// empty string, and that must read as "no key", not as an empty key.
type Env func(string) string

// NewEnv wraps getenv (os.Getenv when nil) as an Env.
func NewEnv(getenv func(string) string) Env {
	return func(k string) string {
		if getenv == nil {
			return ""
		}
		return strings.TrimSpace(getenv(k))
	}
}

// Key returns the first of d.Keys that is set, and its name.
func (d *Def) Key(env Env) (name, value string) {
	for _, k := range d.Keys {
		if v := env(k); v != "" {
			return k, v
		}
	}
	return "", ""
}

// Base reads the base URL: d.BaseURLEnv when set, else d.BaseURL. custom
// reports that it points somewhere other than d.BaseURL's host, where no
// key is required. A missing key where one is required is an *EnvError
// naming the key variable; checkKey says so.
func (d *Def) Base(env Env) (u *url.URL, custom bool, err error) {
	raw := ""
	if d.BaseURLEnv != "" {
		raw = env(d.BaseURLEnv)
	}
	if raw == "" {
		raw = d.BaseURL
	}
	u, err = url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		// The value is not echoed: a mistyped variable may hold a key.
		return nil, false, &EnvError{Var: d.BaseURLEnv, Reason: "is not an http(s) URL"}
	}
	def, _ := url.Parse(d.BaseURL)
	return u, def == nil || !strings.EqualFold(u.Host, def.Host), nil
}

// CheckKey returns the *EnvError for a missing key where one is needed:
// at the vendor's own base URL (custom false) when d.KeyRequired.
func (d *Def) CheckKey(key string, custom bool) error {
	if key != "" || custom || !d.KeyRequired || len(d.Keys) == 0 {
		return nil
	}
	reason := fmt.Sprintf("is not set (needed for %s models", d.Name)
	if d.BaseURLEnv != "" {
		reason += fmt.Sprintf("; a server at another %s needs none", d.BaseURLEnv)
	}
	return &EnvError{Var: d.Keys[0], Reason: reason + ")"}
}

// Prober is a Provider that can check, before any case runs, that its
// endpoint answers, takes the credentials and serves a model: one request
// of its models list, no retries, so that a wrong base URL, key or model
// name is one line in a second, not an error in every run.
type Prober interface {
	Probe(ctx context.Context, model string) error
}

// SplitSpec splits a model spec such as "openai:gpt-4.1-mini" into
// provider and model at the first colon, so model names with colons of
// their own ("ollama:qwen2.5:7b") survive. The provider is lower-cased;
// ok is false when either part is empty. llm/providers.Parse also checks
// the provider against the registry.
func SplitSpec(spec string) (provider, model string, ok bool) {
	p, m, found := strings.Cut(strings.TrimSpace(spec), ":")
	p = strings.ToLower(strings.TrimSpace(p))
	m = strings.TrimSpace(m)
	return p, m, found && p != "" && m != ""
}

// EnvError reports a missing or unusable environment variable. The CLI maps
// it to exit code 2; Var names the variable so the message can say which.
type EnvError struct {
	Var    string
	Reason string
}

// Error names the variable first, e.g. "OPENAI_API_KEY is not set (…)".
func (e *EnvError) Error() string { return e.Var + " " + e.Reason }

// Endpoint appends path to the base URL's path and keeps its query, so an
// Azure deployment URL such as
// https://r.openai.azure.com/openai/deployments/d?api-version=2024-10-21
// works as OPENAI_BASE_URL.
func Endpoint(base *url.URL, path string) string {
	u := *base
	u.Path = strings.TrimRight(u.Path, "/") + path
	u.RawPath = ""
	u.Fragment = ""
	return u.String()
}

// BearerHeader is the header set of a provider that takes a Bearer key:
// Authorization when key is set, nothing otherwise (a local server
// ignores it, and sending a placeholder buys nothing).
func BearerHeader(key string) http.Header {
	h := http.Header{}
	if key != "" {
		h.Set("Authorization", "Bearer "+key)
	}
	return h
}

// SafeURL is rawURL without userinfo, query and fragment, for messages:
// either may carry a credential.
func SafeURL(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "(an unreadable URL)"
	}
	return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: strings.TrimRight(u.Path, "/")}).String()
}
