package llm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"time"

	"github.com/mcp-eval/mcp-eval/internal/httpretry"
)

// Retry timing. The backoff follows the official SDKs (0.5 s doubling to a
// cap of 8 s, up to a quarter taken off as jitter so parallel runs that failed
// together do not retry together; anthropic-sdk-go
// internal/requestconfig/requestconfig.go retryDelay).
const (
	backoffBase = 500 * time.Millisecond
	backoffMax  = 8 * time.Second
	// maxServerWait is the longest Retry-After honoured. The SDKs ignore a
	// longer one and retry on their own schedule, which only collects another
	// 429; here the call fails instead, with the wait in RateLimitError, so a
	// run reports the limit rather than hammering it.
	maxServerWait = 60 * time.Second
)

// Client is the HTTP machinery every provider shares: one endpoint, fixed
// headers, a concurrency limit, retries and bounded bodies, and credentials
// scrubbed from every error.
type Client struct {
	name    string
	url     string
	safeURL string // url without userinfo and query, for error messages
	idURL   string // url without userinfo: what tells one backend from another
	header  http.Header
	secrets []string // credentials to scrub from every error text
	cf      Settings
	sem     chan struct{}
	explain func(*APIError) (hint string, final bool)
}

// NewClient makes the client of provider name, posting to rawURL with the
// headers h (Content-Type, Accept and User-Agent are added); secrets are
// the credentials in h, scrubbed from every error text.
func NewClient(name, rawURL string, h http.Header, secrets []string, cf Settings) *Client {
	safe, id := rawURL, rawURL
	if u, err := url.Parse(rawURL); err == nil {
		safe = (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}).String()
		id = (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path, RawQuery: u.RawQuery}).String()
	}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json")
	h.Set("User-Agent", "mcp-eval")
	return &Client{
		name: name, url: rawURL, safeURL: safe, idURL: id, header: h, secrets: secrets, cf: cf,
		sem: make(chan struct{}, cf.concurrency),
	}
}

// outcome says whether a failed attempt may be retried and whether the
// server said when.
type outcome struct {
	retry    bool
	after    time.Duration
	hasAfter bool
}

// Do POSTs body and decodes a 2xx answer with decode, retrying network
// errors, timeouts, 408, 409, 429 and 5xx (Anthropic's 529 included), the
// set the official SDKs retry. 400, 401, 403, 404 and 422 are final: the
// same request would fail the same way.
func (c *Client) Do(ctx context.Context, model string, body []byte, decode func([]byte) (*Response, error)) (*Response, error) {
	// spent is the time since the first attempt ended: later attempts and
	// the waits between them, which the retry budget bounds.
	var spent time.Duration
	for attempt := 0; ; attempt++ {
		start := time.Now()
		resp, out, err := c.attempt(ctx, model, body, decode)
		if attempt > 0 {
			spent += time.Since(start)
		}
		if err == nil {
			return resp, nil
		}
		if !out.retry || attempt >= c.cf.maxRetries {
			return nil, gaveUp(attempt, err)
		}
		wait, ok := backoff(attempt, out)
		if !ok {
			return nil, fmt.Errorf("the provider asked to wait %s before retrying, more than the %s honoured: %w", out.after.Round(time.Second), maxServerWait, gaveUp(attempt, err))
		}
		if c.cf.retryBudget > 0 && spent+wait > c.cf.retryBudget {
			return nil, fmt.Errorf("retry budget of %s spent (next wait %s): %w", c.cf.retryBudget, wait.Round(time.Millisecond), gaveUp(attempt, err))
		}
		spent += wait
		if serr := c.cf.sleep(ctx, wait); serr != nil {
			return nil, fmt.Errorf("%s: waiting to retry (%v): %w", c.name, err, serr)
		}
	}
}

func gaveUp(attempt int, err error) error {
	if attempt == 0 {
		return err
	}
	return fmt.Errorf("after %d attempts: %w", attempt+1, err)
}

// backoff returns the wait before retry number attempt+1, or false when the
// server asked for longer than maxServerWait.
func backoff(attempt int, out outcome) (time.Duration, bool) {
	if out.hasAfter {
		return out.after, out.after <= maxServerWait
	}
	d := backoffMax
	if attempt < 5 { // 0.5 s << 4 = 8 s; beyond that the cap holds
		d = min(backoffBase<<attempt, backoffMax)
	}
	return d - time.Duration(rand.Int64N(int64(d/4)+1)), true
}

