package conformance

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcp-eval/mcp-eval/internal/mcptest"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/report"
)

// TestNotAllowedAfterHang: once the client has stopped sending to a hung
// server, the GET and DELETE checks say so (an error naming the
// unresponsive server), not "answered no answer on stdout" as a failure:
// their verdict and wording come from what the transport saw.
func TestNotAllowedAfterHang(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		b, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(b, &m)
		if m.Method != "server/discover" {
			<-r.Context().Done()
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{},"ttlMs":0,"cacheScope":"public"}}`)
	}))
	defer srv.Close()
	ctx := context.Background()
	c, err := mcp.Connect(ctx, &mcp.HTTPTarget{URL: srv.URL}, mcp.Options{Timeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for range 3 {
		_, _ = c.ListTools(ctx)
	}
	if c.Unresponsive() == nil {
		t.Fatal("the breaker did not trip")
	}
	res, err := Run(ctx, c, Options{Runs: 1, Only: []string{"http/get-not-allowed", "http/delete-not-allowed"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, ch := range res.Checks {
		if ch.Status != report.StatusError || !strings.Contains(ch.Message, "unresponsive") || strings.Contains(ch.Message, "stdout") {
			t.Errorf("%s: %s %q, want an error naming the unresponsive server", ch.ID, ch.Status, ch.Message)
		}
	}
}

// TestNotAllowedOnlyThisRevision: the 405 rule binds a server that serves
// only 2026-07-28 (streamable-http.mdx §Earlier Streamable HTTP
// Revisions); one that lists an earlier revision in supportedVersions is
// skipped with that reason, whatever it answers to GET and DELETE (issue
// 21: mcp-go and mcp-proxy failed it).
func TestNotAllowedOnlyThisRevision(t *testing.T) {
	only := Options{Only: []string{"http/get-not-allowed", "http/delete-not-allowed"}}
	fo := mcptest.Options{ListLegacyVersion: true, Defects: mcptest.ParseDefects("http/get-not-allowed,http/delete-not-allowed")}
	res, _ := evaluateFixture(t, "http", fo, only, 0)
	for _, ch := range res.Checks {
		if ch.Status != report.StatusSkip || !strings.Contains(ch.Message, "also serves 2025-11-25") {
			t.Errorf("%s: %s %q, want skipped for a dual-era server", ch.ID, ch.Status, ch.Message)
		}
	}
	// A modern-only server is judged, with the same defects.
	fo.ListLegacyVersion = false
	res, _ = evaluateFixture(t, "http", fo, only, 0)
	for _, ch := range res.Checks {
		if ch.Status != report.StatusFail {
			t.Errorf("%s: %s %q on the modern-only fixture, want fail", ch.ID, ch.Status, ch.Message)
		}
	}
}
