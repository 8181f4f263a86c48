package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// sseHandler answers every POST with the given raw SSE stream.
func rawHandler(contentType, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", contentType)
		io.WriteString(w, body)
	}
}

func exchange(t *testing.T, h http.Handler, maxBytes int64, timeout time.Duration) (*Exchange, error) {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	tr := &HTTP{URL: srv.URL, MaxBytes: maxBytes}
	t.Cleanup(func() { tr.Close() })
	ctx, cancel := WithTimeout(context.Background(), timeout)
	defer cancel()
	return tr.Exchange(ctx, &Outgoing{ID: []byte("1"), Method: "tools/list", Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)})
}

func TestHTTPAnswers(t *testing.T) {
	tests := []struct {
		name      string
		ct, body  string
		wantID    string // id of the response, "" for none
		wantMsgs  int
		wantErr   error
		wantBadOK bool // an Invalid entry is expected
	}{
		{name: "json", ct: "application/json", body: `{"jsonrpc":"2.0","id":1,"result":{}}`, wantID: "1", wantMsgs: 1},
		{name: "json with charset", ct: "application/json; charset=utf-8", body: `{"jsonrpc":"2.0","id":1,"result":{}}`, wantID: "1", wantMsgs: 1},
		{name: "sse", ct: "text/event-stream", body: "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n", wantID: "1", wantMsgs: 1},
		{name: "sse comments and notifications first", ct: "text/event-stream",
			body: ": keep-alive\n\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\n: ping\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n", wantID: "1", wantMsgs: 2},
		{name: "sse multi-line data and CRLF", ct: "text/event-stream",
			body: "data: {\"jsonrpc\":\"2.0\",\r\ndata: \"id\":1,\"result\":{}}\r\n\r\n", wantID: "1", wantMsgs: 1},
		{name: "sse bare CR", ct: "text/event-stream", body: "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\r\r", wantID: "1", wantMsgs: 1},
		{name: "sse final event without blank line", ct: "text/event-stream", body: "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}", wantID: "1", wantMsgs: 1},
		{name: "sse wrong id then right id", ct: "text/event-stream",
			body: "data: {\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{}}\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n", wantID: "1", wantMsgs: 2},
		{name: "sse only wrong id", ct: "text/event-stream", body: "data: {\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{}}\n\n", wantID: "9", wantMsgs: 1},
		{name: "sse ends without response", ct: "text/event-stream", body: ": nothing\n\n", wantErr: ErrClosed},
		{name: "sse garbage event", ct: "text/event-stream", body: "data: not json\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n", wantID: "1", wantMsgs: 1, wantBadOK: true},
		{name: "non-json body", ct: "text/plain", body: "Bad Request", wantBadOK: true},
		{name: "empty body", ct: "", body: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x, err := exchange(t, rawHandler(tt.ct, tt.body), 0, 5*time.Second)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			gotID := ""
			if x.Response != nil {
				gotID = string(x.Response.ID)
			}
			if gotID != tt.wantID {
				t.Errorf("response id %q, want %q", gotID, tt.wantID)
			}
			if len(x.Messages) != tt.wantMsgs {
				t.Errorf("%d messages, want %d", len(x.Messages), tt.wantMsgs)
			}
			if (len(x.Invalid) > 0) != tt.wantBadOK {
				t.Errorf("invalid frames %q", x.Invalid)
			}
		})
	}
}

