package mcp

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// messageLog is a MessageObserver that keeps what it is told.
type messageLog struct {
	mu   sync.Mutex
	seen []string // "sent method → message method or response"
}

func (l *messageLog) RequestDone(string, string, time.Duration, int, error) {}

func (l *messageLog) MessageReceived(sent *Outgoing, m *Message) {
	what := m.Method
	if m.IsResponse() {
		what = "response " + string(m.ID)
	}
	from := "(none)"
	if sent != nil {
		from = sent.Method
	}
	l.mu.Lock()
	l.seen = append(l.seen, from+" → "+what)
	l.mu.Unlock()
}

func (l *messageLog) hasPrefix(prefix string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range l.seen {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}

func (l *messageLog) has(want string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range l.seen {
		if s == want {
			return true
		}
	}
	return false
}

// TestMessageObserver: every message a transport receives reaches an
// Observer that is also a MessageObserver, with the request it came back
// on: each event of an SSE answer, and on stdio the messages outside any
// exchange with no request.
func TestMessageObserver(t *testing.T) {
	t.Run("http sse", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,\"progress\":1}}\n\n"+
				"data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"tools\":[]}}\n\n")
		}))
		t.Cleanup(srv.Close)
		log := &messageLog{}
		tr := &HTTP{URL: srv.URL, Observer: log}
		t.Cleanup(func() { tr.Close() })
		if _, err := tr.Exchange(context.Background(), &Outgoing{ID: []byte("1"), Method: "tools/list", Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)}); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"tools/list → notifications/progress", "tools/list → response 1"} {
			if !log.has(want) {
				t.Errorf("no %q in %v", want, log.seen)
			}
		}
	})
	t.Run("stdio", func(t *testing.T) {
		log := &messageLog{}
		target := fakeTarget(t, "orphan")
		target.Command.Observer = log
		c, err := Connect(context.Background(), target, Options{Timeout: time.Second, StartTimeout: 20 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		_, _ = c.ListTools(ctx) // answered by an orphan only
		waitFor(t, func() bool { return log.hasPrefix("server/discover → response") })
		waitFor(t, func() bool { return log.hasPrefix("(none) → response") })
	})
}

// TestNameHeader: Mcp-Name mirrors params.name, params.uri and, for the
// tasks extension's methods, params.taskId.
func TestNameHeader(t *testing.T) {
	c := &Client{era: EraModern, version: LatestVersion, paramHeaders: &paramHeaderCache{m: map[string][]paramHeader{}}}
	for method, params := range map[string]map[string]any{
		"tools/call":     {"name": "n"},
		"prompts/get":    {"name": "n"},
		"resources/read": {"uri": "n"},
		"tasks/get":      {"taskId": "n"},
		"tasks/update":   {"taskId": "n", "inputResponses": map[string]any{}},
		"tasks/cancel":   {"taskId": "n"},
	} {
		if got := c.NewCall(method, params).Header.Get(HeaderName); got != "n" {
			t.Errorf("%s: Mcp-Name %q", method, got)
		}
	}
	if got := c.NewCall("tools/list", nil).Header.Get(HeaderName); got != "" {
		t.Errorf("tools/list: Mcp-Name %q", got)
	}
}
