package oauth

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
)

// CanonicalURI returns the canonical URI of the MCP server at serverURL,
// the value of the resource parameter (authorization/index.mdx §Canonical
// Server URI; RFC 8707 §2): an absolute http(s) URI without a fragment,
// scheme and host lower-cased, a default port (80, 443) dropped as RFC 3986
// §6.2.3 normalises it, and no trailing slash on an empty path ("MCP
// clients SHOULD consistently use the form without the trailing slash").
// A path, and a query, are kept as given: they may be what identifies the
// server.
func CanonicalURI(serverURL string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(serverURL))
	if err != nil {
		return "", fmt.Errorf("canonical URI of %q: %w", serverURL, err)
	}
	if !u.IsAbs() || u.Host == "" {
		return "", fmt.Errorf("canonical URI of %q: not an absolute URI with a host", serverURL)
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return "", fmt.Errorf("canonical URI of %q: the scheme must be http or https", serverURL)
	}
	if u.User != nil {
		return "", fmt.Errorf("canonical URI of %q: a resource identifier carries no user information", serverURL)
	}
	host := strings.ToLower(u.Hostname())
	port := u.Port()
	if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	path := u.EscapedPath()
	if path == "/" {
		path = ""
	}
	s := scheme + "://" + host + path
	if u.RawQuery != "" || u.ForceQuery {
		s += "?" + u.RawQuery
	}
	return s, nil
}

// SameResource reports whether two resource identifiers name the same
// resource: equal once both are canonical (CanonicalURI), so that the
// uppercase scheme or host the revision asks clients to accept, a default
// port or a lone trailing slash make no difference.
func SameResource(a, b string) bool {
	ca, err1 := CanonicalURI(a)
	cb, err2 := CanonicalURI(b)
	return err1 == nil && err2 == nil && ca == cb
}

// Covers reports whether the resource identifier resource covers the
// server at serverURL: the same resource, or the same origin with a path
// that is a whole-segment prefix of the server's ("https://h/api" covers
// "https://h/api/mcp", as RFC 9728 §3 lets a resource be identified by a
// prefix, and as the SDKs' clients accept).
func Covers(resource, serverURL string) bool {
	r, err1 := CanonicalURI(resource)
	s, err2 := CanonicalURI(serverURL)
	if err1 != nil || err2 != nil {
		return false
	}
	if r == s {
		return true
	}
	ru, _ := url.Parse(r)
	su, _ := url.Parse(s)
	if ru.RawQuery != "" || ru.Scheme != su.Scheme || ru.Host != su.Host {
		return false
	}
	rp := strings.TrimSuffix(ru.EscapedPath(), "/")
	sp := su.EscapedPath()
	return rp == "" || sp == rp || strings.HasPrefix(sp, rp+"/")
}

// Well-known URI suffixes (RFC 9728 §3, RFC 8414 §3, OpenID Connect
// Discovery 1.0 §4).
const (
	WellKnownResource   = "/.well-known/oauth-protected-resource"
	WellKnownAuthServer = "/.well-known/oauth-authorization-server"
	WellKnownOpenID     = "/.well-known/openid-configuration"
)

// ResourceMetadataURIs are the well-known URIs of the protected-resource
// metadata of the server at serverURL, in the order clients must try them
// (authorization-server-discovery.mdx §Protected Resource Metadata
// Discovery Requirements): the well-known suffix inserted before the
// endpoint's path, then at the root. A server at the root has one. As RFC
// 9728 §3.1 says, a terminating slash of the path is removed first and a
// query is kept after the path.
func ResourceMetadataURIs(serverURL string) ([]string, error) {
	u, err := parseHTTPURL(serverURL)
	if err != nil {
		return nil, err
	}
	origin := u.Scheme + "://" + u.Host
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	var out []string
	if path != "" || u.RawQuery != "" {
		s := origin + WellKnownResource + path
		if u.RawQuery != "" {
			s += "?" + u.RawQuery
		}
		out = append(out, s)
	}
	return append(out, origin+WellKnownResource), nil
}

// AuthServerMetadataURIs are the metadata URIs of the authorization server
// with this issuer identifier, in the order the revision lists them
// (authorization-server-discovery.mdx §Authorization Server Metadata
// Discovery): for an issuer with a path, RFC 8414 path insertion, OpenID
// Connect path insertion, then OpenID Connect path appending; for one
// without, RFC 8414 then OpenID Connect at the root.
func AuthServerMetadataURIs(issuer string) ([]string, error) {
	u, err := parseHTTPURL(issuer)
	if err != nil {
		return nil, err
	}
	if u.RawQuery != "" || u.Fragment != "" {
		// RFC 8414 §2: an issuer has no query or fragment component.
		return nil, fmt.Errorf("issuer %q: an issuer identifier has no query or fragment (RFC 8414 §2)", issuer)
	}
	origin := u.Scheme + "://" + u.Host
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	if path == "" {
		return []string{origin + WellKnownAuthServer, origin + WellKnownOpenID}, nil
	}
	return []string{
		origin + WellKnownAuthServer + path,
		origin + WellKnownOpenID + path,
		origin + path + WellKnownOpenID,
	}, nil
}

func parseHTTPURL(s string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil {
		return nil, err
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%q is not an http(s) URL", s)
	}
	return u, nil
}

// IsLoopback reports whether rawURL's host is a loopback address or the
// name localhost (RFC 8252 §8.3 and OAuth 2.1 §1.5 except loopback from the
// HTTPS requirement): the one place a credential may travel over plain
// HTTP.
func IsLoopback(rawURL string) bool {
	u, err := url.Parse(rawURL)
	if err != nil {
		return false
	}
	h := strings.ToLower(u.Hostname())
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// ErrInsecure is wrapped by the error for a credential that would travel
// over plain HTTP to a host other than loopback.
var ErrInsecure = errors.New("plain HTTP off loopback")

// RequireSecure returns an error wrapping ErrInsecure unless rawURL is
// https, or http to loopback. what names the endpoint in the message.
func RequireSecure(what, rawURL string) error {
	u, err := url.Parse(rawURL)
	if err != nil {
		return fmt.Errorf("%s %q: %w", what, rawURL, err)
	}
	switch {
	case u.Scheme == "https":
		return nil
	case u.Scheme == "http" && IsLoopback(rawURL):
		return nil
	case u.Scheme == "http":
		return fmt.Errorf("%s %s is plain HTTP and not on loopback: credentials travel only over HTTPS (OAuth 2.1 §1.5) — %w", what, rawURL, ErrInsecure)
	}
	return fmt.Errorf("%s %q: not an http(s) URL", what, rawURL)
}

// SameOrigin reports whether a and b have the same scheme, host and port
// (RFC 6454), default ports made explicit.
func SameOrigin(a, b string) bool {
	ua, err1 := url.Parse(a)
	ub, err2 := url.Parse(b)
	if err1 != nil || err2 != nil {
		return false
	}
	return strings.EqualFold(ua.Scheme, ub.Scheme) && strings.EqualFold(ua.Hostname(), ub.Hostname()) && port(ua) == port(ub)
}

func port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	switch strings.ToLower(u.Scheme) {
	case "http":
		return "80"
	case "https":
		return "443"
	}
	return ""
}
