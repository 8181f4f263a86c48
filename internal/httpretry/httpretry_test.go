package httpretry

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"testing"
	"time"
)

var now = time.Date(2026, 8, 1, 12, 0, 0, 0, time.UTC)

func header(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Set(kv[i], kv[i+1])
	}
	return h
}

func TestHints(t *testing.T) {
	t.Parallel()
	reset := func(d time.Duration) string { return strconv.FormatInt(now.Add(d).Unix(), 10) }
	tests := []struct {
		name string
		read func(http.Header, time.Time) (time.Duration, bool)
		h    http.Header
		want time.Duration
		ok   bool
	}{
		{"no Retry-After", RetryAfter, header(), 0, false},
		{"seconds", RetryAfter, header("Retry-After", "3"), 3 * time.Second, true},
		{"zero seconds", RetryAfter, header("Retry-After", "0"), 0, true},
		{"fraction of a second", RetryAfter, header("Retry-After", "0.5"), 500 * time.Millisecond, true},
		{"spaces around", RetryAfter, header("Retry-After", " 7 "), 7 * time.Second, true},
		{"HTTP date ahead", RetryAfter, header("Retry-After", "Sat, 01 Aug 2026 12:00:10 GMT"), 10 * time.Second, true},
		{"HTTP date passed", RetryAfter, header("Retry-After", "Sat, 01 Aug 2026 11:59:00 GMT"), 0, true},
		{"RFC 850 date", RetryAfter, header("Retry-After", "Saturday, 01-Aug-26 12:01:00 GMT"), time.Minute, true},
		{"date centuries ahead is capped", RetryAfter, header("Retry-After", "Sat, 01 Aug 2400 12:00:00 GMT"), Saturated, true},
		{"garbage", RetryAfter, header("Retry-After", "soon"), 0, false},
		{"negative", RetryAfter, header("Retry-After", "-1"), 0, false},
		{"NaN", RetryAfter, header("Retry-After", "NaN"), 0, false},
		{"infinity", RetryAfter, header("Retry-After", "Inf"), Saturated, true},
		{"huge is capped", RetryAfter, header("Retry-After", "1e300"), Saturated, true},
		{"past int64 seconds", RetryAfter, header("Retry-After", "99999999999999999999"), Saturated, true},
		{"just below the cap", RetryAfter, header("Retry-After", "4611686018"), 4611686018 * time.Second, true},

		{"ms", ms, header("retry-after-ms", "250"), 250 * time.Millisecond, true},
		{"ms fraction", ms, header("retry-after-ms", "1.5"), 1500 * time.Microsecond, true},
		{"ms garbage", ms, header("retry-after-ms", "junk"), 0, false},
		{"ms negative", ms, header("retry-after-ms", "-5"), 0, false},
		{"ms huge is capped", ms, header("retry-after-ms", "1e30"), Saturated, true},
		{"ms ignores Retry-After", ms, header("Retry-After", "9"), 0, false},

		{"reset ahead: one second past it", RateLimitReset, header("X-Ratelimit-Remaining", "0", "X-Ratelimit-Reset", reset(30*time.Second)), 31 * time.Second, true},
		{"reset passed: one second", RateLimitReset, header("X-Ratelimit-Remaining", "0", "X-Ratelimit-Reset", reset(-time.Minute)), time.Second, true},
		{"limit not spent", RateLimitReset, header("X-Ratelimit-Remaining", "4999", "X-Ratelimit-Reset", reset(time.Minute)), 0, false},
		{"no remaining", RateLimitReset, header("X-Ratelimit-Reset", reset(time.Minute)), 0, false},
		{"reset garbage", RateLimitReset, header("X-Ratelimit-Remaining", "0", "X-Ratelimit-Reset", "tomorrow"), 0, false},
		{"reset negative: one second", RateLimitReset, header("X-Ratelimit-Remaining", "0", "X-Ratelimit-Reset", "-9223372036854775808"), time.Second, true},
		{"reset huge is capped", RateLimitReset, header("X-Ratelimit-Remaining", "0", "X-Ratelimit-Reset", "9223372036854775807"), Saturated, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := tt.read(tt.h, now)
			if got != tt.want || ok != tt.ok {
				t.Errorf("got %v, %v; want %v, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func ms(h http.Header, _ time.Time) (time.Duration, bool) { return RetryAfterMs(h) }

func TestSleep(t *testing.T) {
	t.Parallel()
	if err := Sleep(t.Context(), time.Millisecond); err != nil {
		t.Errorf("a short sleep: %v", err)
	}
	if err := Sleep(t.Context(), -time.Second); err != nil {
		t.Errorf("a negative wait: %v", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	for _, d := range []time.Duration{0, time.Hour} {
		if err := Sleep(ctx, d); !errors.Is(err, context.Canceled) {
			t.Errorf("Sleep(%v) after cancel = %v, want context.Canceled", d, err)
		}
	}
}

// FuzzHints feeds the three headers arbitrary bytes, as a hostile server
// may send them: no panic, no negative wait, nothing above Saturated, and
// no wait claimed for a header that was not understood.
func FuzzHints(f *testing.F) {
	for _, s := range []string{"1", "0.25", "1e400", "-3", "Sat, 01 Aug 2026 12:00:10 GMT", "NaN", "Inf", "0x10", "9223372036854775807", ""} {
		f.Add(s, s, "0", s)
	}
	f.Fuzz(func(t *testing.T, ra, raMs, remaining, reset string) {
		h := http.Header{}
		h["Retry-After"] = []string{ra}
		h["Retry-After-Ms"] = []string{raMs}
		h["X-Ratelimit-Remaining"] = []string{remaining}
		h["X-Ratelimit-Reset"] = []string{reset}
		for name, read := range map[string]func(http.Header, time.Time) (time.Duration, bool){
			"RetryAfter": RetryAfter, "RetryAfterMs": ms, "RateLimitReset": RateLimitReset,
		} {
			d, ok := read(h, now)
			if d < 0 || d > Saturated {
				t.Errorf("%s: wait %v out of [0, Saturated] for %q", name, d, h)
			}
			if !ok && d != 0 {
				t.Errorf("%s: wait %v without ok for %q", name, d, h)
			}
		}
	})
}