// attempt makes one HTTP request while holding a concurrency slot. The slot
// is released before any retry wait, so waiting calls do not block others.
func (c *Client) attempt(ctx context.Context, model string, body []byte, decode func([]byte) (*Response, error)) (*Response, outcome, error) {
	if err := ctx.Err(); err != nil {
		return nil, outcome{}, fmt.Errorf("%s: %w", c.name, err)
	}
	select {
	case c.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, outcome{}, fmt.Errorf("%s: %w", c.name, ctx.Err())
	}
	defer func() { <-c.sem }()

	obs := c.cf.observer
	if obs != nil {
		obs.RequestStart(c.name, model)
	}
	start := time.Now()
	resp, out, err := c.roundTrip(ctx, body, decode)
	if obs != nil {
		var u Usage
		if resp != nil {
			u = resp.Usage
		}
		obs.RequestEnd(c.name, model, time.Since(start), u, err)
	}
	return resp, out, err
}

func (c *Client) roundTrip(ctx context.Context, body []byte, decode func([]byte) (*Response, error)) (*Response, outcome, error) {
	var actx context.Context
	var cancel context.CancelFunc
	if c.cf.timeout > 0 {
		actx, cancel = context.WithTimeout(ctx, c.cf.timeout)
	} else {
		actx, cancel = context.WithCancel(ctx)
	}
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, outcome{}, c.scrub(fmt.Sprintf("%s: POST %s: %v", c.name, c.safeURL, err), err)
	}
	req.Header = c.header.Clone()

	res, err := c.cf.httpClient.Do(req)
	if err != nil {
		out, err := c.transportError(ctx, actx, err)
		return nil, out, err
	}
	defer res.Body.Close()

	if res.StatusCode < 200 || res.StatusCode > 299 {
		out, err := c.statusError(res)
		return nil, out, err
	}
	data, err := io.ReadAll(io.LimitReader(res.Body, maxResponseBody+1))
	if err != nil {
		// A body cut off mid-way (connection reset, short Content-Length)
		// is a network failure like any other and worth another try.
		out, err := c.transportError(ctx, actx, err)
		return nil, out, err
	}
	if len(data) > maxResponseBody {
		return nil, outcome{}, fmt.Errorf("%s: response body exceeds %d MiB", c.name, maxResponseBody>>20)
	}
	r, err := decode(data)
	if err != nil {
		// A gateway's error inside a 200 (OpenRouter) is retried when its
		// status would be.
		var in200 *errorIn200
		if errors.As(err, &in200) {
			in200.e.Message = redact(in200.e.Message, c.secrets)
			return nil, outcome{retry: retryableStatus(in200.e.StatusCode)}, c.scrub(fmt.Sprintf("%s: POST %s: %v", c.name, c.safeURL, err), err)
		}
		// A complete 2xx body that does not parse is not retried: a proxy
		// answering HTML, or a server speaking another dialect, will do it
		// again.
		return nil, outcome{}, c.scrub(fmt.Sprintf("%s: malformed response from POST %s: %v", c.name, c.safeURL, err), err)
	}
	return r, outcome{}, nil
}

// transportError classifies a failure to get or read a response.
func (c *Client) transportError(ctx, actx context.Context, err error) (outcome, error) {
	if ctx.Err() != nil {
		// The caller gave up; that is neither the provider's fault nor
		// worth a retry.
		return outcome{}, fmt.Errorf("%s: %w", c.name, ctx.Err())
	}
	if actx.Err() != nil {
		return outcome{retry: true}, c.scrub(fmt.Sprintf("%s: POST %s: no response within %s", c.name, c.safeURL, c.cf.timeout), context.DeadlineExceeded)
	}
	// url.Error's text repeats the full URL, whose query or userinfo may
	// carry a credential; report the cause against the sanitised URL.
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return outcome{retry: true}, c.scrub(fmt.Sprintf("%s: POST %s: %v", c.name, c.safeURL, err), err)
}

