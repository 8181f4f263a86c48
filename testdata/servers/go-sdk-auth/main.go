// Command go-sdk-auth is an MCP server protected the way the official Go SDK
// (github.com/modelcontextprotocol/go-sdk, the version in go.mod) documents
// it, for the e2e auth corpus: auth.RequireBearerToken in front of the
// stateless StreamableHTTPHandler, and the RFC 9728 protected-resource
// metadata served by auth.ProtectedResourceMetadataHandler at the
// path-inserted well-known URI. The SDK ships no token verifier; this one
// checks a JWT access token against the authorization server's JWKS
// (signature, iss, exp, and aud = this server's resource URI).
//
//	go-sdk-auth -http 127.0.0.1:PORT -issuer http://127.0.0.1:AS_PORT [-scope 'mcp:tools'] [-no-audience | -audience-host-only] [-no-signature]
//
// The endpoint is http://ADDR/mcp, which is also the resource identifier.
// The negative corpus: -no-audience turns the audience check off (a server
// that accepts tokens issued for another resource); -audience-host-only
// compares the audience's origin only (a token for another path on the
// same host passes); -no-signature reads the claims without verifying the
// signature, as jwt.ParseUnverified does (iss, aud, exp and scope still
// checked: a token anyone can make passes); -passthrough URL sends each
// request's bearer token on to URL, as a proxy that passes the client's
// token through to its upstream does.
//
//	go-sdk-auth -http 127.0.0.1:PORT -api-key KEY
//
// is the same server protected the way many production servers are
// instead: Authorization: Bearer KEY or 401 (with no challenge), no
// protected-resource metadata, no authorization server.
package main

import (
	"context"
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"math/big"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

func main() {
	addr := flag.String("http", "127.0.0.1:0", "address to serve Streamable HTTP at")
	issuer := flag.String("issuer", "", "the authorization server's issuer URL")
	scope := flag.String("scope", "mcp:tools", "space-separated scopes every request needs")
	noAudience := flag.Bool("no-audience", false, "accept tokens whatever their audience (a defect, for the negative corpus)")
	hostOnly := flag.Bool("audience-host-only", false, "compare the audience's origin only (a defect, for the negative corpus)")
	noSignature := flag.Bool("no-signature", false, "read the claims without verifying the signature (a defect, for the negative corpus)")
	upstream := flag.String("passthrough", "", "send each request's bearer token on to this upstream URL (a defect, for the negative corpus)")
	apiKey := flag.String("api-key", "", "protect the endpoint with this static key instead of OAuth (no metadata)")
	flag.Parse()
	if *issuer == "" && *apiKey == "" {
		log.Fatal("go-sdk-auth: -issuer or -api-key is required")
	}
	resource := "http://" + *addr + "/mcp"
	metadataURL := "http://" + *addr + "/.well-known/oauth-protected-resource/mcp"
	scopes := strings.Fields(*scope)

	v := &verifier{issuer: *issuer, resource: resource, checkAudience: !*noAudience, hostOnly: *hostOnly, noSignature: *noSignature,
		hc: &http.Client{Timeout: 10 * time.Second}}

	server := mcp.NewServer(&mcp.Implementation{Name: "go-sdk-auth", Version: "1.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{
		Name:        "whoami",
		Description: "Say which OAuth client the request's access token was issued to, and its scopes.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, whoamiOut, error) {
		ti := req.Extra.TokenInfo
		if ti == nil {
			return nil, whoamiOut{}, errors.New("no token info")
		}
		return nil, whoamiOut{Subject: ti.UserID, Scopes: ti.Scopes}, nil
	})

	if *apiKey != "" {
		h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{Stateless: true})
		mux := http.NewServeMux()
		mux.Handle("/mcp", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer "+*apiKey {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusUnauthorized)
				_, _ = w.Write([]byte(`{"error":"a valid API key is required"}`))
				return
			}
			h.ServeHTTP(w, r)
		}))
		srv := &http.Server{Addr: *addr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
		log.Printf("serving %s (API key)", resource)
		log.Fatal(srv.ListenAndServe())
	}

	mux := http.NewServeMux()
	mux.Handle("/.well-known/oauth-protected-resource/mcp", auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource:               resource,
		AuthorizationServers:   []string{*issuer},
		ScopesSupported:        scopes,
		BearerMethodsSupported: []string{"header"},
		ResourceName:           "go-sdk-auth",
	}))
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{Stateless: true})
	var next http.Handler = mcpHandler
	if *upstream != "" {
		next = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			req, err := http.NewRequestWithContext(r.Context(), http.MethodGet, *upstream, nil)
			if err == nil {
				req.Header.Set("Authorization", r.Header.Get("Authorization"))
				if resp, err := v.hc.Do(req); err == nil {
					resp.Body.Close()
				}
			}
			mcpHandler.ServeHTTP(w, r)
		})
	}
	mux.Handle("/mcp", auth.RequireBearerToken(v.verify, &auth.RequireBearerTokenOptions{
		ResourceMetadataURL: metadataURL,
		Scopes:              scopes,
	})(next))

	srv := &http.Server{Addr: *addr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	log.Printf("serving %s (issuer %s, audience check %v)", resource, *issuer, !*noAudience)
	log.Fatal(srv.ListenAndServe())
}

