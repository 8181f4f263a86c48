package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/mcp-eval/mcp-eval/internal/httpretry"
)

// Defaults for the options below.
const (
	DefaultTimeout     = 60 * time.Second
	DefaultMaxRetries  = 4
	DefaultConcurrency = 4
	// DefaultRetryBudget bounds the time one call may spend on retries,
	// waits included: a 429 storm or a hanging provider costs a call at
	// most this much beyond its first attempt.
	DefaultRetryBudget = 2 * time.Minute
	// DefaultMaxTokens is Anthropic's max_tokens when Request.MaxTokens is 0;
	// enough for a tool call or a short answer, which is what evals ask for.
	DefaultMaxTokens = 1024
)

// The official base URLs. OpenAI's includes the /v1 version prefix and so
// must every OPENAI_BASE_URL (http://localhost:11434/v1 for Ollama);
// Anthropic's does not, and the /v1/messages path is added to
// ANTHROPIC_BASE_URL. Both as in the official SDKs (openai-python
// src/openai/_client.py, anthropic-sdk-python src/anthropic/_client.py).
const (
	openAIDefaultBaseURL    = "https://api.openai.com/v1"
	anthropicDefaultBaseURL = "https://api.anthropic.com"
)

const (
	providerOpenAI    = "openai"
	providerAnthropic = "anthropic"
)

// ParseSpec splits a model spec such as "openai:gpt-4.1-mini" into provider
// and model at the first colon, so model names with colons of their own
// ("openai:llama3.1:8b" for Ollama) survive. The provider is lower-cased.
func ParseSpec(spec string) (provider, model string, err error) {
	p, m, ok := strings.Cut(strings.TrimSpace(spec), ":")
	p = strings.ToLower(strings.TrimSpace(p))
	m = strings.TrimSpace(m)
	switch {
	case !ok || m == "":
		return "", "", fmt.Errorf("model %q: want provider:model, e.g. openai:gpt-4.1-mini or anthropic:claude-sonnet-4-5", spec)
	case p != providerOpenAI && p != providerAnthropic:
		return "", "", fmt.Errorf("model %q: unknown provider %q (want openai or anthropic)", spec, p)
	}
	return p, m, nil
}

// EnvError reports a missing or unusable environment variable. The CLI maps
// it to exit code 2; Var names the variable so the message can say which.
type EnvError struct {
	Var    string
	Reason string
}

// Error names the variable first, e.g. "OPENAI_API_KEY is not set (…)".
func (e *EnvError) Error() string { return e.Var + " " + e.Reason }

// Option configures a Provider.
type Option func(*config)

type config struct {
	httpClient  *http.Client
	timeout     time.Duration
	maxRetries  int
	concurrency int
	retryBudget time.Duration
	observer    Observer
	sleep       func(context.Context, time.Duration) error
	now         func() time.Time
}

// WithHTTPClient sets the client used for requests (transport, proxy, TLS).
// Its Timeout, if any, applies on top of WithTimeout.
func WithHTTPClient(c *http.Client) Option {
	return func(cf *config) {
		if c != nil {
			cf.httpClient = c
		}
	}
}

// WithTimeout bounds each HTTP attempt, response body included (default
// DefaultTimeout; zero or less means no bound but the caller's context). A
// timed-out attempt is retried like a network error.
func WithTimeout(d time.Duration) Option { return func(cf *config) { cf.timeout = d } }

// WithMaxRetries sets how many times a failed attempt is retried (default
// DefaultMaxRetries; 0 disables retries).
func WithMaxRetries(n int) Option { return func(cf *config) { cf.maxRetries = max(n, 0) } }

// WithRetryBudget bounds the total time one call spends after its first
// attempt (waits and retries; default DefaultRetryBudget). A retry whose
// wait would not fit fails the call with the provider's last error.
func WithRetryBudget(d time.Duration) Option { return func(cf *config) { cf.retryBudget = d } }