// statusError turns a non-2xx response into *APIError or *RateLimitError.
func (c *Client) statusError(res *http.Response) (outcome, error) {
	body, _ := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
	e := &APIError{Provider: c.name, StatusCode: res.StatusCode, RequestID: res.Header.Get("x-request-id")}
	if e.RequestID == "" {
		e.RequestID = res.Header.Get("request-id") // Anthropic's name for it
	}
	detail := parseErrorBody(e, body)
	// A server (or a proxy in front of it) may echo request headers into its
	// error; none of it may carry the key out.
	for _, s := range []*string{&e.Message, &e.Type, &e.Code, &e.Param, &e.RequestID} {
		*s = redact(*s, c.secrets)
	}

	out := outcome{retry: retryableStatus(res.StatusCode)}
	out.after, out.hasAfter = retryAfter(res.Header, c.cf.now())
	final := false
	if c.explain != nil {
		e.Hint, final = c.explain(e)
	}
	// Both SDKs let the server overrule the status code with x-should-retry.
	switch res.Header.Get("x-should-retry") {
	case "true":
		out.retry = true
	case "false":
		out.retry = false
	}
	// Exhausted quota and spend limits also come back as 429, but lift only
	// when someone pays; retrying them just burns the run's time.
	if final || e.Code == "insufficient_quota" || e.Type == "insufficient_quota" || detail == "enforced_spend_limit_reached" {
		out.retry = false
	}
	if res.StatusCode == http.StatusTooManyRequests {
		return out, &RateLimitError{APIError: e, RetryAfter: out.after}
	}
	return out, e
}

func retryableStatus(code int) bool {
	return code == http.StatusRequestTimeout || code == http.StatusConflict ||
		code == http.StatusTooManyRequests || code >= 500
}

// retryAfter reads the server's requested wait: retry-after-ms (sent by
// OpenAI and Anthropic, preferred by their SDKs for its precision), then
// Retry-After as seconds or an HTTP date (RFC 9110 §10.2.3).
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if d, ok := httpretry.RetryAfterMs(h); ok {
		return d, true
	}
	return httpretry.RetryAfter(h, now)
}

// scrubbedError carries a message with credentials removed while keeping
// the cause for errors.Is and errors.As.
type scrubbedError struct {
	msg string
	err error
}

func (e *scrubbedError) Error() string { return e.msg }
func (e *scrubbedError) Unwrap() error { return e.err }

func (c *Client) scrub(msg string, cause error) error {
	return &scrubbedError{msg: redact(msg, c.secrets), err: cause}
}

// Name is the provider's name, the prefix of its model specs.
func (c *Client) Name() string { return c.name }

// Endpoint is the URL requests go to, without userinfo; caches key on it
// so that one model name on two backends never shares answers.
func (c *Client) Endpoint() string { return c.idURL }

// SetExplain installs a provider's reading of its own errors: a hint
// appended to the message (what to change on the server) and whether the
// error is final although its status would be retried (llama-server
// answers 500 when it was started without --jinja).
func (c *Client) SetExplain(explain func(*APIError) (hint string, final bool)) { c.explain = explain }

// maxListBody bounds a models list: OpenRouter's lists every model it
// routes, a few megabytes.
const maxListBody = 8 << 20

// probeTimeout bounds a probe's one request, whatever --model-timeout
// says: a models list answers at once, and a wrong address should cost
// seconds, not a minute.
const probeTimeout = 10 * time.Second

// Get makes one GET of rawURL with the client's headers: one attempt, no
// retry, within probeTimeout (or the settings' timeout when shorter). A
// 2xx answer's body is returned (at most 8 MiB); any other status is an
// *APIError, a failure to connect a scrubbed error naming the URL.
func (c *Client) Get(ctx context.Context, rawURL string) ([]byte, error) {
	timeout := probeTimeout
	if c.cf.timeout > 0 {
		timeout = min(timeout, c.cf.timeout)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	safe := rawURL
	if u, err := url.Parse(rawURL); err == nil {
		safe = (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}).String()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, c.scrub(fmt.Sprintf("GET %s: %v", safe, err), err)
	}
	req.Header = c.header.Clone()
	req.Header.Del("Content-Type")
	res, err := c.cf.httpClient.Do(req)
	if err != nil {
		if ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, c.scrub(fmt.Sprintf("GET %s: no answer within %s", safe, timeout), context.DeadlineExceeded)
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, c.scrub(fmt.Sprintf("GET %s: %v", safe, err), err)
	}
	defer res.Body.Close()
	if res.StatusCode < 200 || res.StatusCode > 299 {
		_, err := c.statusError(res)
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(res.Body, maxListBody+1))
	if err != nil {
		return nil, c.scrub(fmt.Sprintf("GET %s: %v", safe, err), err)
	}
	if len(data) > maxListBody {
		return nil, fmt.Errorf("GET %s: the answer exceeds %d MiB", safe, maxListBody>>20)
	}
	return data, nil
}
