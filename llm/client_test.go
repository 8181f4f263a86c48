package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestRetries runs the retry policy against both providers.
func TestRetries(t *testing.T) {
	t.Parallel()
	type want struct {
		ok       bool
		requests int
		sleeps   []time.Duration // exact waits; nil with jitter set
		jitter   bool            // waits follow the backoff schedule
		status   int             // APIError status when !ok
		in       string          // text the error must contain
	}
	now := time.Date(2026, 8, 1, 12, 0, 0, 0, time.UTC)
	ok := func(b backend) step { return step{file: b.okFile} }
	tests := []struct {
		name  string
		steps func(b backend) []step
		want  want
	}{
		{
			name: "429 with Retry-After seconds, then success",
			steps: func(b backend) []step {
				return []step{{status: 429, header: map[string]string{"Retry-After": "2"}, file: b.name + "/error_429.json"}, ok(b)}
			},
			want: want{ok: true, requests: 2, sleeps: []time.Duration{2 * time.Second}},
		},
		{
			name: "retry-after-ms preferred to Retry-After",
			steps: func(b backend) []step {
				return []step{{status: 429, header: map[string]string{"retry-after-ms": "1500", "Retry-After": "5"}, file: b.name + "/error_429.json"}, ok(b)}
			},
			want: want{ok: true, requests: 2, sleeps: []time.Duration{1500 * time.Millisecond}},
		},
		{
			name: "Retry-After as an HTTP date",
			steps: func(b backend) []step {
				date := now.Add(3 * time.Second).Format(http.TimeFormat)
				return []step{{status: 503, header: map[string]string{"Retry-After": date}, body: "busy"}, ok(b)}
			},
			want: want{ok: true, requests: 2, sleeps: []time.Duration{3 * time.Second}},
		},
		{
			name: "500 twice, then success, with exponential backoff",
			steps: func(b backend) []step {
				return []step{{status: 500, body: "oops"}, {status: 500, body: "oops"}, ok(b)}
			},
			want: want{ok: true, requests: 3, jitter: true},
		},
		{
			name:  "the provider's overload answer is retried",
			steps: func(b backend) []step { return []step{b.overload, ok(b)} },
			want:  want{ok: true, requests: 2, jitter: true},
		},
		{
			name: "a body cut short is retried",
			steps: func(b backend) []step {
				short := func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Length", "5000")
					io.WriteString(w, `{"id":"x","choices":[`)
				}
				return []step{{handler: short}, ok(b)}
			},
			want: want{ok: true, requests: 2, jitter: true},
		},
		{
			name: "retries run out",
			steps: func(b backend) []step {
				s := step{status: 502, body: "<html>bad gateway</html>"}
				return []step{s, s, s}
			},
			want: want{requests: 3, jitter: true, status: 502, in: "after 3 attempts"},
		},
		{
			name: "Retry-After beyond the cap is not waited for",
			steps: func(b backend) []step {
				return []step{{status: 429, header: map[string]string{"Retry-After": "120"}, file: b.name + "/error_429.json"}}
			},
			want: want{requests: 1, status: 429, in: "retry after 2m0s"},
		},
		{
			name: "x-should-retry: false overrules a 503",
			steps: func(b backend) []step {
				return []step{{status: 503, header: map[string]string{"x-should-retry": "false"}, body: "down"}}
			},
			want: want{requests: 1, status: 503},
		},
		{
			name: "x-should-retry: true overrules a 400",
			steps: func(b backend) []step {
				return []step{{status: 400, header: map[string]string{"x-should-retry": "true"}, file: b.errFile}, ok(b)}
			},
			want: want{ok: true, requests: 2, jitter: true},
		},
		{
			name:  "400 is final",
			steps: func(b backend) []step { return []step{{status: 400, file: b.errFile}} },
			want:  want{requests: 1, status: 400},
		},
		{
			name:  "401 is final",
			steps: func(b backend) []step { return []step{{status: 401, file: b.name + "/error_401.json"}} },
			want:  want{requests: 1, status: 401},
		},
		{
			name: "403 is final",
			steps: func(b backend) []step {
				return []step{{status: 403, body: `{"error":{"message":"forbidden","type":"permission_error"}}`}}
			},
			want: want{requests: 1, status: 403, in: "forbidden"},
		},
		{
			name: "404 is final",
			steps: func(b backend) []step {
				return []step{{status: 404, body: "404 page not found", header: map[string]string{"Content-Type": "text/plain"}}}
			},
			want: want{requests: 1, status: 404, in: "404 page not found"},
		},
		{
			name:  "malformed 2xx body is a clear error, not retried",
			steps: func(b backend) []step { return []step{{body: `{"id": "x", "choices": [{"message": `}} },
			want:  want{requests: 1, in: "malformed response"},
		},
		{
			name: "oversized body is refused",
			steps: func(b backend) []step {
				big := func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", "application/json")
					io.WriteString(w, `{"id":"`)
					chunk := strings.Repeat("a", 1<<20)
					for range 17 {
						io.WriteString(w, chunk)
					}
					io.WriteString(w, `"}`)
				}
				return []step{{handler: big}}
			},
			want: want{requests: 1, in: "exceeds 16 MiB"},
		},
	}
	for _, b := range backends {
		for _, tt := range tests {
			t.Run(b.name+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				f := newFake(t, tt.steps(b)...)
				p, s := b.provider(t, f, WithMaxRetries(2), func(cf *Settings) { cf.now = func() time.Time { return now } })
				resp, err := p.Complete(t.Context(), simpleRequest())
				if got := len(f.requests()); got != tt.want.requests {
					t.Errorf("got %d requests, want %d", got, tt.want.requests)
				}
				for i, r := range f.requests() {
					if r.path != b.path {
						t.Errorf("request %d went to %s, want %s", i, r.path, b.path)
					}
				}
				if tt.want.ok {
					if err != nil {
						t.Fatalf("got error %v", err)
					}
					if resp.Usage != b.okUsage {
						t.Errorf("usage = %+v, want %+v", resp.Usage, b.okUsage)
					}
				} else {
					if err == nil {
						t.Fatal("got no error")
					}
					var ae *APIError
					switch {
					case tt.want.status == 0 && errors.As(err, &ae):
						t.Errorf("got API error %v, want a local one", err)
					case tt.want.status != 0 && !errors.As(err, &ae):
						t.Errorf("got %T %v, want *APIError", err, err)
					case tt.want.status != 0 && ae.StatusCode != tt.want.status:
						t.Errorf("status = %d, want %d", ae.StatusCode, tt.want.status)
					}
					if !strings.Contains(err.Error(), tt.want.in) {
						t.Errorf("error %q does not contain %q", err, tt.want.in)
					}
				}
				got := s.got()
				if tt.want.jitter {
					if len(got) != tt.want.requests-1 {
						t.Fatalf("slept %v, want %d waits", got, tt.want.requests-1)
					}
					for i, d := range got {
						hi := backoffBase << i
						if d < hi*3/4 || d > hi {
							t.Errorf("wait %d = %v, want within [%v, %v]", i, d, hi*3/4, hi)
						}
					}
				} else if diff := cmp.Diff(tt.want.sleeps, got); diff != "" {
					t.Errorf("waits (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// TestRateLimitError checks the typed error a caller branches on, and
// that quota and spend limits (also 429) are not retried.
func TestRateLimitError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		b        backend
		file     string
		retried  bool
		wantType string
	}{
		{backends[0], "openai/error_429.json", true, "tokens"},
		{backends[0], "openai/error_429_quota.json", false, "insufficient_quota"},
		{backends[1], "anthropic/error_429.json", true, "rate_limit_error"},
		{backends[1], "anthropic/error_429_spend.json", false, "rate_limit_error"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			s := step{status: 429, header: map[string]string{"Retry-After": "7", "x-request-id": "req_abc", "request-id": "req_abc"}, file: tt.file}
			f := newFake(t, s, s)
			p, _ := tt.b.provider(t, f, WithMaxRetries(1))
			_, err := p.Complete(t.Context(), simpleRequest())
			var rl *RateLimitError
			if !errors.As(err, &rl) {
				t.Fatalf("got %T %v, want *RateLimitError", err, err)
			}
			if rl.RetryAfter != 7*time.Second || rl.Type != tt.wantType || rl.RequestID != "req_abc" || rl.Message == "" {
				t.Errorf("got %+v %+v", rl, rl.APIError)
			}
			if n := len(f.requests()); (n == 2) != tt.retried {
				t.Errorf("got %d requests, retried should be %v", n, tt.retried)
			}
		})
	}
}

func TestAPIErrorFields(t *testing.T) {
	t.Parallel()
	tests := []struct {
		b    backend
		want APIError
	}{
		{backends[0], APIError{
			Provider: "openai", StatusCode: 400, Type: "invalid_request_error", Code: "invalid_value",
			Param:   "messages[2].tool_calls[0].function.name",
			Message: "Invalid 'messages[2].tool_calls[0].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.",
		}},
		{backends[1], APIError{
			Provider: "anthropic", StatusCode: 400, Type: "invalid_request_error", RequestID: "req_011CSHoEeqs5C35K2UUqR7Fy",
			Message: "messages.2: Did not find 1 tool_result block(s) at the beginning of this message. Messages following tool_use blocks must begin with a matching number of tool_result blocks.",
		}},
	}
	for _, tt := range tests {
		f := newFake(t, step{status: 400, file: tt.b.errFile})
		p, _ := tt.b.provider(t, f)
		_, err := p.Complete(t.Context(), simpleRequest())
		var ae *APIError
		if !errors.As(err, &ae) {
			t.Fatalf("%s: got %T %v", tt.b.name, err, err)
		}
		if diff := cmp.Diff(&tt.want, ae); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.b.name, diff)
		}
	}
}

