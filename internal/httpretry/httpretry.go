// Package httpretry reads the waits an HTTP server asks a client to keep
// before trying again (Retry-After, retry-after-ms, GitHub's rate-limit
// reset) and waits them out under a context. The llm, github and
// telemetry/otlp clients share it, each with its own bound on how long a
// wait it honours. The headers come from servers this tool does not trust:
// nothing here panics, overflows or returns a negative wait, whatever the
// bytes. It imports only the standard library.
package httpretry

import (
	"context"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Saturated is the wait a hint too large for a time.Duration gives: far
// beyond any bound a caller honours, and still positive after adding a
// little to it.
const Saturated = time.Duration(math.MaxInt64 / 2)

// RetryAfter reads h's Retry-After: delay-seconds or an HTTP-date (RFC 9110
// §10.2.3), the latter counted from now, never below 0 and never above
// Saturated (a date in 2200 is past what a Duration holds). The seconds may
// carry a fraction ("0.5"), as some gateways send. ok is false when the
// header is absent or is neither form.
func RetryAfter(h http.Header, now time.Time) (wait time.Duration, ok bool) {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if d, ok := Count(v, time.Second); ok {
		return d, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return min(max(t.Sub(now), 0), Saturated), true
	}
	return 0, false
}

// RetryAfterMs reads h's retry-after-ms, the millisecond wait that OpenAI
// and Anthropic send next to Retry-After and their SDKs prefer for its
// precision. ok is false when the header is absent or not a number.
func RetryAfterMs(h http.Header) (wait time.Duration, ok bool) {
	v := strings.TrimSpace(h.Get("retry-after-ms"))
	if v == "" {
		return 0, false
	}
	return Count(v, time.Millisecond)
}

// RateLimitReset reads GitHub's primary rate limit ("Rate limits for the
// REST API"): when x-ratelimit-remaining is 0, the wait until
// x-ratelimit-reset (epoch seconds) and one second more, because GitHub's
// clock and ours differ; at least one second. ok is false when the limit is
// not spent or the reset is not a number.
func RateLimitReset(h http.Header, now time.Time) (wait time.Duration, ok bool) {
	if h.Get("X-Ratelimit-Remaining") != "0" {
		return 0, false
	}
	reset, err := strconv.ParseInt(h.Get("X-Ratelimit-Reset"), 10, 64)
	if err != nil {
		return 0, false
	}
	// time.Unix and Sub saturate rather than wrap, but a reset near the
	// ends of int64 seconds still overflows Unix's nanoseconds: bound it to
	// a range where the arithmetic is exact.
	const limit = int64(Saturated / time.Second)
	reset = min(max(reset, now.Unix()-limit), now.Unix()+limit)
	return min(max(time.Second, time.Unix(reset, 0).Sub(now)+time.Second), Saturated), true
}

// Count parses v as a non-negative decimal number of units. A value too
// large for a time.Duration gives Saturated rather than overflowing into a
// negative wait; a negative number, NaN or anything else gives false.
func Count(v string, unit time.Duration) (time.Duration, bool) {
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(f) || f < 0 {
		return 0, false
	}
	if d := f * float64(unit); d < float64(Saturated) {
		return time.Duration(d), true
	}
	return Saturated, true
}

// Sleep waits d, or returns ctx's error as soon as ctx ends. A wait of 0 or
// less returns at once, with ctx's error if it has ended.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
