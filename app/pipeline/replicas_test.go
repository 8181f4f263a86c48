package pipeline_test

import (
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mcp-eval/mcp-eval/app/apptest"
	"github.com/mcp-eval/mcp-eval/internal/mcptest"
	"github.com/mcp-eval/mcp-eval/internal/oauth/oauthtest"
	"github.com/mcp-eval/mcp-eval/internal/redact/redacttest"
	"github.com/mcp-eval/mcp-eval/report"
)

// TestReplicasWithOAuth: two protected replicas of one fixture, each a
// resource of its own behind the same authorization server, given as
// --server-url twice with nothing but a client id and secret. The replica
// is reached with a token requested for its own resource (RFC 8707), never
// with the first server's, and surface/replicas compares the two; no
// token reaches an output.
func TestReplicasWithOAuth(t *testing.T) {
	as := oauthtest.NewAuthServer(t, oauthtest.Options{})
	var mu sync.Mutex
	seen := map[string][]string{} // resource id → the tokens it was sent
	serve := func() *oauthtest.Resource {
		h := mcptest.NewHandler(mcptest.Options{})
		res := &oauthtest.Resource{AS: as, Path: "/mcp"}
		res.Next = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			seen[res.ID] = append(seen[res.ID], strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
			mu.Unlock()
			h.ServeHTTP(w, r)
		})
		res.Serve(t)
		return res
	}
	first, replica := serve(), serve()
	as.AddClient(oauthtest.Client{ID: "mcp-eval-ci", Secret: "cl1ent-secret-value", Audiences: []string{first.ID, replica.ID}})
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := runCommand(t, apptest.Env(map[string]string{"MCP_EVAL_CLIENT_SECRET": "cl1ent-secret-value"}),
		"conformance", "--server-url", first.URL(), "--server-url", replica.URL(), "--oauth-client-id", "mcp-eval-ci",
		"--oauth-client-secret", "$MCP_EVAL_CLIENT_SECRET", "--checks", "surface", "--runs", "1", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	r := apptest.LoadReport(t, filepath.Join(out, "report.json"))
	var got report.Check
	for _, c := range r.Checks {
		if c.ID == "surface/replicas" {
			got = c
		}
	}
	if got.Status != report.StatusPass || !strings.Contains(got.Info, "1 replicas list the same") {
		t.Fatalf("surface/replicas: %s %q %q", got.Status, got.Message, got.Info)
	}
	var resources []string
	for _, q := range as.Requests() {
		resources = append(resources, q.Get("resource"))
	}
	if !slices.Contains(resources, replica.ID) {
		t.Errorf("no token was requested for the replica %s (token requests for %v)", replica.ID, resources)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen[replica.ID]) == 0 {
		t.Fatal("the replica served no request")
	}
	for _, tok := range seen[replica.ID] {
		if g, ok := as.Lookup(tok); !ok || !slices.Contains(g.Audience, replica.ID) || slices.Contains(g.Audience, first.ID) {
			t.Errorf("the replica was sent a token for %v, want one for %s only", g.Audience, replica.ID)
		}
	}
	for name, text := range apptest.Sinks(out, stdout, stderr) {
		for _, tok := range as.Issued() {
			for _, sp := range redacttest.Spellings(tok) {
				if strings.Contains(text, sp) {
					t.Errorf("%s holds an access token", name)
				}
			}
		}
	}
}
