package mcp

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// An error without an id (absent or null) answers the request it came back
// on — JSON-RPC 2.0 §5's id null, the Streamable HTTP rules' id-less 403 —
// and is no orphan; another id is one, in a JSON body or an SSE event.
func TestHTTPIdlessErrorIsNoOrphan(t *testing.T) {
	for _, tt := range []struct {
		name, contentType, body string
		status                  int
		orphans                 int
	}{
		{"absent id, 403", "application/json", `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Forbidden: invalid Origin"}}`, 403, 0},
		{"null id, 400", "application/json", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`, 400, 0},
		{"null id on SSE", "text/event-stream", "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,\"message\":\"bad\"}}\n\n", 200, 0},
		{"null id result", "application/json", `{"jsonrpc":"2.0","id":null,"result":{}}`, 200, 1},
		{"other id error", "application/json", `{"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"bad"}}`, 400, 1},
		{"other id on SSE", "text/event-stream", "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n\n", 200, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tt.contentType)
				w.WriteHeader(tt.status)
				io.WriteString(w, tt.body)
			}))
			defer srv.Close()
			tr := &HTTP{URL: srv.URL}
			_, _ = tr.Exchange(context.Background(), &Outgoing{ID: []byte("1"), Method: "tools/list", Body: []byte(`{}`)})
			if n := tr.AnomalyCounts()[AnomalyOrphan]; n != tt.orphans {
				t.Errorf("%d orphans, want %d: %+v", n, tt.orphans, tr.Anomalies())
			}
		})
	}
}
