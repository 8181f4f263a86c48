package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-eval/mcp-eval/internal/mcptest"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/report"
)

// scopedServer is a protected resource in front of the (unprotected)
// fixture whose every request needs the scopes a, b and c, while its 401
// challenge names only a (an incomplete advertisement, which the spec
// permits). How it refuses a token that lacks some is its mode:
// "complete" names every missing scope in one challenge, "incremental"
// only the first missing one (each re-authorization meets another 403),
// "split" one Bearer challenge per missing scope.
type scopedServer struct {
	mode string

	mu     sync.Mutex
	tokens map[string][]string // token → its scopes
	n      int
}

var scopedRequired = []string{"a", "b", "c"}

// Token issues a token with the requested scopes (the server's
// authorization server: any subset of scopes_supported).
func (s *scopedServer) Token(_ context.Context, req TokenRequest) (*Token, error) {
	scopes := strings.Fields(req.Scope)
	if req.NoScope || req.Scope == "" {
		scopes = []string{"a"}
	}
	for _, sc := range scopes {
		if !slices.Contains(scopedRequired, sc) {
			return nil, fmt.Errorf("invalid_scope: %s", sc)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	tok := fmt.Sprintf("scoped-token-%04d-0123456789", s.n)
	if s.tokens == nil {
		s.tokens = map[string][]string{}
	}
	s.tokens[tok] = scopes
	return &Token{AccessToken: tok, ExpiresIn: time.Hour, Scope: strings.Join(scopes, " ")}, nil
}

func (s *scopedServer) Current(ctx context.Context, _ string) (string, error) {
	t, err := s.Token(ctx, TokenRequest{Scope: "a b c"})
	if err != nil {
		return "", err
	}
	return t.AccessToken, nil
}

func (s *scopedServer) handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := "http://" + r.Host
		prm := origin + "/.well-known/oauth-protected-resource/mcp"
		if r.URL.Path == "/.well-known/oauth-protected-resource/mcp" {
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(map[string]any{"resource": origin + "/mcp",
				"authorization_servers": []string{origin}, "scopes_supported": scopedRequired})
			return
		}
		if r.URL.Path != "/mcp" {
			next.ServeHTTP(w, r)
			return
		}
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		s.mu.Lock()
		have, known := s.tokens[tok]
		s.mu.Unlock()
		if !ok || !known {
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer resource_metadata=%q, scope="a"`, prm))
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		var missing []string
		for _, sc := range scopedRequired {
			if !slices.Contains(have, sc) {
				missing = append(missing, sc)
			}
		}
		if len(missing) == 0 {
			next.ServeHTTP(w, r)
			return
		}
		switch s.mode {
		case "incremental":
			missing = missing[:1]
			fallthrough
		case "complete":
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer error="insufficient_scope", scope=%q, resource_metadata=%q`, strings.Join(missing, " "), prm))
		case "split":
			for _, sc := range missing {
				w.Header().Add("WWW-Authenticate", fmt.Sprintf(`Bearer error="insufficient_scope", scope=%q, resource_metadata=%q`, sc, prm))
			}
		}
		w.WriteHeader(http.StatusForbidden)
	})
}

// TestSingleChallenge: the under-scoped probe's token has b (the first
// scope of scopes_supported outside the challenge's a) and lacks a and c.
// A server that names both in one 403 passes (the re-authorized token, b
// a c, is served); one that names a first and c only after the client
// re-authorized fails, naming both challenges; one that sends a Bearer
// challenge per scope fails; auth/insufficient-scope passes on all three.
func TestSingleChallenge(t *testing.T) {
	t.Parallel()
	for mode, want := range map[string]struct {
		status  report.Status
		message string
	}{
		"complete":    {report.StatusPass, ""},
		"incremental": {report.StatusFail, `was refused for scope again, now scope="c"`},
		"split":       {report.StatusFail, "carries 2 Bearer challenges"},
	} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			s := &scopedServer{mode: mode}
			hs := httptest.NewServer(s.handler(mcptest.NewHandler(mcptest.Options{})))
			t.Cleanup(hs.Close)
			main, err := s.Current(context.Background(), "")
			if err != nil {
				t.Fatal(err)
			}
			c, err := mcp.Connect(context.Background(), &mcp.HTTPTarget{URL: hs.URL + "/mcp", Header: http.Header{"Authorization": {"Bearer " + main}}}, mcp.Options{Timeout: 4 * time.Second})
			if err != nil {
				t.Fatalf("Connect: %v", err)
			}
			t.Cleanup(func() { c.Close() })
			res, err := Run(context.Background(), c, Options{Runs: 1, Only: []string{"auth/insufficient-scope", "auth/single-challenge"},
				Auth: &Auth{Tokens: s, Grant: "client_credentials"}})
			if err != nil {
				t.Fatal(err)
			}
			got := byID(res)
			if ins := got["auth/insufficient-scope"]; ins.Status != report.StatusPass {
				t.Errorf("auth/insufficient-scope: %s (%s), want pass", ins.Status, ins.Message)
			}
			sc := got["auth/single-challenge"]
			if sc.Status != want.status || !strings.Contains(sc.Message, want.message) {
				t.Errorf("auth/single-challenge: %s (%s), want %s with %q", sc.Status, sc.Message, want.status, want.message)
			}
			if want.status == report.StatusFail && strings.Contains(fmt.Sprint(sc.Evidence), "scoped-token-") {
				t.Errorf("the evidence shows a token: %v", sc.Evidence)
			}
		})
	}
}