// WithConcurrency caps the requests in flight to this provider at once
// (default DefaultConcurrency). Create one Provider per provider name and
// share it across that provider's models, or each gets its own limit.
func WithConcurrency(n int) Option { return func(cf *config) { cf.concurrency = max(n, 1) } }

// WithObserver reports every HTTP attempt to o.
func WithObserver(o Observer) Option { return func(cf *config) { cf.observer = o } }

// WithSleep replaces the wait between retries, so tests in any package can
// exercise retry paths without sleeping. sleep must return ctx.Err() if ctx
// ends first.
func WithSleep(sleep func(ctx context.Context, d time.Duration) error) Option {
	return func(cf *config) { cf.sleep = sleep }
}

// New returns the provider named by name ("openai" or "anthropic", as
// returned by ParseSpec), configured from getenv (os.Getenv when nil).
//
// OpenAI reads OPENAI_API_KEY, OPENAI_BASE_URL (default
// https://api.openai.com/v1), OPENAI_ORG_ID and OPENAI_PROJECT_ID; Anthropic
// reads ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN (sent as a Bearer token, as
// the SDKs do, for gateways) and ANTHROPIC_BASE_URL (default
// https://api.anthropic.com). Values are trimmed as openai-node's readEnv
// does, and an empty value counts as unset: GitHub Actions passes a secret
// that is not available (fork PRs) as an empty string, and that must read
// as "no key", not as an empty key.
//
// A key is required when the base URL is the vendor's own API; then a missing
// key is an *EnvError naming the variable. With a base URL pointing anywhere
// else (Ollama, vLLM, a LiteLLM proxy) the key is optional and, when unset,
// no credential header is sent at all: local servers ignore it and the
// official SDKs' habit of demanding a placeholder key buys nothing.
func New(name string, getenv func(string) string, opts ...Option) (Provider, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	env := func(k string) string { return strings.TrimSpace(getenv(k)) }
	cf := newConfig(opts)
	switch strings.ToLower(name) {
	case providerOpenAI:
		return newOpenAI(env, cf)
	case providerAnthropic:
		return newAnthropic(env, cf)
	}
	return nil, fmt.Errorf("unknown model provider %q (want openai or anthropic)", name)
}

// newConfig applies opts to the defaults, and gives the HTTP client the
// providers' redirect policy.
func newConfig(opts []Option) config {
	cf := config{
		timeout:     DefaultTimeout,
		maxRetries:  DefaultMaxRetries,
		concurrency: DefaultConcurrency,
		retryBudget: DefaultRetryBudget,
		sleep:       httpretry.Sleep,
		now:         time.Now,
	}
	for _, o := range opts {
		o(&cf)
	}
	if cf.httpClient == nil {
		// http.DefaultTransport keeps 2 idle connections per host, so with
		// more calls in flight most would pay a new TCP and TLS handshake.
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.MaxIdleConnsPerHost = cf.concurrency
		cf.httpClient = &http.Client{Transport: t}
	}
	// Credentials stay with their origin: a redirect to another scheme,
	// host or port is not followed (net/http would resend x-api-key and
	// api-key to any host, and Authorization to another port of the same
	// host). A copy keeps the caller's client as it was.
	hc := *cf.httpClient
	hc.CheckRedirect = sameOriginOnly
	cf.httpClient = &hc
	return cf
}

