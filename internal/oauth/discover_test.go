package oauth_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-eval/mcp-eval/internal/oauth"
	"github.com/mcp-eval/mcp-eval/internal/oauth/oauthtest"
)

// docServer serves fixed documents by path and 404 for the rest,
// recording the paths asked for.
func docServer(t *testing.T, docs map[string]string) (*httptest.Server, *[]string) {
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked = append(asked, r.URL.RequestURI())
		d, ok := docs[r.URL.RequestURI()]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(strings.ReplaceAll(d, "BASE", "http://"+r.Host)))
	}))
	t.Cleanup(srv.Close)
	return srv, &asked
}

func TestDiscoverResourceOrder(t *testing.T) {
	const doc = `{"resource":"BASE/mcp","authorization_servers":["BASE"]}`
	tests := []struct {
		name      string
		docs      map[string]string
		challenge string // resource_metadata path, "" for none
		wantAsked []string
		found     string
	}{
		{"from the challenge", map[string]string{"/custom/prm": doc}, "/custom/prm", []string{"/custom/prm"}, "/custom/prm"},
		{"path-inserted first", map[string]string{"/.well-known/oauth-protected-resource/mcp": doc, "/.well-known/oauth-protected-resource": doc}, "",
			[]string{"/.well-known/oauth-protected-resource/mcp"}, "/.well-known/oauth-protected-resource/mcp"},
		{"then the root", map[string]string{"/.well-known/oauth-protected-resource": doc}, "",
			[]string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"}, "/.well-known/oauth-protected-resource"},
		{"a broken challenge link falls back to the well-known URIs", map[string]string{"/.well-known/oauth-protected-resource": doc}, "/gone",
			[]string{"/gone", "/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"}, "/.well-known/oauth-protected-resource"},
		{"an HTML page or a document without resource is no document", map[string]string{"/.well-known/oauth-protected-resource/mcp": `<html>`, "/.well-known/oauth-protected-resource": `{"authorization_servers":[]}`}, "",
			[]string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, asked := docServer(t, tt.docs)
			var ch *oauth.Challenge
			if tt.challenge != "" {
				ch = &oauth.Challenge{Scheme: "Bearer", Params: map[string]string{"resource_metadata": srv.URL + tt.challenge}}
			}
			rd, err := (&oauth.Fetcher{}).DiscoverResource(context.Background(), srv.URL+"/mcp", ch)
			if strings.Join(*asked, " ") != strings.Join(tt.wantAsked, " ") {
				t.Errorf("asked %q, want %q", *asked, tt.wantAsked)
			}
			if tt.found == "" {
				var de *oauth.DiscoveryError
				if !errors.As(err, &de) || len(de.Tried) != len(tt.wantAsked) {
					t.Fatalf("err = %v, want a DiscoveryError with %d attempts", err, len(tt.wantAsked))
				}
				for _, p := range tt.wantAsked {
					if !strings.Contains(err.Error(), srv.URL+p) {
						t.Errorf("the error does not name %s: %v", p, err)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if rd.URL != srv.URL+tt.found || rd.Metadata.Resource != srv.URL+"/mcp" || len(rd.Tried) != len(tt.wantAsked) || string(rd.Raw) == "" {
				t.Errorf("found %+v", rd)
			}
			if rd.FromChallenge != (tt.challenge != "" && tt.found == tt.challenge) {
				t.Errorf("FromChallenge = %v", rd.FromChallenge)
			}
		})
	}
}

func TestDiscoverAuthServer(t *testing.T) {
	t.Run("OpenID only, as Hydra serves it", func(t *testing.T) {
		as := oauthtest.NewAuthServer(t, oauthtest.Options{OpenIDOnly: true})
		sd, err := (&oauth.Fetcher{}).DiscoverAuthServer(context.Background(), as.Issuer)
		if err != nil {
			t.Fatal(err)
		}
		if !sd.OpenID || sd.Metadata.TokenEndpoint != as.TokenEndpoint() || len(sd.Tried) != 2 || sd.Tried[0].Status != 404 {
			t.Errorf("got %+v", sd)
		}
	})
	t.Run("an issuer with a path", func(t *testing.T) {
		as := oauthtest.NewAuthServer(t, oauthtest.Options{Path: "/tenant1"})
		sd, err := (&oauth.Fetcher{}).DiscoverAuthServer(context.Background(), as.Issuer)
		if err != nil {
			t.Fatal(err)
		}
		if sd.URL != as.URL+"/.well-known/oauth-authorization-server/tenant1" || sd.OpenID {
			t.Errorf("found at %s", sd.URL)
		}
	})
	t.Run("issuer mismatch is never used", func(t *testing.T) {
		// authorization-server-discovery.mdx: "a document fetched from
		// https://attacker.example/.well-known/oauth-authorization-server
		// that contains "issuer": "https://honest.example" MUST be rejected."
		srv, _ := docServer(t, map[string]string{
			"/.well-known/oauth-authorization-server": `{"issuer":"https://honest.example","token_endpoint":"https://honest.example/token"}`,
			"/.well-known/openid-configuration":       `{"issuer":"https://honest.example","token_endpoint":"https://honest.example/token"}`,
		})
		_, err := (&oauth.Fetcher{}).DiscoverAuthServer(context.Background(), srv.URL)
		var de *oauth.DiscoveryError
		if !errors.As(err, &de) {
			t.Fatalf("err = %v", err)
		}
		if a, ok := de.IssuerMismatch(); !ok || !strings.Contains(a.Err, `"https://honest.example"`) {
			t.Errorf("IssuerMismatch = %+v, %v", a, ok)
		}
		if !strings.Contains(err.Error(), "issuer mismatch") || !strings.Contains(err.Error(), srv.URL+"/.well-known/openid-configuration") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("wrong member types name the member", func(t *testing.T) {
		srv, _ := docServer(t, map[string]string{"/.well-known/oauth-authorization-server": `{"issuer":"BASE","token_endpoint":7}`})
		_, err := (&oauth.Fetcher{}).DiscoverAuthServer(context.Background(), srv.URL)
		if err == nil || !strings.Contains(err.Error(), "token_endpoint") {
			t.Errorf("err = %v", err)
		}
	})
}

func TestFetcherBounds(t *testing.T) {
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	}))
	defer slow.Close()
	big := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"issuer":"` + strings.Repeat("x", 4096) + `"}`))
	}))
	defer big.Close()
	redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, big.URL, http.StatusFound)
	}))
	defer redirect.Close()
	f := &oauth.Fetcher{Timeout: 200 * time.Millisecond, MaxBytes: 1024}
	start := time.Now()
	_, err := f.DiscoverAuthServer(context.Background(), slow.URL)
	if err == nil || !strings.Contains(err.Error(), "no answer within 200ms") || time.Since(start) > 3*time.Second {
		t.Errorf("slow: %v after %v", err, time.Since(start))
	}
	if _, err := f.DiscoverAuthServer(context.Background(), big.URL); err == nil || !strings.Contains(err.Error(), "size limit") {
		t.Errorf("big: %v", err)
	}
	if _, err := f.DiscoverAuthServer(context.Background(), redirect.URL); err == nil || !strings.Contains(err.Error(), "HTTP 302") {
		t.Errorf("redirect: %v", err)
	}
}

// TestDiscoverSilentAuthServer: an authorization server that accepts
// connections and never answers is asked once, not at each well-known URI
// (each would cost a timeout), and the error says so.
func TestDiscoverSilentAuthServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var accepted atomic.Int32
	var conns []net.Conn
	var mu sync.Mutex
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			mu.Lock()
			conns = append(conns, c) // held open, never answered
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	})
	issuer := "http://" + ln.Addr().String() + "/tenant"
	_, err = (&oauth.Fetcher{Timeout: 300 * time.Millisecond}).DiscoverAuthServer(context.Background(), issuer)
	if err == nil || !strings.Contains(err.Error(), "no answer within 300ms (the other 2 well-known URIs of this origin not tried)") {
		t.Errorf("err = %v", err)
	}
	if n := accepted.Load(); n != 1 {
		t.Errorf("%d connections to the silent server, want 1", n)
	}
}