func TestHTTPBoundsBadServers(t *testing.T) {
	t.Run("endless SSE stream is cut at the size limit", func(t *testing.T) {
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			chunk := "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"data\":\"" + strings.Repeat("x", 8000) + "\"}}\n\n"
			for r.Context().Err() == nil {
				if _, err := io.WriteString(w, chunk); err != nil {
					return
				}
			}
		})
		start := time.Now()
		_, err := exchange(t, h, 1<<20, 10*time.Second)
		if !errors.Is(err, ErrTooLarge) {
			t.Fatalf("err = %v, want ErrTooLarge", err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("took %v", d)
		}
	})
	t.Run("huge JSON body", func(t *testing.T) {
		h := rawHandler("application/json", `{"jsonrpc":"2.0","id":1,"result":{"x":"`+strings.Repeat("a", 3<<20)+`"}}`)
		if _, err := exchange(t, h, 1<<20, 10*time.Second); !errors.Is(err, ErrTooLarge) {
			t.Fatalf("err = %v, want ErrTooLarge", err)
		}
	})
	t.Run("a single endless SSE line", func(t *testing.T) {
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "data: ")
			for r.Context().Err() == nil {
				if _, err := io.WriteString(w, strings.Repeat("y", 64<<10)); err != nil {
					return
				}
			}
		})
		if _, err := exchange(t, h, 1<<20, 10*time.Second); !errors.Is(err, ErrTooLarge) {
			t.Fatalf("err = %v, want ErrTooLarge", err)
		}
	})
	t.Run("hang becomes a timeout", func(t *testing.T) {
		release := make(chan struct{})
		defer close(release)
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-release:
			case <-r.Context().Done():
			}
		})
		start := time.Now()
		_, err := exchange(t, h, 0, 300*time.Millisecond)
		var te *TimeoutError
		if !errors.As(err, &te) {
			t.Fatalf("err = %v, want a TimeoutError", err)
		}
		if !strings.Contains(err.Error(), "300ms") {
			t.Errorf("timeout error %q does not say how long it waited", err)
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("took %v", d)
		}
	})
	t.Run("refused connection is unreachable", func(t *testing.T) {
		srv := httptest.NewServer(http.NotFoundHandler())
		url := srv.URL
		srv.Close()
		tr := &HTTP{URL: url}
		_, err := tr.Exchange(context.Background(), &Outgoing{Body: []byte(`{}`)})
		if !errors.Is(err, ErrUnreachable) {
			t.Fatalf("err = %v, want ErrUnreachable", err)
		}
	})
}

func TestHTTPHeaders(t *testing.T) {
	var got http.Header
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	})
	srv := httptest.NewServer(h)
	defer srv.Close()
	tr := &HTTP{URL: srv.URL, Header: http.Header{"Authorization": {"Bearer s3cret"}}}
	_, err := tr.Exchange(context.Background(), &Outgoing{ID: []byte("1"), Body: []byte(`{}`),
		Header: http.Header{"Mcp-Method": {"tools/list"}}, Omit: []string{"Authorization"}})
	if err != nil {
		t.Fatal(err)
	}
	if got.Get("Accept") != "application/json, text/event-stream" {
		t.Errorf("Accept = %q; the client MUST list both media types", got.Get("Accept"))
	}
	if got.Get("Mcp-Method") != "tools/list" || got.Get("Authorization") != "" {
		t.Errorf("headers %v", got)
	}
}

// TestStartRequestHook: the traceparent the hook returns is the one sent in
// _meta, and the hook learns how the exchange ended.
func TestStartRequestHook(t *testing.T) {
	var sent string
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     any `json:"id"`
			Method string
			Params struct {
				Meta map[string]any `json:"_meta"`
			} `json:"params"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		if req.Method == "tools/call" {
			sent, _ = req.Params.Meta["traceparent"].(string)
		}
		w.Header().Set("Content-Type", "application/json")
		id, _ := json.Marshal(req.ID)
		if req.Method == "tools/call" {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32602,"message":"unknown tool"}}`, id)
			return
		}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{},"ttlMs":0,"cacheScope":"public"}}`, id)
	})
	srv := httptest.NewServer(h)
	defer srv.Close()
	const tp = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	var ended []error
	c, err := Connect(context.Background(), &HTTPTarget{URL: srv.URL}, Options{
		StartRequest: func(_ context.Context, method, name string) (string, func(error)) {
			if method != "tools/call" {
				return "", nil
			}
			return tp, func(err error) { ended = append(ended, err) }
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.CallTool(context.Background(), "nope", nil, nil)
	if sent != tp {
		t.Errorf("traceparent sent %q, want the hook's %q", sent, tp)
	}
	var rpcErr *Error
	if len(ended) != 1 || !errors.As(ended[0], &rpcErr) || !errors.As(err, &rpcErr) {
		t.Errorf("end called with %v (call err %v); want the JSON-RPC error once", ended, err)
	}
}
