package conformance

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcp-eval/mcp-eval/engine/wire"
	"github.com/mcp-eval/mcp-eval/internal/mcptest"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/report"
)

// shadowTTL rewrites every JSON answer that carries ttlMs to give it twice,
// first as 1e400 (no integer a client can hold) and then as it was.
func shadowTTL(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		body := rec.Body.Bytes()
		if strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
			body = bytes.Replace(body, []byte(`"ttlMs":`), []byte(`"ttlMs":1e400,"ttlMs":`), 1)
		}
		for k, vs := range rec.Header() {
			w.Header()[k] = vs
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(rec.Code)
		w.Write(body)
	})
}

// TestShadowedValueIsJudged: an invalid ttlMs hidden by a later valid one
// (the case that passed with exit 0) fails caching/tools-list, which says
// which reading failed, and jsonrpc/unique-member-names names the member.
func TestShadowedValueIsJudged(t *testing.T) {
	hs := httptest.NewServer(shadowTTL(mcptest.NewHandler(mcptest.Options{})))
	t.Cleanup(hs.Close)
	target := &mcp.HTTPTarget{URL: hs.URL + "/mcp"}
	rec := wire.NewRecorder()
	observe(target, rec)
	c, err := mcp.Connect(context.Background(), target, mcp.Options{Timeout: 4 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	res, err := Run(context.Background(), c, Options{Runs: 1, Wire: rec, Only: []string{"caching/tools-list", uniqueNamesID}})
	if err != nil {
		t.Fatal(err)
	}
	got := byID(res)
	if c := got["caching/tools-list"]; c.Status != report.StatusFail || !strings.Contains(c.Message, "1e400") || !strings.Contains(c.Message, "first value") {
		t.Errorf("caching/tools-list: %s %q", c.Status, c.Message)
	}
	if c := got[uniqueNamesID]; c.Status != report.StatusFail || !strings.Contains(c.Message, `/result: "ttlMs" twice, first 1e400`) {
		t.Errorf("%s: %s %q", uniqueNamesID, c.Status, c.Message)
	}
}