// newOpenAI is New for "openai".
func newOpenAI(env func(string) string, cf config) (Provider, error) {
	base, custom, err := baseURL(env, "OPENAI_BASE_URL", openAIDefaultBaseURL)
	if err != nil {
		return nil, err
	}
	key := env("OPENAI_API_KEY")
	if key == "" && !custom {
		return nil, &EnvError{Var: "OPENAI_API_KEY", Reason: "is not set (needed for openai models; to use an OpenAI-compatible server that needs no key, set OPENAI_BASE_URL, e.g. http://localhost:11434/v1 for Ollama)"}
	}
	h := http.Header{}
	if key != "" {
		h.Set("Authorization", "Bearer "+key)
		// Azure OpenAI authenticates keys with an api-key header; its
		// v1 API also takes the Bearer form. Sending both is what the
		// openai-node Azure example does (examples/azure.ts).
		if isAzure(base.Hostname()) {
			h.Set("api-key", key)
		}
	}
	if v := env("OPENAI_ORG_ID"); v != "" {
		h.Set("OpenAI-Organization", v)
	}
	if v := env("OPENAI_PROJECT_ID"); v != "" {
		h.Set("OpenAI-Project", v)
	}
	return &openAI{c: newClient(providerOpenAI, endpoint(base, "/chat/completions"), h, []string{key}, cf)}, nil
}

// newAnthropic is New for "anthropic".
func newAnthropic(env func(string) string, cf config) (Provider, error) {
	base, custom, err := baseURL(env, "ANTHROPIC_BASE_URL", anthropicDefaultBaseURL)
	if err != nil {
		return nil, err
	}
	key, token := env("ANTHROPIC_API_KEY"), env("ANTHROPIC_AUTH_TOKEN")
	if key == "" && token == "" && !custom {
		return nil, &EnvError{Var: "ANTHROPIC_API_KEY", Reason: "is not set (needed for anthropic models)"}
	}
	h := http.Header{}
	if key != "" {
		h.Set("x-api-key", key)
	}
	if token != "" {
		h.Set("Authorization", "Bearer "+token)
	}
	// The API version is a required header; 2023-06-01 is the version
	// the official SDKs pin and the one whose wire format this speaks.
	h.Set("anthropic-version", "2023-06-01")
	return &anthropic{c: newClient(providerAnthropic, endpoint(base, "/v1/messages"), h, []string{key, token}, cf)}, nil
}

// baseURL reads and checks a base URL variable. custom reports whether it
// points somewhere other than the vendor's own API.
func baseURL(env func(string) string, name, def string) (u *url.URL, custom bool, err error) {
	raw := env(name)
	if raw == "" {
		raw = def
	}
	u, err = url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		// The value is not echoed: a mistyped variable may hold a key.
		return nil, false, &EnvError{Var: name, Reason: "is not an http(s) URL"}
	}
	d, _ := url.Parse(def)
	return u, !strings.EqualFold(u.Host, d.Host), nil
}

// endpoint appends path to the base URL's path and keeps its query, so an
// Azure deployment URL such as
// https://r.openai.azure.com/openai/deployments/d?api-version=2024-10-21
// works as OPENAI_BASE_URL.
func endpoint(base *url.URL, path string) string {
	u := *base
	u.Path = strings.TrimRight(u.Path, "/") + path
	u.RawPath = ""
	u.Fragment = ""
	return u.String()
}

// sameOriginOnly is the providers' redirect policy: follow a redirect to
// the same origin (scheme, host and port), at most 3 times; refuse any
// other, so that no credential header reaches another origin.
func sameOriginOnly(req *http.Request, via []*http.Request) error {
	first := via[0].URL
	if !strings.EqualFold(req.URL.Scheme, first.Scheme) || !strings.EqualFold(req.URL.Host, first.Host) {
		return fmt.Errorf("redirected to another origin (%s://%s), not followed: the API key stays with %s://%s",
			req.URL.Scheme, req.URL.Host, first.Scheme, first.Host)
	}
	if len(via) >= 3 {
		return errors.New("stopped after 3 redirects")
	}
	return nil
}

// isAzure reports whether host is Azure OpenAI's, in the public cloud
// (*.azure.com), Azure Government (*.azure.us) or Azure China (*.azure.cn).
func isAzure(host string) bool {
	h := strings.ToLower(host)
	for _, suffix := range []string{".azure.com", ".azure.us", ".azure.cn"} {
		if strings.HasSuffix(h, suffix) {
			return true
		}
	}
	return false
}
