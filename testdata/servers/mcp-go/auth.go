package main

// The -issuer wiring: mcp-go v1.2.1 serves the RFC 9728 protected-resource
// metadata (WithProtectedResourceMetadata) but validates no token; its
// documentation leaves that to an HTTP middleware in front of the
// handler, which this file is. It checks a JWT access token (RFC 9068)
// against the issuer's JWKS, found through its metadata (RFC 8414, then
// OpenID discovery): RS256 signature, iss, exp, aud = this server's
// resource URI, and the required scopes; and answers as RFC 6750 §3 says
// (401 with a challenge, no error code without credentials,
// error="invalid_token" for a bad token, 403 error="insufficient_scope").

import (
	"context"
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

type verifier struct {
	issuer, resource, metadataURL string
	scopes                        []string
	checkAudience, checkSignature bool
	hc                            *http.Client

	mu   sync.Mutex
	keys map[string]*rsa.PublicKey
}

// errScope is a valid token without the scopes every request needs.
var errScope = errors.New("insufficient scope")

func (v *verifier) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		challenge := fmt.Sprintf(`Bearer resource_metadata="%s", scope="%s"`, v.metadataURL, strings.Join(v.scopes, " "))
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || tok == "" {
			w.Header().Set("WWW-Authenticate", challenge)
			http.Error(w, "an access token is required", http.StatusUnauthorized)
			return
		}
		switch err := v.verify(r.Context(), tok); {
		case errors.Is(err, errScope):
			w.Header().Set("WWW-Authenticate", challenge+`, error="insufficient_scope"`)
			http.Error(w, err.Error(), http.StatusForbidden)
		case err != nil:
			w.Header().Set("WWW-Authenticate", challenge+`, error="invalid_token"`)
			http.Error(w, "invalid token: "+err.Error(), http.StatusUnauthorized)
		default:
			next.ServeHTTP(w, r)
		}
	})
}

func decodePart(s string, v any) error {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

func (v *verifier) verify(ctx context.Context, token string) error {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return errors.New("not a JWT")
	}
	var header struct{ Alg, Kid string }
	if err := decodePart(parts[0], &header); err != nil {
		return fmt.Errorf("header: %v", err)
	}
	if v.checkSignature {
		if header.Alg != "RS256" {
			return fmt.Errorf("alg %q", header.Alg)
		}
		key, err := v.key(ctx, header.Kid)
		if err != nil {
			return err
		}
		sig, err := base64.RawURLEncoding.DecodeString(parts[2])
		if err != nil {
			return errors.New("signature encoding")
		}
		sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
		if rsa.VerifyPKCS1v15(key, crypto.SHA256, sum[:], sig) != nil {
			return errors.New("bad signature")
		}
	}
	var claims struct {
		Iss   string          `json:"iss"`
		Exp   int64           `json:"exp"`
		Aud   json.RawMessage `json:"aud"`
		Scope string          `json:"scope"`
		Scp   []string        `json:"scp"`
	}
	if err := decodePart(parts[1], &claims); err != nil {
		return fmt.Errorf("claims: %v", err)
	}
	if claims.Iss != v.issuer {
		return fmt.Errorf("issued by %q", claims.Iss)
	}
	if claims.Exp == 0 || time.Now().Unix() >= claims.Exp {
		return errors.New("expired")
	}
	if v.checkAudience {
		var aud []string
		if json.Unmarshal(claims.Aud, &aud) != nil {
			var one string
			json.Unmarshal(claims.Aud, &one)
			aud = []string{one}
		}
		if !slices.Contains(aud, v.resource) {
			return errors.New("not issued for this resource")
		}
	}
	have := strings.Fields(claims.Scope)
	if len(have) == 0 {
		have = claims.Scp
	}
	for _, s := range v.scopes {
		if !slices.Contains(have, s) {
			return fmt.Errorf("%w: %s is required", errScope, s)
		}
	}
	return nil
}

// key returns the issuer's key kid, fetching the JWKS when it is unknown.
func (v *verifier) key(ctx context.Context, kid string) (*rsa.PublicKey, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if k := v.keys[kid]; k != nil {
		return k, nil
	}
	var md struct {
		Issuer  string `json:"issuer"`
		JWKSURI string `json:"jwks_uri"`
	}
	for _, wk := range []string{"/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"} {
		if v.getJSON(ctx, strings.TrimSuffix(v.issuer, "/")+wk, &md) == nil && md.Issuer == v.issuer && md.JWKSURI != "" {
			break
		}
		md.JWKSURI = ""
	}
	if md.JWKSURI == "" {
		return nil, fmt.Errorf("no metadata with a jwks_uri for %s", v.issuer)
	}
	var set struct {
		Keys []struct{ Kty, Kid, N, E string } `json:"keys"`
	}
	if err := v.getJSON(ctx, md.JWKSURI, &set); err != nil {
		return nil, err
	}
	v.keys = map[string]*rsa.PublicKey{}
	for _, k := range set.Keys {
		n, err1 := base64.RawURLEncoding.DecodeString(k.N)
		e, err2 := base64.RawURLEncoding.DecodeString(k.E)
		if k.Kty == "RSA" && err1 == nil && err2 == nil {
			v.keys[k.Kid] = &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: int(new(big.Int).SetBytes(e).Int64())}
		}
	}
	if k := v.keys[kid]; k != nil {
		return k, nil
	}
	return nil, fmt.Errorf("unknown kid %q", kid)
}

func (v *verifier) getJSON(ctx context.Context, url string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := v.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: HTTP %d", url, resp.StatusCode)
	}
	return json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(out)
}
