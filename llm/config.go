package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
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

// Option configures a Provider.
type Option func(*Settings)

// Settings are a provider's HTTP settings: client, timeouts, retries,
// concurrency, observer. Provider packages get them from the registry
// (NewSettings) and hand them to NewClient.
type Settings struct {
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
	return func(cf *Settings) {
		if c != nil {
			cf.httpClient = c
		}
	}
}

// WithTimeout bounds each HTTP attempt, response body included (default
// DefaultTimeout; zero or less means no bound but the caller's context). A
// timed-out attempt is retried like a network error.
func WithTimeout(d time.Duration) Option { return func(cf *Settings) { cf.timeout = d } }

// WithMaxRetries sets how many times a failed attempt is retried (default
// DefaultMaxRetries; 0 disables retries).
func WithMaxRetries(n int) Option { return func(cf *Settings) { cf.maxRetries = max(n, 0) } }

// WithRetryBudget bounds the total time one call spends after its first
// attempt (waits and retries; default DefaultRetryBudget). A retry whose
// wait would not fit fails the call with the provider's last error.
func WithRetryBudget(d time.Duration) Option { return func(cf *Settings) { cf.retryBudget = d } }

// WithConcurrency caps the requests in flight to this provider at once
// (default DefaultConcurrency). Create one Provider per provider name and
// share it across that provider's models, or each gets its own limit.
func WithConcurrency(n int) Option { return func(cf *Settings) { cf.concurrency = max(n, 1) } }

// WithObserver reports every HTTP attempt to o.
func WithObserver(o Observer) Option { return func(cf *Settings) { cf.observer = o } }

// WithSleep replaces the wait between retries, so tests in any package can
// exercise retry paths without sleeping. sleep must return ctx.Err() if ctx
// ends first.
func WithSleep(sleep func(ctx context.Context, d time.Duration) error) Option {
	return func(cf *Settings) { cf.sleep = sleep }
}

// NewSettings applies opts to the defaults, and gives the HTTP client the
// providers' redirect policy.
func NewSettings(opts ...Option) Settings {
	cf := Settings{
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
