package oauthtest

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
)

// Resource protects an MCP endpoint with bearer tokens from an
// AuthServer (RFC 6750, RFC 9728): a request without a valid token for
// ID gets 401 with a Bearer challenge naming the metadata document, which
// it serves at the path-inserted well-known URI (and at the root unless
// NoRoot).
type Resource struct {
	AS *AuthServer
	// ID is the resource identifier tokens must carry in their audience.
	ID string
	// Path is the MCP endpoint's path ("/mcp").
	Path string
	// Next serves authorized requests.
	Next http.Handler
	// Scope, when set, is required of every token (403
	// insufficient_scope otherwise) and sent in the 401 challenge.
	Scope string
	// NoChallengeURL leaves resource_metadata out of the challenge, so a
	// client must find the well-known URI itself.
	NoChallengeURL bool
	// MetadataResource, if set, is served as the document's resource in
	// place of ID (a misconfigured server).
	MetadataResource string
	// Refusals counts the 401 answers sent.
	Refusals atomic.Int64
	// Base is the server's origin, set by Serve.
	Base string
}

// Serve starts res on loopback (closed when the test ends), sets Base,
// and ID to the endpoint's URL when empty, and registers ID with the
// authorization server as a resource it issues tokens for.
func (res *Resource) Serve(t testing.TB) *httptest.Server {
	srv := httptest.NewServer(res.Handler())
	t.Cleanup(srv.Close)
	res.Base = srv.URL
	if res.ID == "" {
		res.ID = srv.URL + res.Path
	}
	res.AS.AddResource(res.ID)
	return srv
}

// URL is the MCP endpoint's URL.
func (res *Resource) URL() string { return res.Base + res.Path }

// Handler returns the resource server's handler.
func (res *Resource) Handler() http.Handler {
	mux := http.NewServeMux()
	doc := func(w http.ResponseWriter, r *http.Request) {
		id := res.ID
		if res.MetadataResource != "" {
			id = res.MetadataResource
		}
		md := map[string]any{"resource": id, "authorization_servers": []string{res.AS.Issuer}, "bearer_methods_supported": []string{"header"}}
		if res.Scope != "" {
			md["scopes_supported"] = strings.Fields(res.Scope)
		}
		writeJSON(w, http.StatusOK, md)
	}
	mux.HandleFunc("GET /.well-known/oauth-protected-resource"+res.Path, doc)
	mux.Handle(res.Path, http.HandlerFunc(res.serve))
	return mux
}

func (res *Resource) challenge(w http.ResponseWriter, status int, code, desc string) {
	c := `Bearer realm="mcp"`
	if !res.NoChallengeURL {
		c += `, resource_metadata="` + res.Base + "/.well-known/oauth-protected-resource" + res.Path + `"`
	}
	if res.Scope != "" {
		c += `, scope="` + res.Scope + `"`
	}
	if code != "" {
		c += `, error="` + code + `", error_description="` + desc + `"`
	}
	w.Header().Set("WWW-Authenticate", c)
	if status == http.StatusUnauthorized {
		res.Refusals.Add(1)
	}
	writeJSON(w, status, map[string]string{"error": code})
}

func (res *Resource) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Query().Has("access_token") {
		res.challenge(w, http.StatusBadRequest, "invalid_request", "tokens in the query string are refused")
		return
	}
	auth := r.Header.Get("Authorization")
	scheme, tok, _ := strings.Cut(auth, " ")
	if auth == "" || !strings.EqualFold(scheme, "Bearer") {
		res.challenge(w, http.StatusUnauthorized, "", "")
		return
	}
	g, ok := res.AS.Lookup(strings.TrimSpace(tok))
	switch {
	case !ok:
		res.challenge(w, http.StatusUnauthorized, "invalid_token", "unknown token")
		return
	case !res.AS.now().Before(g.ExpiresAt):
		res.challenge(w, http.StatusUnauthorized, "invalid_token", "the token has expired")
		return
	case !slices.Contains(g.Audience, res.ID):
		res.challenge(w, http.StatusUnauthorized, "invalid_token", "the token is not for this resource")
		return
	}
	for _, s := range strings.Fields(res.Scope) {
		if !slices.Contains(strings.Fields(g.Scope), s) {
			res.challenge(w, http.StatusForbidden, "insufficient_scope", "the token lacks "+s)
			return
		}
	}
	res.Next.ServeHTTP(w, r)
}