type whoamiOut struct {
	Subject string   `json:"subject" jsonschema:"the token's subject (the OAuth client)"`
	Scopes  []string `json:"scopes" jsonschema:"the token's scopes"`
}

// verifier checks RS256 JWT access tokens (RFC 9068) against the issuer's
// JWKS, found through its metadata (RFC 8414, then OpenID discovery).
type verifier struct {
	issuer, resource      string
	checkAudience         bool
	hostOnly, noSignature bool
	hc                    *http.Client

	mu   sync.Mutex
	keys map[string]*rsa.PublicKey
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", auth.ErrInvalidToken, fmt.Sprintf(format, args...))
}

func (v *verifier) verify(ctx context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return nil, invalid("not a JWT")
	}
	var header struct {
		Alg string `json:"alg"`
		Kid string `json:"kid"`
	}
	if err := decodePart(parts[0], &header); err != nil {
		return nil, invalid("header: %v", err)
	}
	if !v.noSignature {
		if header.Alg != "RS256" {
			return nil, invalid("alg %q", header.Alg)
		}
		key, err := v.key(ctx, header.Kid)
		if err != nil {
			return nil, err
		}
		sig, err := base64.RawURLEncoding.DecodeString(parts[2])
		if err != nil {
			return nil, invalid("signature encoding")
		}
		sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
		if rsa.VerifyPKCS1v15(key, crypto.SHA256, sum[:], sig) != nil {
			return nil, invalid("bad signature")
		}
	}
	var claims struct {
		Iss      string          `json:"iss"`
		Sub      string          `json:"sub"`
		Exp      int64           `json:"exp"`
		Aud      json.RawMessage `json:"aud"`
		Scope    string          `json:"scope"`
		Scp      []string        `json:"scp"`
		ClientID string          `json:"client_id"`
	}
	if err := decodePart(parts[1], &claims); err != nil {
		return nil, invalid("claims: %v", err)
	}
	if claims.Iss != v.issuer {
		return nil, invalid("issued by %q", claims.Iss)
	}
	switch {
	case v.hostOnly:
		if !slices.ContainsFunc(audiences(claims.Aud), func(a string) bool { return origin(a) == origin(v.resource) }) {
			return nil, invalid("not issued for this host")
		}
	case v.checkAudience && !slices.Contains(audiences(claims.Aud), v.resource):
		return nil, invalid("not issued for this resource")
	}
	scopes := claims.Scp
	if claims.Scope != "" {
		scopes = strings.Fields(claims.Scope)
	}
	sub := claims.Sub
	if sub == "" {
		sub = claims.ClientID
	}
	// The middleware refuses an expired token with 401.
	return &auth.TokenInfo{Scopes: scopes, Expiration: time.Unix(claims.Exp, 0), UserID: sub}, nil
}

// origin is scheme://host[:port] of a URL ("" if it is none).
func origin(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

// audiences reads aud, a string or an array of strings (RFC 7519 §4.1.3).
func audiences(raw json.RawMessage) []string {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}
	}
	var many []string
	_ = json.Unmarshal(raw, &many)
	return many
}

func decodePart(s string, v any) error {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// key returns the issuer's key kid, fetching the JWKS when it is not known.
func (v *verifier) key(ctx context.Context, kid string) (*rsa.PublicKey, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if k, ok := v.keys[kid]; ok {
		return k, nil
	}
	keys, err := v.fetchKeys(ctx)
	if err != nil {
		return nil, fmt.Errorf("the authorization server's keys: %w", err)
	}
	v.keys = keys
	if k, ok := keys[kid]; ok {
		return k, nil
	}
	return nil, invalid("unknown key")
}

func (v *verifier) fetchKeys(ctx context.Context) (map[string]*rsa.PublicKey, error) {
	var jwksURI string
	for _, wk := range []string{"/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"} {
		var md struct {
			Issuer  string `json:"issuer"`
			JWKSURI string `json:"jwks_uri"`
		}
		if getJSON(ctx, v.hc, strings.TrimSuffix(v.issuer, "/")+wk, &md) == nil && md.Issuer == v.issuer && md.JWKSURI != "" {
			jwksURI = md.JWKSURI
			break
		}
	}
	if jwksURI == "" {
		return nil, fmt.Errorf("no metadata with a jwks_uri for issuer %s", v.issuer)
	}
	var set struct {
		Keys []struct {
			Kty string `json:"kty"`
			Kid string `json:"kid"`
			N   string `json:"n"`
			E   string `json:"e"`
		} `json:"keys"`
	}
	if err := getJSON(ctx, v.hc, jwksURI, &set); err != nil {
		return nil, err
	}
	keys := map[string]*rsa.PublicKey{}
	for _, k := range set.Keys {
		if k.Kty != "RSA" {
			continue
		}
		n, err1 := base64.RawURLEncoding.DecodeString(k.N)
		e, err2 := base64.RawURLEncoding.DecodeString(k.E)
		if err1 != nil || err2 != nil {
			continue
		}
		keys[k.Kid] = &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: int(new(big.Int).SetBytes(e).Int64())}
	}
	return keys, nil
}

func getJSON(ctx context.Context, hc *http.Client, url string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: HTTP %d", url, resp.StatusCode)
	}
	return json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(v)
}
