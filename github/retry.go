package github

import (
	"context"
	"io"
	"net/http"
	"time"

	"github.com/mcp-eval/mcp-eval/internal/httpretry"
)

// retryTransport retries a request that GitHub refused for a rate limit,
// as the REST documentation ("Rate limits for the REST API") asks: wait
// Retry-After seconds when the answer has it; when x-ratelimit-remaining is
// 0, wait until x-ratelimit-reset (epoch seconds); a 429 with neither is a
// secondary limit, retried with exponential backoff. A 403 with neither is
// a permission answer and goes back at once. Bounded: at most tries
// retries, no single wait longer than maxWait (a primary limit that resets
// in forty minutes is reported, not slept through: the caller turns it
// into a warning), and the request's context ends any wait.
type retryTransport struct {
	base    http.RoundTripper
	tries   int
	maxWait time.Duration
	sleep   func(context.Context, time.Duration) error
	now     func() time.Time
}

// Defaults of the retry bounds.
const (
	defaultRetries      = 3
	defaultMaxRetryWait = time.Minute
	secondaryBackoff    = 5 * time.Second
)

func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	tries, maxWait := t.tries, t.maxWait
	if tries == 0 {
		tries = defaultRetries
	}
	if maxWait <= 0 {
		maxWait = defaultMaxRetryWait
	}
	sleep, now := t.sleep, t.now
	if sleep == nil {
		sleep = httpretry.Sleep
	}
	if now == nil {
		now = time.Now
	}
	for attempt := 0; ; attempt++ {
		resp, err := t.base.RoundTrip(req)
		if err != nil {
			return resp, err
		}
		wait, limited := rateLimitWait(resp, attempt, now())
		if !limited || attempt >= tries || wait > maxWait || (req.Body != nil && req.GetBody == nil) {
			return resp, nil
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		if err := sleep(req.Context(), wait); err != nil {
			return nil, err
		}
		if req.GetBody != nil {
			body, err := req.GetBody()
			if err != nil {
				return nil, err
			}
			req = req.Clone(req.Context())
			req.Body = body
		}
	}
}

// rateLimitWait says whether resp is a rate-limit refusal and how long to
// wait before the next attempt (attempt counts from 0).
func rateLimitWait(resp *http.Response, attempt int, now time.Time) (time.Duration, bool) {
	if resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode != http.StatusForbidden {
		return 0, false
	}
	if wait, ok := httpretry.RetryAfter(resp.Header, now); ok {
		return wait, true
	}
	if wait, ok := httpretry.RateLimitReset(resp.Header, now); ok {
		return wait, true
	}
	if resp.StatusCode == http.StatusTooManyRequests {
		return secondaryBackoff << attempt, true
	}
	return 0, false
}
