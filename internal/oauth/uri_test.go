package oauth

import (
	"slices"
	"strings"
	"testing"
)

func TestCanonicalURI(t *testing.T) {
	tests := []struct{ in, want, err string }{
		// authorization/index.mdx §Canonical Server URI's valid examples.
		{"https://mcp.example.com/mcp", "https://mcp.example.com/mcp", ""},
		{"https://mcp.example.com", "https://mcp.example.com", ""},
		{"https://mcp.example.com:8443", "https://mcp.example.com:8443", ""},
		{"https://mcp.example.com/server/mcp", "https://mcp.example.com/server/mcp", ""},
		// Lowercase scheme and host, no trailing slash, default port.
		{"HTTPS://MCP.Example.COM/", "https://mcp.example.com", ""},
		{"https://mcp.example.com:443/mcp", "https://mcp.example.com/mcp", ""},
		{"http://127.0.0.1:80/mcp", "http://127.0.0.1/mcp", ""},
		{"http://[::1]:8080/mcp", "http://[::1]:8080/mcp", ""},
		{"https://h.example/Path/MCP/", "https://h.example/Path/MCP/", ""},
		{"https://h.example/mcp?tenant=a", "https://h.example/mcp?tenant=a", ""},
		// The invalid examples.
		{"mcp.example.com", "", "absolute"},
		{"https://mcp.example.com#fragment", "https://mcp.example.com", ""},
		{"ftp://h.example", "", "scheme"},
		{"https://user:pw@h.example", "", "user information"},
	}
	for _, tt := range tests {
		got, err := CanonicalURI(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("CanonicalURI(%q) = %q, %v; want an error with %q", tt.in, got, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("CanonicalURI(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestCovers(t *testing.T) {
	tests := []struct {
		resource, server string
		want             bool
	}{
		{"https://h.example/mcp", "https://h.example/mcp", true},
		{"HTTPS://H.example:443/mcp", "https://h.example/mcp", true},
		{"https://h.example", "https://h.example/mcp", true},
		{"https://h.example/", "https://h.example/mcp", true},
		{"https://h.example/api", "https://h.example/api/mcp", true},
		{"https://h.example/ap", "https://h.example/api/mcp", false},
		{"https://h.example/mcp", "https://h.example/", false},
		{"https://other.example/mcp", "https://h.example/mcp", false},
		{"http://h.example/mcp", "https://h.example/mcp", false},
		{"https://h.example:8443/mcp", "https://h.example/mcp", false},
		{"not a url", "https://h.example/mcp", false},
	}
	for _, tt := range tests {
		if got := Covers(tt.resource, tt.server); got != tt.want {
			t.Errorf("Covers(%q, %q) = %v, want %v", tt.resource, tt.server, got, tt.want)
		}
	}
}

func TestMetadataURIs(t *testing.T) {
	res := []struct {
		server string
		want   []string
	}{
		// authorization-server-discovery.mdx: "https://example.com/public/mcp
		// could host metadata at https://example.com/.well-known/oauth-protected-resource/public/mcp",
		// then the root.
		{"https://example.com/public/mcp", []string{"https://example.com/.well-known/oauth-protected-resource/public/mcp", "https://example.com/.well-known/oauth-protected-resource"}},
		{"https://example.com/mcp/", []string{"https://example.com/.well-known/oauth-protected-resource/mcp", "https://example.com/.well-known/oauth-protected-resource"}},
		{"https://example.com", []string{"https://example.com/.well-known/oauth-protected-resource"}},
		{"https://example.com/", []string{"https://example.com/.well-known/oauth-protected-resource"}},
		{"http://127.0.0.1:9/mcp?x=1", []string{"http://127.0.0.1:9/.well-known/oauth-protected-resource/mcp?x=1", "http://127.0.0.1:9/.well-known/oauth-protected-resource"}},
	}
	for _, tt := range res {
		got, err := ResourceMetadataURIs(tt.server)
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("ResourceMetadataURIs(%q) = %q, %v; want %q", tt.server, got, err, tt.want)
		}
	}
	as := []struct {
		issuer string
		want   []string
	}{
		// The revision's two lists, in its order.
		{"https://auth.example.com/tenant1", []string{
			"https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
			"https://auth.example.com/.well-known/openid-configuration/tenant1",
			"https://auth.example.com/tenant1/.well-known/openid-configuration"}},
		{"https://auth.example.com", []string{
			"https://auth.example.com/.well-known/oauth-authorization-server",
			"https://auth.example.com/.well-known/openid-configuration"}},
		{"https://auth.example.com/", []string{
			"https://auth.example.com/.well-known/oauth-authorization-server",
			"https://auth.example.com/.well-known/openid-configuration"}},
	}
	for _, tt := range as {
		got, err := AuthServerMetadataURIs(tt.issuer)
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("AuthServerMetadataURIs(%q) = %q, %v; want %q", tt.issuer, got, err, tt.want)
		}
	}
	if _, err := AuthServerMetadataURIs("https://as.example/?q=1"); err == nil {
		t.Error("an issuer with a query is no issuer (RFC 8414 §2)")
	}
}

func TestRequireSecure(t *testing.T) {
	for u, ok := range map[string]bool{
		"https://as.example/token": true, "http://127.0.0.1:4444/token": true, "http://localhost/token": true,
		"http://[::1]/token": true, "http://as.example/token": false, "http://10.0.0.1/token": false, "ftp://x/": false,
	} {
		if err := RequireSecure("token endpoint", u); (err == nil) != ok {
			t.Errorf("RequireSecure(%q) = %v, want ok=%v", u, err, ok)
		}
	}
}

func TestSameOrigin(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want bool
	}{
		{"https://h/mcp", "https://H:443/other", true},
		{"http://h:80/", "http://h/x", true},
		{"https://h/mcp", "http://h/mcp", false},
		{"https://h/mcp", "https://h:8443/mcp", false},
		{"https://h/mcp", "https://evil.h/mcp", false},
	} {
		if got := SameOrigin(tt.a, tt.b); got != tt.want {
			t.Errorf("SameOrigin(%q, %q) = %v", tt.a, tt.b, got)
		}
	}
}