// TestKeyNeverInErrors: a server that echoes the credential headers into its
// error must not carry the key into err.Error().
func TestKeyNeverInErrors(t *testing.T) {
	t.Parallel()
	echo := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("x-request-id", r.Header.Get("Authorization"))
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"error":{"message":"bad key %s / %s","type":"%s","code":"%s","param":"%s"}}`,
			r.Header.Get("Authorization"), r.Header.Get("x-api-key"), r.Header.Get("x-api-key"), r.Header.Get("x-api-key"), r.Header.Get("Authorization"))
	}
	echoPlain := func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadGateway)
		fmt.Fprintf(w, "<html>proxy saw Authorization: %s x-api-key: %s</html>", r.Header.Get("Authorization"), r.Header.Get("x-api-key"))
	}
	for _, b := range backends {
		for name, h := range map[string]http.HandlerFunc{"json": echo, "plain": echoPlain} {
			t.Run(b.name+"/"+name, func(t *testing.T) {
				t.Parallel()
				f := newFake(t, step{handler: h})
				p, _ := b.provider(t, f, WithMaxRetries(0))
				_, err := p.Complete(t.Context(), simpleRequest())
				if err == nil {
					t.Fatal("got no error")
				}
				if strings.Contains(err.Error(), b.key) {
					t.Errorf("error carries the key: %v", err)
				}
				if !strings.Contains(err.Error(), "[REDACTED]") {
					t.Errorf("error %q: the echo should show as [REDACTED]", err)
				}
				var ae *APIError
				if errors.As(err, &ae) && strings.Contains(fmt.Sprintf("%+v", *ae), b.key) {
					t.Errorf("APIError fields carry the key: %+v", *ae)
				}
			})
		}
	}
}

// TestNetworkErrorHidesURLSecrets: a transport error names the endpoint
// without userinfo or query.
func TestNetworkErrorHidesURLSecrets(t *testing.T) {
	t.Parallel()
	f := newFake(t)
	base := strings.Replace(f.srv.URL, "http://", "http://user:hunter2@", 1) + "/v1?key=topsecret"
	f.srv.Close() // nothing listens: every attempt fails to connect
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	p := NewChat(NewClient("openai", Endpoint(u, "/chat/completions"), BearerHeader(openAITestKey), []string{openAITestKey},
		NewSettings(WithMaxRetries(1), WithSleep((&sleeps{}).sleep))), ChatOptions{})
	_, err = p.Complete(t.Context(), simpleRequest())
	if err == nil {
		t.Fatal("got no error")
	}
	for _, secret := range []string{"hunter2", "topsecret", openAITestKey} {
		if strings.Contains(err.Error(), secret) {
			t.Errorf("error %q contains %q", err, secret)
		}
	}
	if !strings.Contains(err.Error(), "after 2 attempts") || !strings.Contains(err.Error(), "/v1/chat/completions") {
		t.Errorf("error %q should say where and how often it failed", err)
	}
}

// TestConcurrencyLimit: N parallel calls never exceed the limit at the server.
func TestConcurrencyLimit(t *testing.T) {
	t.Parallel()
	const limit, calls = 3, 10
	forEachBackend(t, func(t *testing.T, b backend) {
		var inflight, peak atomic.Int32
		release := make(chan struct{})
		body := readTestdata(t, b.okFile)
		h := func(w http.ResponseWriter, r *http.Request) {
			n := inflight.Add(1)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			<-release
			inflight.Add(-1)
			w.Header().Set("Content-Type", "application/json")
			w.Write(body)
		}
		steps := make([]step, calls)
		for i := range steps {
			steps[i] = step{handler: h}
		}
		f := newFake(t, steps...)
		p, _ := b.provider(t, f, WithConcurrency(limit))
		errs := make(chan error, calls)
		for range calls {
			go func() {
				_, err := p.Complete(t.Context(), simpleRequest())
				errs <- err
			}()
		}
		// Wait for the limit to fill, give extra calls time to slip
		// through if they could, then let everything finish.
		deadline := time.Now().Add(5 * time.Second)
		for inflight.Load() < limit && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		time.Sleep(50 * time.Millisecond)
		close(release)
		for range calls {
			if err := <-errs; err != nil {
				t.Error(err)
			}
		}
		if got := peak.Load(); got != limit {
			t.Errorf("peak concurrency at the server = %d, want %d", got, limit)
		}
	})
}

func TestContextCancellation(t *testing.T) {
	t.Parallel()
	for _, b := range backends {
		t.Run(b.name+"/during the request", func(t *testing.T) {
			t.Parallel()
			arrived := make(chan struct{})
			hang := func(w http.ResponseWriter, r *http.Request) {
				close(arrived)
				<-r.Context().Done()
			}
			f := newFake(t, step{handler: hang})
			p, _ := b.provider(t, f)
			ctx, cancel := context.WithCancel(t.Context())
			go func() { <-arrived; cancel() }()
			_, err := p.Complete(ctx, simpleRequest())
			if !errors.Is(err, context.Canceled) {
				t.Errorf("got %v, want context.Canceled", err)
			}
			if n := len(f.requests()); n != 1 {
				t.Errorf("got %d requests, want 1 (no retry after cancellation)", n)
			}
		})
		t.Run(b.name+"/waiting for a slot", func(t *testing.T) {
			t.Parallel()
			arrived, release := make(chan struct{}), make(chan struct{})
			body := readTestdata(t, b.okFile)
			block := func(w http.ResponseWriter, r *http.Request) {
				close(arrived)
				<-release
				w.Write(body)
			}
			f := newFake(t, step{handler: block})
			p, _ := b.provider(t, f, WithConcurrency(1))
			done := make(chan error)
			go func() {
				_, err := p.Complete(t.Context(), simpleRequest())
				done <- err
			}()
			<-arrived
			ctx, cancel := context.WithCancel(t.Context())
			cancel()
			if _, err := p.Complete(ctx, simpleRequest()); !errors.Is(err, context.Canceled) {
				t.Errorf("got %v, want context.Canceled", err)
			}
			close(release)
			if err := <-done; err != nil {
				t.Error(err)
			}
		})
		t.Run(b.name+"/waiting to retry", func(t *testing.T) {
			t.Parallel()
			f := newFake(t, step{status: 429, header: map[string]string{"Retry-After": "30"}, file: b.name + "/error_429.json"})
			// The real sleep: the cancellation must cut the 30 s wait short.
			p := b.open(f.srv.URL, NewSettings())
			ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
			defer cancel()
			start := time.Now()
			_, err := p.Complete(ctx, simpleRequest())
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("got %v, want context.DeadlineExceeded", err)
			}
			var rl *RateLimitError
			if errors.As(err, &rl) {
				t.Errorf("the wait's error should not pose as the API's: %v", err)
			}
			// Under the 30 s wait with room for a loaded machine: the
			// error above says the deadline, not the wait, ended it.
			if d := time.Since(start); d > 25*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
}

// TestAttemptTimeout: an attempt that gets no answer in time is abandoned
// and retried. The timeout is per attempt, so the answering attempt must fit
// in it too: 5 s, far over a local answer even on a loaded machine (at
// 50 ms the second attempt timed out under load and the fake ran out of
// steps).
func TestAttemptTimeout(t *testing.T) {
	t.Parallel()
	const attempt = 5 * time.Second
	forEachBackend(t, func(t *testing.T, b backend) {
		hang := func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }
		f := newFake(t, step{handler: hang}, step{file: b.okFile})
		p, s := b.provider(t, f, WithTimeout(attempt))
		if _, err := p.Complete(t.Context(), simpleRequest()); err != nil {
			t.Fatal(err)
		}
		if n := len(s.got()); n != 1 {
			t.Errorf("got %d retry waits, want 1", n)
		}
		// With no retries left the timeout is the error.
		f2 := newFake(t, step{handler: hang})
		p2, _ := b.provider(t, f2, WithTimeout(attempt), WithMaxRetries(0))
		_, err := p2.Complete(t.Context(), simpleRequest())
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "no response within 5s") {
			t.Errorf("got %v", err)
		}
	})
}

// TestObserver: one Start/End pair per HTTP attempt, usage on success.
func TestObserver(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, b backend) {
		f := newFake(t, step{status: 429, header: map[string]string{"Retry-After": "0"}, file: b.name + "/error_429.json"}, step{file: b.okFile})
		rec := &recorder{}
		p, _ := b.provider(t, f, WithObserver(rec))
		if _, err := p.Complete(t.Context(), simpleRequest()); err != nil {
			t.Fatal(err)
		}
		ev := rec.events
		if len(ev) != 4 {
			t.Fatalf("got %d events, want 4: %+v", len(ev), ev)
		}
		var rl *RateLimitError
		if !ev[0].start || ev[1].start || !errors.As(ev[1].err, &rl) || !ev[2].start || ev[3].err != nil {
			t.Errorf("events = %+v", ev)
		}
		if ev[3].usage != b.okUsage || ev[3].provider != b.name || ev[3].model != "test-model" {
			t.Errorf("last event = %+v", ev[3])
		}
	})
}

func TestRetryAfterParsing(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 8, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		header map[string]string
		want   time.Duration
		ok     bool
	}{
		{map[string]string{}, 0, false},
		{map[string]string{"Retry-After": "3"}, 3 * time.Second, true},
		{map[string]string{"Retry-After": "0.5"}, 500 * time.Millisecond, true},
		{map[string]string{"Retry-After": "-1"}, 0, false},
		{map[string]string{"Retry-After": "soon"}, 0, false},
		{map[string]string{"Retry-After": "Sat, 01 Aug 2026 12:00:10 GMT"}, 10 * time.Second, true},
		{map[string]string{"Retry-After": "Sat, 01 Aug 2026 11:59:00 GMT"}, 0, true},
		{map[string]string{"retry-after-ms": "250", "Retry-After": "9"}, 250 * time.Millisecond, true},
		{map[string]string{"retry-after-ms": "junk", "Retry-After": "9"}, 9 * time.Second, true},
		{map[string]string{"Retry-After": "1e300"}, 1<<63/2 - 1, true},
		{map[string]string{"Retry-After": "NaN"}, 0, false},
	}
	for _, tt := range tests {
		h := http.Header{}
		for k, v := range tt.header {
			h.Set(k, v)
		}
		got, ok := retryAfter(h, now)
		if got != tt.want || ok != tt.ok {
			t.Errorf("retryAfter(%v) = %v, %v; want %v, %v", tt.header, got, ok, tt.want, tt.ok)
		}
	}
}

// TestFakeRejectsToolNames: the scripted APIs refuse a dotted tool name
// with HTTP 400, as the real ones do; the agent loop's aliases exist for
// that reason (agent.NewToolNames).
func TestFakeRejectsToolNames(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		f := newFake(t, step{file: b.okFile})
		p, _ := b.provider(t, f, WithMaxRetries(0))
		req := simpleRequest()
		req.Tools = []Tool{{Name: "weather.get"}}
		_, err := p.Complete(context.Background(), req)
		var ae *APIError
		if !errors.As(err, &ae) || ae.StatusCode != 400 {
			t.Fatalf("dotted name: %v, want HTTP 400", err)
		}
		req.Tools = []Tool{{Name: "weather_get"}}
		if _, err := p.Complete(context.Background(), req); err != nil {
			t.Fatalf("safe name: %v", err)
		}
	})
}

// TestRetryBudget: a 429 storm with Retry-After ends when the next wait
// no longer fits the call's retry budget, with the provider's message.
func TestRetryBudget(t *testing.T) {
	var steps []step
	for range 10 {
		steps = append(steps, step{status: 429, header: map[string]string{"Retry-After": "20"}, file: "openai/error_429.json"})
	}
	f := newFake(t, steps...)
	p, s := backends[0].provider(t, f, WithMaxRetries(10), WithRetryBudget(50*time.Second))
	_, err := p.Complete(context.Background(), simpleRequest())
	if err == nil || !strings.Contains(err.Error(), "retry budget of 50s spent") || !strings.Contains(err.Error(), "Rate limit") {
		t.Fatalf("err %v; want the budget and the provider's message", err)
	}
	if got := s.got(); len(got) != 2 || len(f.requests()) != 3 {
		t.Errorf("waits %v, %d requests; want 2 waits of 20 s and 3 requests", got, len(f.requests()))
	}
}

// TestNoCredentialsAcrossOrigins: a provider that redirects to another
// origin — another port on the same host included — is not followed, so
// the API key never reaches it.
func TestNoCredentialsAcrossOrigins(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		var leaked atomic.Int64
		other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			for _, h := range []string{"Authorization", "X-Api-Key", "Api-Key"} {
				if r.Header.Get(h) != "" {
					leaked.Add(1)
				}
			}
			w.Header().Set("Content-Type", "application/json")
			w.Write(readTestdata(t, b.okFile))
		}))
		defer other.Close()
		f := newFake(t, step{handler: func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
		}})
		p, _ := b.provider(t, f, WithMaxRetries(0))
		_, err := p.Complete(context.Background(), simpleRequest())
		if err == nil || !strings.Contains(err.Error(), "redirected to another origin") {
			t.Errorf("err %v; want the refused redirect", err)
		}
		if leaked.Load() != 0 {
			t.Error("the API key reached another origin")
		}
		if strings.Contains(fmt.Sprint(err), b.key) {
			t.Error("the error holds the key")
		}
	})
}

// TestOpenRouterErrorIn200IsRetried: a gateway reporting an upstream 502
// inside a 200 is retried like a 502; a 400 inside a 200 is not.
func TestOpenRouterErrorIn200IsRetried(t *testing.T) {
	in200 := func(code int) step {
		return step{body: fmt.Sprintf(`{"error":{"code":%d,"message":"Provider returned error"},"user_id":"u"}`, code)}
	}
	f := newFake(t, in200(502), step{file: "openai/text.response.json"})
	p, s := backends[0].provider(t, f)
	if _, err := p.Complete(context.Background(), simpleRequest()); err != nil {
		t.Fatalf("after a 502 in a 200: %v", err)
	}
	if len(s.got()) != 1 {
		t.Errorf("waits %v; want one retry", s.got())
	}
	f = newFake(t, in200(400))
	p, _ = backends[0].provider(t, f)
	_, err := p.Complete(context.Background(), simpleRequest())
	var ae *APIError
	if !errors.As(err, &ae) || ae.StatusCode != 400 || len(f.requests()) != 1 {
		t.Errorf("a 400 in a 200: %v after %d requests; want the APIError, no retry", err, len(f.requests()))
	}
}

// TestFakesRejectWhatTheAPIsReject: the scripted APIs answer 400 to an
// orphan tool message (Chat Completions) and to a tool_use whose result
// does not open the next user turn (Messages), as the real ones do, while
// the conversations the agent loop builds pass (the other tests).
func TestFakesRejectWhatTheAPIsReject(t *testing.T) {
	call := ToolCall{ID: "call_1", Name: "get_weather", Arguments: json.RawMessage(`{}`)}
	for _, tt := range []struct {
		backend int
		msgs    []Message
	}{
		{0, []Message{{Role: RoleUser, Content: "hi"}, {Role: RoleTool, ToolCallID: "call_9", Content: "orphan"}}},
		{1, []Message{{Role: RoleUser, Content: "hi"}, {Role: RoleAssistant, ToolCalls: []ToolCall{call}}, {Role: RoleUser, Content: "no result"}}},
	} {
		b := backends[tt.backend]
		f := newFake(t)
		p, _ := b.provider(t, f, WithMaxRetries(0))
		req := simpleRequest()
		req.Messages = tt.msgs
		_, err := p.Complete(context.Background(), req)
		var ae *APIError
		if !errors.As(err, &ae) || ae.StatusCode != 400 {
			t.Errorf("%s: %v; want HTTP 400", b.name, err)
		}
	}
}
