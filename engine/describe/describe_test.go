package describe

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/mcp-eval/mcp-eval/mcp"
)

// The lists are walked at once: a server that holds each list request
// until all three are in flight answers them; walked in turn, the first
// would wait its whole timeout and fail. (Structure, not time: the
// timeout is generous, and the server answers as soon as the three met.)
func TestDescribeListsAtOnce(t *testing.T) {
	var mu sync.Mutex
	inFlight := map[string]bool{}
	met := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		json.Unmarshal(body, &req)
		w.Header().Set("Content-Type", "application/json")
		member := map[string]string{"tools/list": "tools", "prompts/list": "prompts", "resources/templates/list": "resourceTemplates"}[req.Method]
		switch {
		case req.Method == "server/discover":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{},"prompts":{},"resources":{}},"ttlMs":0,"cacheScope":"public"}}`, req.ID)
			return
		case member == "":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no"}}`, req.ID)
			return
		}
		mu.Lock()
		inFlight[req.Method] = true
		if len(inFlight) == 3 {
			close(met)
		}
		mu.Unlock()
		select {
		case <-met:
		case <-r.Context().Done():
			return
		}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","ttlMs":0,"cacheScope":"public","%s":[]}}`, req.ID, member)
	}))
	defer srv.Close()
	c, err := mcp.Connect(context.Background(), &mcp.HTTPTarget{URL: srv.URL}, mcp.Options{Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s := Describe(context.Background(), c)
	if s.ToolsErr != nil {
		t.Fatalf("tools/list: %v (the lists were not in flight at once)", s.ToolsErr)
	}
}
