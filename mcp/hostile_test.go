package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// flushEvery writes chunk, flushed, at once and then every tick until the
// client leaves: a server that never answers and never falls silent.
func flushEvery(ct, first, chunk string, tick time.Duration) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", ct)
		io.WriteString(w, first)
		w.(http.Flusher).Flush()
		for {
			select {
			case <-r.Context().Done():
				return
			case <-time.After(tick):
				if _, err := io.WriteString(w, chunk); err != nil {
					return
				}
				w.(http.Flusher).Flush()
			}
		}
	}
}

// interimEvery sends a 103 Early Hints at once and then every tick
// (net/http writes each one out), never a final response.
func interimEvery(tick time.Duration) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Link", "</a.css>; rel=preload")
		for {
			w.WriteHeader(http.StatusEarlyHints)
			select {
			case <-r.Context().Done():
				return
			case <-time.After(tick):
			}
		}
	}
}

// The request's deadline bounds the whole answer however the server
// dribbles it (a deadline that restarted on each byte, notification or
// interim response would never end these), and the timeout says what
// arrived. No time is asserted: the servers below never stop, so only the
// deadline can end the requests; the first thing each sends goes out with
// its headers, so it has arrived when the deadline strikes.
func TestHTTPDeadlineNamesWhatArrived(t *testing.T) {
	tests := []struct {
		name string
		h    http.HandlerFunc
		want string
	}{
		{"hang", func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }, ""},
		{"headers then nothing", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}, "got HTTP 200 headers, then no body"},
		{"a trickling body", flushEvery("application/json", `{"jsonrpc":`, " ", 20*time.Millisecond), "bytes of a body that never ended"},
		{"slowloris SSE", flushEvery("text/event-stream",
			"data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":0}}\n\n",
			": keep-alive\n\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":1}}\n\n", 20*time.Millisecond),
			"an SSE stream of "},
		{"slow interim responses", interimEvery(20 * time.Millisecond), "interim responses (the last HTTP 103), no final one"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// The body read, net/http ends the handler's context when the
			// client leaves.
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				tt.h(w, r)
			})
			_, err := exchange(t, h, 1<<20, time.Second)
			var te *TimeoutError
			if !errors.As(err, &te) {
				t.Fatalf("err = %v, want a TimeoutError", err)
			}
			if tt.want == "" && te.Seen != "" {
				t.Errorf("Seen = %q for a server that sent nothing", te.Seen)
			}
			if !strings.Contains(err.Error(), "no answer within 1s") || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %q, want it to say %q", err, tt.want)
			}
		})
	}
}

// A flood of interim responses is cut after maxInterim of them, as the
// server's (wrong) answer, not left to run until the deadline.
func TestHTTPInterimFlood(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		for r.Context().Err() == nil {
			w.WriteHeader(http.StatusEarlyHints)
		}
	})
	_, err := exchange(t, h, 0, time.Minute)
	var pe *ProtocolError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), fmt.Sprintf("%d interim responses", maxInterim)) {
		t.Fatalf("err = %v, want a ProtocolError naming %d interim responses", err, maxInterim)
	}
}

// An SSE stream that floods notifications until the size limit answers
// nothing: the breaker counts it as a timeout, so a server that floods
// every stream is given up on after unresponsiveAfter streams.
func TestHTTPFloodTripsBreaker(t *testing.T) {
	event := "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"" + strings.Repeat("x", 1000) + "\"}}\n\n"
	srv := httptest.NewServer(modernHandler(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for r.Context().Err() == nil {
			if _, err := io.WriteString(w, event); err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	c, err := Connect(context.Background(), &HTTPTarget{URL: srv.URL, MaxBytes: 64 << 10}, Options{Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for i := range unresponsiveAfter + 1 {
		_, err := c.ListTools(context.Background())
		if i < unresponsiveAfter {
			if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "none the response") {
				t.Errorf("request %d: %v, want ErrTooLarge for a stream with no response", i, err)
			}
			continue
		}
		if !errors.Is(err, ErrUnresponsive) {
			t.Errorf("request %d: %v, want ErrUnresponsive", i, err)
		}
	}
}

// Over stdio a server that only chatters (a notification every few
// milliseconds, never an answer) trips the breaker like a silent one, and
// one that writes an answer's line without ever ending it is named.
func TestStdioHostileDeadline(t *testing.T) {
	const timeout = 500 * time.Millisecond
	t.Run("notifications are no answer", func(t *testing.T) {
		t.Parallel()
		c := connectFake(t, "notes", Options{Timeout: timeout})
		for i := range unresponsiveAfter + 2 {
			_, err := c.ListTools(context.Background())
			var te *TimeoutError
			switch {
			case i < unresponsiveAfter && !errors.As(err, &te):
				t.Errorf("request %d: %v, want a timeout", i, err)
			case i < unresponsiveAfter && !strings.Contains(err.Error(), "notifications or requests from the server, no response"):
				t.Errorf("request %d: %q does not name the notifications", i, err)
			case i >= unresponsiveAfter && !errors.Is(err, ErrUnresponsive):
				t.Errorf("request %d: %v, want ErrUnresponsive", i, err)
			}
		}
	})
	t.Run("an unfinished line", func(t *testing.T) {
		t.Parallel()
		c := connectFake(t, "drip", Options{Timeout: timeout})
		_, err := c.ListTools(context.Background())
		var te *TimeoutError
		if !errors.As(err, &te) || !strings.Contains(err.Error(), "bytes of a stdout line never ended") {
			t.Errorf("err = %v, want a timeout naming the unfinished line", err)
		}
	})
}

// A stdio answer nested 50 000 deep is named as such at once, not left to
// time out as "no MCP server" (the id is read from its top level).
func TestStdioDeepAnswerNamed(t *testing.T) {
	_, err := Connect(context.Background(), fakeTarget(t, "deep"), Options{Timeout: time.Minute, StartTimeout: time.Minute})
	var nm *NotMCPError
	if !errors.As(err, &nm) || !strings.Contains(err.Error(), "nests arrays and objects more than 10000 deep") {
		t.Fatalf("err = %v, want a NotMCPError naming the nesting bound", err)
	}
	if errors.As(err, new(*TimeoutError)) || strings.Contains(err.Error(), "no answer within") {
		t.Errorf("err = %v: the answer came, and was too deep, not late", err)
	}
}
