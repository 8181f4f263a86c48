package config

// The options of the auth checks' probes (conformance/checks_auth.go),
// declared in the option registry (declare) next to the --oauth-* options.

import (
	"net"
	"net/url"
	"strconv"
	"strings"

	"github.com/mcp-eval/mcp-eval/internal/exitcode"
	"github.com/mcp-eval/mcp-eval/internal/option"
)

// AuthCheckFlags steer the auth group's probes that need a second token
// from the run's OAuth client (--oauth-*).
type AuthCheckFlags struct {
	// InsufficientScope is a scope that does not cover what the server
	// requires: auth/insufficient-scope asks for a token with only it.
	InsufficientScope string
	// OtherResource is another resource the same authorization server
	// serves: auth/other-audience-refused asks for a token for it.
	OtherResource string
	// PassthroughListener is the HOST:PORT of the listener mcp-eval runs
	// for the server's upstream: auth/no-token-passthrough fails when a
	// token the run presented arrives there.
	PassthroughListener string
}

// declare declares the two options, bound to a.
func (a *AuthCheckFlags) declare(s *option.Set) {
	s.Add(option.Def{Name: "oauth-scope-insufficient", Help: "a `scope` that does not cover what the server requires: auth/insufficient-scope asks for a token with only it (default: one of scopes_supported outside the 401's scope)",
		Doc: "for the `auth` checks: a scope that does not cover what the server requires; `auth/insufficient-scope` asks the authorization server for a token with only it (default: one of the metadata's `scopes_supported` outside the 401's `scope`)"},
		option.String(&a.InsufficientScope, ""))
	s.Add(option.Def{Name: "oauth-other-resource", Help: "another resource `URI` of the same authorization server: auth/other-audience-refused presents a token issued for it (default https://mcp-eval-probe.invalid/mcp)",
		Doc: "for the `auth` checks: another resource the same authorization server issues tokens for; `auth/other-audience-refused` presents such a token (default `https://mcp-eval-probe.invalid/mcp`, which the authorization server must know)"},
		option.String(&a.OtherResource, ""))
	s.Add(option.Def{Name: "passthrough-listener", Help: "run a listener at `HOST:PORT` for the server's upstream: auth/no-token-passthrough fails when a token mcp-eval presented to the server arrives there",
		Doc: "for the `auth` checks: mcp-eval listens at this address while it runs; point the server's upstream API at it (`--server-start` can pass it) and `auth/no-token-passthrough` fails the run when a token mcp-eval presented to the server arrives there, during the conformance probes or the model layers' tool calls (token passthrough, which the authorization chapter forbids); every request is answered 502"},
		option.String(&a.PassthroughListener, ""))
}

// validateAuthChecks checks the probe options before any network call:
// they need an OAuth client, one scope, an absolute URI.
func (c *Config) validateAuthChecks() error {
	a := c.AuthChecks
	if l := a.PassthroughListener; l != "" {
		host, port, err := net.SplitHostPort(l)
		if n, perr := strconv.Atoi(port); err != nil || perr != nil || n < 0 || n > 65535 {
			return exitcode.Usagef("%s: want HOST:PORT (127.0.0.1:8099), got %q", c.Source("passthrough-listener", 0), l)
		}
		_ = host
		if c.ServerURL == "" {
			return exitcode.Usagef("%s needs --server-url: the auth checks judge servers over Streamable HTTP", c.Source("passthrough-listener", 0))
		}
	}
	if a.InsufficientScope == "" && a.OtherResource == "" {
		return nil
	}
	name := "oauth-scope-insufficient"
	if a.InsufficientScope == "" {
		name = "oauth-other-resource"
	}
	if !c.OAuth.Given() {
		return exitcode.Usagef("%s needs an OAuth client (--oauth-client-id, or an assertion) to ask for the probe's token", c.Source(name, 0))
	}
	if s := a.InsufficientScope; s != "" && (len(strings.Fields(s)) != 1 || strings.ContainsAny(s, `"\`)) {
		return exitcode.Usagef("%s: want one scope, got %q", c.Source("oauth-scope-insufficient", 0), s)
	}
	if r := a.OtherResource; r != "" {
		u, err := url.Parse(r)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.Fragment != "" {
			return exitcode.Usagef("%s: want an absolute http(s) URI without a fragment (RFC 8707 §2), got %q", c.Source("oauth-other-resource", 0), r)
		}
	}
	return nil
}
