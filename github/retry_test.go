package github

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-eval/mcp-eval/internal/httpretry"
	"github.com/mcp-eval/mcp-eval/report"
)

func TestRateLimitWait(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	resp := func(code int, h ...string) *http.Response {
		r := &http.Response{StatusCode: code, Header: http.Header{}}
		for i := 0; i+1 < len(h); i += 2 {
			r.Header.Set(h[i], h[i+1])
		}
		return r
	}
	for _, tt := range []struct {
		name    string
		resp    *http.Response
		attempt int
		wait    time.Duration
		limited bool
	}{
		{"429 Retry-After seconds", resp(429, "Retry-After", "7"), 0, 7 * time.Second, true},
		{"403 Retry-After date", resp(403, "Retry-After", now.Add(20*time.Second).Format(http.TimeFormat)), 0, 20 * time.Second, true},
		{"403 primary limit until reset", resp(403, "X-Ratelimit-Remaining", "0", "X-Ratelimit-Reset", strconv.FormatInt(now.Add(30*time.Second).Unix(), 10)), 0, 31 * time.Second, true},
		{"reset already passed", resp(403, "X-Ratelimit-Remaining", "0", "X-Ratelimit-Reset", strconv.FormatInt(now.Add(-time.Minute).Unix(), 10)), 0, time.Second, true},
		{"429 without headers: backoff", resp(429), 2, 4 * secondaryBackoff, true},
		{"403 without headers is a permission answer", resp(403, "X-Ratelimit-Remaining", "4999"), 0, 0, false},
		{"huge Retry-After saturates, too long to wait", resp(429, "Retry-After", "99999999999"), 0, httpretry.Saturated, true},
		{"500 is not a rate limit", resp(500, "Retry-After", "1"), 0, 0, false},
	} {
		wait, limited := rateLimitWait(tt.resp, tt.attempt, now)
		if wait != tt.wait || limited != tt.limited {
			t.Errorf("%s: %v %v, want %v %v", tt.name, wait, limited, tt.wait, tt.limited)
		}
	}
}

// rateLimited answers the first n requests with a rate-limit refusal, then
// serves next. It records the bodies it saw.
type rateLimited struct {
	mu     sync.Mutex
	n      int
	method string // only requests of this method count ("" = all)
	hits   int
	bodies []string
	refuse func(w http.ResponseWriter)
	next   http.Handler
}

func (h *rateLimited) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(b))
	h.mu.Lock()
	refuse := false
	if h.method == "" || r.Method == h.method {
		h.hits++
		h.bodies = append(h.bodies, string(b))
		refuse = h.hits <= h.n
	}
	h.mu.Unlock()
	if refuse {
		h.refuse(w)
		return
	}
	h.next.ServeHTTP(w, r)
}

func TestClientRetriesRateLimits(t *testing.T) {
	t.Parallel()
	secondary := func(w http.ResponseWriter) {
		w.Header().Set("Retry-After", "2")
		apiError(w, 403, "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.")
	}
	long := func(w http.ResponseWriter) {
		w.Header().Set("X-Ratelimit-Remaining", "0")
		w.Header().Set("X-Ratelimit-Reset", strconv.FormatInt(time.Now().Add(40*time.Minute).Unix(), 10))
		apiError(w, 403, "API rate limit exceeded for installation ID 1.")
	}
	tooMany := func(w http.ResponseWriter) { apiError(w, 429, "Too Many Requests") }
	for _, tt := range []struct {
		name     string
		n        int
		refuse   func(http.ResponseWriter)
		hits     int
		slept    []time.Duration
		wantErr  string
		comment  bool // a POST: the body must be replayed
		retries  int
		maxWaitS int
	}{
		{name: "Retry-After honoured, then success", n: 2, refuse: secondary, hits: 3, slept: []time.Duration{2 * time.Second, 2 * time.Second}},
		{name: "a POST is replayed with its body", n: 1, refuse: secondary, hits: 2, slept: []time.Duration{2 * time.Second}, comment: true},
		{name: "bounded retries", n: 100, refuse: tooMany, hits: 4, slept: []time.Duration{5 * time.Second, 10 * time.Second, 20 * time.Second}, wantErr: "429"},
		{name: "a reset 40 minutes away is not waited for", n: 100, refuse: long, hits: 1, wantErr: "rate limit"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFakeGitHub(t, "/api/v3")
			h := &rateLimited{n: tt.n, refuse: tt.refuse, next: f.api.Config.Handler}
			if tt.comment {
				h.method = http.MethodPost
			}
			api := httptest.NewServer(h)
			defer api.Close()
			var mu sync.Mutex
			var slept []time.Duration
			cfg := Config{Token: testToken, sleep: func(_ context.Context, d time.Duration) error {
				mu.Lock()
				slept = append(slept, d)
				mu.Unlock()
				return nil
			}}
			c, err := NewClient(f.env(api.URL+"/api/v3"), Event{Name: "push"}, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if tt.comment {
				_, err = c.UpsertKeyedComment(t.Context(), prNumber, "", body("after a limit"))
			} else {
				_, err = c.LabelPresent(t.Context(), prNumber, "run-evals")
			}
			if tt.wantErr == "" && err != nil {
				t.Fatalf("error %v", err)
			}
			if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("error %v, want %q", err, tt.wantErr)
			}
			if h.hits != tt.hits || fmt.Sprint(slept) != fmt.Sprint(tt.slept) {
				t.Errorf("%d requests, slept %v; want %d, %v", h.hits, slept, tt.hits, tt.slept)
			}
			if tt.comment {
				// The POST refused once, then sent again with its body.
				last := h.bodies[len(h.bodies)-1]
				if !strings.Contains(last, "after a limit") || len(f.comments) != 1 {
					t.Errorf("the retried comment lost its body: %q, %d comments", last, len(f.comments))
				}
			}
		})
	}
}

// No GitHub API request carries the token to another origin: a redirect
// from the API to another port of the same host (or any other host) is
// followed without it, or refused.
func TestClientNeverSendsTokenToAnotherOrigin(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var leaked []string
	reached := 0
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		reached++
		mu.Unlock()
		if a := r.Header.Get("Authorization"); a != "" {
			mu.Lock()
			leaked = append(leaked, r.Method+" "+r.URL.Path+": "+a)
			mu.Unlock()
		}
		writeJSON(w, 200, []any{})
	}))
	defer other.Close()
	for _, code := range []int{301, 302, 307, 308} {
		t.Run(strconv.Itoa(code), func(t *testing.T) {
			t.Parallel()
			api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, other.URL+r.URL.Path, code)
			}))
			defer api.Close()
			c, err := NewClient(Env{Repository: testFull, RunID: currentRun, Ref: "refs/heads/main", APIURL: api.URL + "/api/v3"}, Event{Name: "push"}, Config{Token: testToken})
			if err != nil {
				t.Fatal(err)
			}
			_, _ = c.LabelPresent(t.Context(), prNumber, "run-evals")
			_, _ = c.UpsertKeyedComment(t.Context(), prNumber, "", body("x"))
			_, _, _, _ = fetchBaseline(t.Context(), c, report.LayerConformance)
		})
	}
	t.Cleanup(func() {
		if len(leaked) > 0 {
			t.Errorf("the token reached another origin: %q", leaked)
		}
		t.Logf("%d requests reached the other origin, none with the token", reached)
	})
}
