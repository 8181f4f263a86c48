package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mcp-eval/mcp-eval/engine/check"
	"github.com/mcp-eval/mcp-eval/internal/clip"
	"github.com/mcp-eval/mcp-eval/internal/oauth"
	"github.com/mcp-eval/mcp-eval/internal/redact"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/report"
)

// The auth group judges the authorization surface of a protected server
// (basic/authorization/*.mdx of 2026-07-28, the RFCs it builds on, and the
// ext-auth client-credentials extension). It runs over Streamable HTTP when
// the server refused a request without credentials with 401, or when the
// run has an OAuth client (--oauth-*); otherwise every check is skipped
// with that reason. Each check runs once: metadata does not change between
// runs, and every token probe is a token request.
//
// Two parties are judged. The auth/* checks without "as-" judge the MCP
// server (the resource server): its challenge, its protected-resource
// metadata, and how it treats tokens. The auth/as-* checks judge the
// authorization server the metadata names (its RFC 8414 / OpenID
// metadata), which is often another product than the server; their titles
// start with "authorization server:".
//
// What the spec asks of clients (PKCE, the resource parameter, validating
// iss, not sending tokens elsewhere) is mcp-eval's own behaviour, not
// something a check of a server can observe.
func authChecks() []*Check {
	authz := spec("basic/authorization")
	disc := spec("basic/authorization/authorization-server-discovery")
	reg := spec("basic/authorization/client-registration")
	sec := spec("basic/authorization/security-considerations")
	def := func(id string, level report.Level, rev, ref, title string, run func(context.Context, *Env) Outcome) *Check {
		return &Check{ID: id, Reqs: authReqs[id], Level: level, Revision: rev, Transport: "http", Once: true,
			SpecRef: ref, Title: title, Prepare: authPrepare, Run: run,
			// The authorization server is judged, not gated on: see
			// check.Def.ThirdParty.
			ThirdParty: strings.HasPrefix(id, "auth/as-")}
	}
	echo := def("auth/no-token-echo", report.LevelShould, revBoth, sec+"#token-theft",
		"no answer, header or error body echoes a token or credential the run sent", noTokenEcho)
	echo.After = true
	mcpAuth := def("auth/mcp-authorization", report.LevelShould, revBoth, authz+"#protocol-requirements",
		"a server that refuses requests without credentials implements MCP authorization (not only a static credential such as an API key)", mcpAuthorization)
	mcpAuth.Prepare = mcpAuthorizationPrepare
	pass := def("auth/no-token-passthrough", report.LevelMust, revBoth, sec+"#access-token-privilege-restriction",
		"no token the run presented to the server reaches the --passthrough-listener its upstream is pointed at (token passthrough)", noTokenPassthrough)
	pass.After, pass.Prepare = true, passthroughPrepare
	return []*Check{
		mcpAuth,
		def("auth/unauthenticated-401", report.LevelMust, revBoth, authz+"#error-handling",
			"a request without credentials → HTTP 401 with a WWW-Authenticate: Bearer challenge", unauthenticated401),
		def("auth/no-error-without-credentials", report.LevelShould, revBoth, authz+"#error-handling",
			"the challenge to a request without credentials carries no error code", noErrorWithoutCredentials),
		def("auth/challenge-scope", report.LevelShould, revBoth, authz+"#scope-selection-strategy",
			"the 401 challenge names the scopes the request needs (scope=)", challengeScope),
		def("auth/no-offline-access", report.LevelShould, revBoth, authz+"#refresh-tokens",
			"offline_access is not among the scopes the server asks for (challenge scope, scopes_supported)", noOfflineAccess),
		def("auth/resource-metadata-discoverable", report.LevelMust, revBoth, disc+"#protected-resource-metadata-discovery-requirements",
			"protected-resource metadata found through resource_metadata in the 401, or at a well-known URI", resourceMetadataDiscoverable),
		def("auth/resource-metadata-valid", report.LevelMust, revBoth, disc+"#authorization-server-location",
			"the protected-resource metadata is a JSON object (200, application/json) with a resource (RFC 9728)", resourceMetadataValid),
		def("auth/resource-metadata-resource", report.LevelMust, revBoth, authz+"#canonical-server-uri",
			"the metadata's resource is the server's canonical URI (RFC 9728 §3.3)", resourceMetadataResource),
		def("auth/authorization-servers", report.LevelMust, revBoth, disc+"#authorization-server-location",
			"the metadata's authorization_servers lists at least one issuer URL", authorizationServers),
		def("auth/resource-metadata-https", report.LevelMust, revBoth, sec+"#communication-security",
			"the metadata's URLs (its own, resource, authorization_servers, jwks_uri) use HTTPS (loopback excepted)", resourceMetadataHTTPS),
		def("auth/as-metadata", report.LevelMust, revBoth, disc+"#authorization-server-metadata-discovery",
			"authorization server: metadata at an RFC 8414 or OpenID well-known URI, issuer identical to the one listed", asMetadata),
		def("auth/as-token-endpoint", report.LevelMust, revBoth, disc+"#authorization-server-metadata-discovery",
			"authorization server: the metadata names a token_endpoint", asTokenEndpoint),
		def("auth/as-https", report.LevelMust, revBoth, sec+"#communication-security",
			"authorization server: every endpoint in its metadata uses HTTPS (loopback excepted)", asHTTPS),
		def("auth/as-pkce-s256", report.LevelMust, revBoth, sec+"#authorization-code-protection",
			"authorization server: code_challenge_methods_supported includes S256", asPKCE),
		def("auth/as-iss-parameter", report.LevelShould, revModern, authz+"#authorization-response-validation",
			"authorization server: authorization_response_iss_parameter_supported is true (RFC 9207)", asIssParameter),
		def("auth/as-client-registration", report.LevelShould, revModern, reg+"#client-id-metadata-documents",
			"authorization server: client ID metadata documents advertised (Dynamic Client Registration alone is deprecated)", asClientRegistration),
		def("auth/as-grant-type", report.LevelShould, revBoth, authz+"#overview",
			"authorization server: grant_types_supported lists the grant the run uses", asGrantType),
		def("auth/as-client-credentials-metadata", report.LevelMust, revBoth, "https://github.com/modelcontextprotocol/ext-auth/blob/main/specification/draft/oauth-client-credentials.mdx#server-metadata-requirements",
			"authorization server: client-credentials metadata (client_secret_basic or private_key_jwt; signing algorithms for JWT)", asClientCredentialsMetadata),
		def("auth/malformed-token", report.LevelMust, revBoth, authz+"#token-handling",
			"a malformed access token → HTTP 401", malformedToken),
		def("auth/forged-token-refused", report.LevelMust, revBoth, authz+"#token-handling",
			"tokens made from a valid one that no authorization server issued (signature altered, alg none, unknown kid, another issuer; an opaque token with a character changed) → HTTP 401", forgedTokenRefused),
		def("auth/invalid-token-error", report.LevelShould, revBoth, authz+"#token-handling",
			"the 401 for an invalid token carries error=\"invalid_token\" in its Bearer challenge", invalidTokenError),
		def("auth/expired-token", report.LevelMust, revBoth, authz+"#token-handling",
			"an expired access token → HTTP 401 (when the authorization server issues tokens short enough to wait for)", expiredToken),
		def("auth/query-token-refused", report.LevelMust, revBoth, authz+"#token-requirements",
			"an access token in the URI query string is not accepted (401 as unauthenticated, or another 4xx)", queryTokenRefused),
		def("auth/other-audience-refused", report.LevelMust, revBoth, sec+"#access-token-privilege-restriction",
			"a token the authorization server issued for another resource → HTTP 401 (audience validation)", otherAudienceRefused),
		def("auth/insufficient-scope", report.LevelShould, revBoth, authz+"#runtime-insufficient-scope-errors",
			"a valid token without a required scope → HTTP 403 with error=\"insufficient_scope\" and scope=", insufficientScope),
		def("auth/single-challenge", report.LevelShould, revModern, authz+"#runtime-insufficient-scope-errors",
			"one 403 challenge names every scope the request needs: a token with the refused one's scopes and the challenged ones is not refused for scope again", singleChallenge),
		echo,
		pass,
	}
}

// authReqs are the requirement rows each auth check enforces
// (internal/requirements/chapters/auth.yaml; a test keeps both in step).
var authReqs = map[string][]string{
	"auth/as-client-credentials-metadata": {"auth/as-cc-auth-methods"},
	"auth/as-client-registration":         {"auth/as-cimd"},
	"auth/as-grant-type":                  {"guidance/auth-grant-listed"},
	"auth/as-https":                       {"auth/as-https"},
	"auth/as-iss-parameter":               {"auth/as-iss"},
	"auth/as-metadata":                    {"auth/discovery-follow", "auth/as-oauth21", "auth/as-discovery", "auth/as-issuer-identical"},
	"auth/as-pkce-s256":                   {"auth/as-oauth21", "auth/as-pkce-metadata"},
	"auth/as-token-endpoint":              {"auth/as-oauth21", "auth/as-token-endpoint"},
	"auth/authorization-servers":          {"auth/discovery-follow", "auth/prm-authorization-servers"},
	"auth/challenge-scope":                {"auth/scope-in-challenge"},
	"auth/expired-token":                  {"auth/validate-tokens", "auth/invalid-401", "auth/oauth21-validation"},
	"auth/forged-token-refused":           {"auth/validate-tokens", "auth/invalid-401", "auth/validate-before-processing", "auth/oauth21-validation"},
	"auth/insufficient-scope":             {"auth/status-codes", "auth/insufficient-scope-403", "auth/insufficient-scope-scopes", "auth/oauth21-validation"},
	"auth/invalid-token-error":            {"auth/error-attribute"},
	"auth/mcp-authorization":              {"base/auth-http"},
	"auth/malformed-token":                {"auth/validate-tokens", "auth/invalid-401", "auth/status-codes", "auth/validate-before-processing", "auth/oauth21-validation"},
	"auth/no-error-without-credentials":   {"auth/no-error-without-credentials"},
	"auth/no-offline-access":              {"auth/no-offline-access"},
	"auth/no-token-passthrough":           {"auth/no-passthrough", "auth/no-other-tokens"},
	"auth/no-token-echo":                  {"auth/security-follow", "auth/token-storage"},
	"auth/other-audience-refused":         {"auth/validate-tokens", "auth/audience", "auth/invalid-401", "auth/own-tokens", "auth/no-other-tokens", "auth/security-follow", "auth/audience-binding", "auth/validate-before-processing", "auth/reject-audience"},
	"auth/query-token-refused":            {"auth/query-token-ignored"},
	"auth/resource-metadata-discoverable": {"auth/prm-implement", "auth/discovery-follow", "auth/prm-discovery-mechanism"},
	"auth/resource-metadata-https":        {"auth/security-follow", "auth/communication-security"},
	"auth/resource-metadata-resource":     {"auth/prm-resource-identical"},
	"auth/resource-metadata-valid":        {"auth/prm-implement", "auth/prm-document"},
	"auth/single-challenge":               {"auth/single-challenge", "auth/insufficient-scope-scopes"},
	"auth/unauthenticated-401":            {"auth/www-authenticate", "auth/status-codes", "auth/validate-before-processing", "http/authentication"},
}

// unauthenticated401: basic/authorization §Error Handling, "Servers MUST
// return appropriate HTTP status codes for authorization errors" — 401 for
// "Authorization required or token invalid"; OAuth 2.1 §5.3.1 (RFC 6750
// §3): "If the protected resource request does not include authentication
// credentials …, the resource server MUST include the HTTP WWW-Authenticate
// response header field" and "All challenges for this token type MUST use
// the auth-scheme value Bearer."
func unauthenticated401(ctx context.Context, e *Env) Outcome {
	s := e.authState(ctx)
	x := s.unauth
	if x == nil || x.Status == 0 {
		return check.Errored(fmt.Errorf("the request without credentials: %s", describeExchange(x, s.unauthErr)), nil)
	}
	if x.Status != http.StatusUnauthorized {
		return check.Failf(e.authEvidence(x), "a request without credentials got HTTP %d, want 401 (authorization required)", x.Status)
	}
	if s.challenge == nil {
		return check.Failf(e.authEvidence(x), "the 401 carries no WWW-Authenticate: Bearer challenge (got %q); the resource server MUST include one, with the Bearer scheme",
			strings.Join(x.Header.Values("WWW-Authenticate"), "; "))
	}
	return check.PassInfo("challenge: Bearer " + describeParams(s.challenge.Params))
}

// noErrorWithoutCredentials: OAuth 2.1 §5.3.2 (RFC 6750 §3.1): "If the
// request lacks any authentication information (e.g., the client was
// unaware that authentication is necessary …), the resource server SHOULD
// NOT include an error code or other error information."
func noErrorWithoutCredentials(ctx context.Context, e *Env) Outcome {
	s := e.authState(ctx)
	if s.challenge == nil {
		return check.Skip("no Bearer challenge to judge (see auth/unauthenticated-401)")
	}
	if code := s.challenge.Error(); code != "" {
		return check.Failf(e.authEvidence(s.unauth), "the challenge to a request that carried no credentials says error=%q; without credentials the resource server should include no error code (OAuth 2.1 §5.3.2)", code)
	}
	return check.Pass()
}

// challengeScope: basic/authorization §Scope Selection Strategy, "MCP
// servers SHOULD include a scope parameter in the WWW-Authenticate header as
// defined in RFC 6750 Section 3 to indicate the scopes required for
// accessing the resource."
func challengeScope(ctx context.Context, e *Env) Outcome {
	s := e.authState(ctx)
	if s.challenge == nil {
		return check.Skip("no Bearer challenge to judge (see auth/unauthenticated-401)")
	}
	if strings.TrimSpace(s.challenge.Scope()) == "" {
		return check.Failf(e.authEvidence(s.unauth), "the 401 challenge names no scope (Bearer %s); clients then fall back to every scopes_supported", describeParams(s.challenge.Params))
	}
	return check.PassInfo("scope=" + s.challenge.Scope())
}

// noOfflineAccess: basic/authorization §Refresh Tokens, "MCP Servers
// (Protected Resources) SHOULD NOT include offline_access in
// WWW-Authenticate scope or Protected Resource Metadata scopes_supported,
// as refresh tokens are not a resource requirement."
func noOfflineAccess(ctx context.Context, e *Env) Outcome {
	s := e.authState(ctx)
	var where []string
	if s.challenge != nil && slices.Contains(strings.Fields(s.challenge.Scope()), "offline_access") {
		where = append(where, "the 401 challenge's scope")
	}
	if sup, _ := stringList(s.prmJSON, "scopes_supported"); slices.Contains(sup, "offline_access") {
		where = append(where, "the protected-resource metadata's scopes_supported")
	}
	if s.challenge == nil && s.prmJSON == nil {
		return check.Skip("neither a Bearer challenge nor protected-resource metadata to judge")
	}
	if len(where) > 0 {
		ev := e.authEvidence(s.unauth)
		if s.prm != nil {
			ev = check.With(ev, "metadata", clip.Bytes(string(s.prm.Body), 1000))
		}
		return check.Failf(ev, "offline_access is in %s; refresh tokens are not a resource requirement", strings.Join(where, " and "))
	}
	return check.Pass()
}

// resourceMetadataDiscoverable: authorization-server-discovery.mdx, "MCP
// servers MUST implement one of the following discovery mechanisms":
// resource_metadata in the WWW-Authenticate header of a 401 (RFC 9728
// §5.1), or a metadata document at the path-inserted or the root
// well-known URI. Clients "MUST … use the resource metadata URL from the
// parsed WWW-Authenticate headers when present", so an advertised URL that
// serves nothing fails.
func resourceMetadataDiscoverable(ctx context.Context, e *Env) Outcome {
	s := e.authState(ctx)
	if s.prm != nil {
		if s.prmVia == "resource_metadata" {
			return check.PassInfo("resource_metadata in the challenge: " + s.prm.URL)
		}
		return check.PassInfo("the 401 names no resource_metadata; found at the well-known URI " + s.prm.URL)
	}
	ev := map[string]any{"tried": s.prmTried}
	if s.prmVia == "resource_metadata" {
		return check.Failf(ev, "the challenge's resource_metadata does not serve a document (%s); clients use it when present", strings.Join(s.prmTried, "; "))
	}
	return check.Failf(ev, "no protected-resource metadata: the 401 names no resource_metadata, and the well-known URIs answer %s", strings.Join(s.prmTried, "; "))
}

// prmOrSkip returns the parsed metadata document, or the skip of a check
// that needs it.
func prmOrSkip(s *authState) (map[string]json.RawMessage, *Outcome) {
	if s.prmJSON == nil {
		o := check.Skip("no protected-resource metadata document to judge (see auth/resource-metadata-discoverable and auth/resource-metadata-valid)")
		return nil, &o
	}
	return s.prmJSON, nil
}

// resourceMetadataValid: RFC 9728 §3.2, "A successful response MUST use the
// 200 OK HTTP status code and return a JSON object using the
// application/json content type"; §2, resource is "REQUIRED".
func resourceMetadataValid(ctx context.Context, e *Env) Outcome {
	s := e.authState(ctx)
	if s.prm == nil {
		return check.Skip("no protected-resource metadata was found (see auth/resource-metadata-discoverable)")
	}
	ev := map[string]any{"url": s.prm.URL, "contentType": s.prm.ContentType, "body": clip.Bytes(string(s.prm.Body), 1000)}
	if s.prm.ContentType != "application/json" {
		return check.Failf(ev, "%s is served as %q, want application/json (RFC 9728 §3.2)", s.prm.URL, s.prm.ContentType)
	}
	m, err := s.prm.object()
	if err != nil {
		return check.Failf(ev, "%s is %v, want a JSON object (RFC 9728 §3.2)", s.prm.URL, err)
	}
	var res string
	if json.Unmarshal(m["resource"], &res) != nil || res == "" {
		return check.Failf(ev, "%s has no resource string; RFC 9728 §2 makes resource REQUIRED", s.prm.URL)
	}
	return check.Pass()
}

// resourceMetadataResource: RFC 9728 §3.3, "If the protected resource
// metadata was retrieved from a URL returned by the protected resource via
// the WWW-Authenticate resource_metadata parameter, then the resource value
// returned MUST be identical to the URL that the client used to make the
// request to the resource server. If these values are not identical, the
// data contained in the response MUST NOT be used." (and the same of the
// well-known URL it was built from); basic/authorization §Canonical Server
// URI: the canonical URI "aligns with the resource parameter in RFC 9728".
// Forms that differ only as the canonical-URI section allows (letter case
// of scheme and host, a trailing slash) pass with a note.
func resourceMetadataResource(ctx context.Context, e *Env) Outcome {
	s := e.authState(ctx)
	m, o := prmOrSkip(s)
	if o != nil {
		return *o
	}
	var got string
	if json.Unmarshal(m["resource"], &got) != nil || got == "" {
		return check.Skip("the metadata has no resource string (see auth/resource-metadata-valid)")
	}
	want := e.client.Target().String()
	ev := map[string]any{"metadata": s.prm.URL, "resource": got, "serverURL": want}
	switch {
	case got == want:
		return check.Pass()
	case oauth.SameResource(got, want):
		return check.PassInfo(fmt.Sprintf("resource %q is the server URL %q in another spelling of the same canonical URI", got, want))
	}
	if oauth.Covers(got, want) {
		// A path prefix of the server, or the server's URI with a trailing
		// slash: the SDKs' clients (and mcp-eval's) accept it and ask for
		// tokens for it, so the run has tokens; the rule is still broken.
		return check.Failf(ev, "the metadata's resource is %q, not this server's URI %q: RFC 9728 §3.3 wants the two identical; clients that accept a covering resource (mcp-eval among them) request tokens for %q, which a strict client refuses to do", got, want, got)
	}
	return check.Failf(ev, "the metadata's resource is %q, not this server (%q); a client must not use metadata for another resource, so no token can be had for this one", got, want)
}

// authorizationServers: authorization-server-discovery.mdx, "The Protected
// Resource Metadata document returned by the MCP server MUST include the
// authorization_servers field containing at least one authorization
// server"; each is an issuer identifier (RFC 8414 §2: a URL with no query
// or fragment).
func authorizationServers(ctx context.Context, e *Env) Outcome {
	s := e.authState(ctx)
	m, o := prmOrSkip(s)
	if o != nil {
		return *o
	}
	raw, ok := m["authorization_servers"]
	ev := map[string]any{"metadata": s.prm.URL, "authorization_servers": raw}
	if !ok {
		return check.Fail("the protected-resource metadata has no authorization_servers; MCP requires at least one", ev)
	}
	var list []string
	if json.Unmarshal(raw, &list) != nil {
		return check.Failf(ev, "authorization_servers is %s, want an array of issuer URLs", clip.Bytes(string(raw), 200))
	}
	if len(list) == 0 {
		return check.Fail("authorization_servers is empty; MCP requires at least one authorization server", ev)
	}
	for _, is := range list {
		u, err := url.Parse(is)
		if err != nil || u.Scheme == "" || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			return check.Failf(ev, "authorization_servers entry %q is not an issuer identifier (an absolute URL without query or fragment, RFC 8414 §2)", is)
		}
	}
	return check.PassInfo(strings.Join(list, ", "))
}

// resourceMetadataHTTPS: RFC 9728 §2, the resource identifier "is a URL
// that uses the https scheme"; security-considerations.mdx §Communication
// Security: "All authorization server endpoints MUST be served over HTTPS."
// Plain HTTP on loopback is accepted (mcp-eval's exception, as the spec
// makes for redirect URIs: it never leaves the machine).
func resourceMetadataHTTPS(ctx context.Context, e *Env) Outcome {
	s := e.authState(ctx)
	m, o := prmOrSkip(s)
	if o != nil {
		return *o
	}
	urls := []string{s.prm.URL}
	var res, jwks string
	if json.Unmarshal(m["resource"], &res) == nil && res != "" {
		urls = append(urls, res)
	}
	var servers []string
	_ = json.Unmarshal(m["authorization_servers"], &servers)
	urls = append(urls, servers...)
	if json.Unmarshal(m["jwks_uri"], &jwks) == nil && jwks != "" {
		urls = append(urls, jwks)
	}
	var bad []string
	for _, u := range urls {
		if why := httpsOrLoopback(u); why != "" {
			bad = append(bad, why)
		}
	}
	if len(bad) > 0 {
		return check.Failf(map[string]any{"metadata": s.prm.URL, "urls": urls}, "%s", strings.Join(bad, "; "))
	}
	return check.Pass()
}

// asMetadata: basic/authorization §Overview, "MCP authorization servers
// MUST provide at least one of the following discovery mechanisms" (RFC
// 8414 metadata, OpenID Connect Discovery 1.0); authorization-server-
// discovery.mdx: "the issuer value in the document MUST be identical to the
// issuer identifier used to construct the well-known URL. If they differ,
// the client MUST NOT use the metadata."
func asMetadata(ctx context.Context, e *Env) Outcome {
	s := e.authState(ctx)
	if s.asIssuer == "" {
		return check.Skip("the protected-resource metadata names no authorization server (see auth/authorization-servers)")
	}
	ev := map[string]any{"issuer": s.asIssuer, "tried": s.asTried}
	if s.as == nil {
		return check.Failf(ev, "authorization server %s serves no metadata at any well-known URI: %s", s.asIssuer, strings.Join(s.asTried, "; "))
	}
	ev["url"] = s.as.URL
	if s.asJSON == nil {
		_, err := s.as.object()
		return check.Failf(check.With(ev, "body", clip.Bytes(string(s.as.Body), 1000)), "%s is %v, want a JSON object", s.as.URL, err)
	}
	var iss string
	_ = json.Unmarshal(s.asJSON["issuer"], &iss)
	if iss != s.asIssuer {
		return check.Failf(check.With(ev, "documentIssuer", iss), "the metadata at %s says issuer %q, not %q, the issuer it was fetched for; a client must not use it", s.as.URL, iss, s.asIssuer)
	}
	if strings.Contains(s.as.URL, "/openid-configuration") && len(s.asTried) > 1 {
		return check.PassInfo("OpenID Connect discovery only (" + s.as.URL + "); " + s.asTried[0])
	}
	return check.PassInfo(s.as.URL)
}

// asUsable returns the authorization server's metadata when a client may
// use it (auth/as-metadata passes), or the skip of the check that needs it.
func asUsable(s *authState) (map[string]json.RawMessage, *Outcome) {
	var iss string
	if s.asJSON != nil {
		_ = json.Unmarshal(s.asJSON["issuer"], &iss)
	}
	if s.asJSON == nil || iss != s.asIssuer {
		o := check.Skip("no usable authorization-server metadata (see auth/as-metadata)")
		return nil, &o
	}
	return s.asJSON, nil
}

// asCheck is a check of the authorization server's metadata: it runs f
// on the metadata a client may use, and skips otherwise.
func asCheck(f func(s *authState, m map[string]json.RawMessage) Outcome) func(context.Context, *Env) Outcome {
	return func(ctx context.Context, e *Env) Outcome {
		s := e.authState(ctx)
		m, o := asUsable(s)
		if o != nil {
			return *o
		}
		return f(s, m)
	}
}

func asEvidence(s *authState, keys ...string) map[string]any {
	ev := map[string]any{"metadata": s.as.URL}
	for _, k := range keys {
		if v, ok := s.asJSON[k]; ok {
			ev[k] = v
		} else {
			ev[k] = "(absent)"
		}
	}
	return ev
}

// asTokenEndpoint: RFC 8414 §2, token_endpoint "is REQUIRED unless only
// the implicit grant type is supported"; every grant an MCP client uses
// (authorization code, client credentials, jwt-bearer) goes through it.
var asTokenEndpoint = asCheck(func(s *authState, m map[string]json.RawMessage) Outcome {
	var te string
	_ = json.Unmarshal(m["token_endpoint"], &te)
	u, err := url.Parse(te)
	if te == "" || err != nil || u.Scheme == "" || u.Host == "" {
		return check.Failf(asEvidence(s, "token_endpoint"), "the metadata has no token_endpoint URL (RFC 8414 §2: REQUIRED unless only the implicit grant is supported)")
	}
	return check.PassInfo(te)
})

// asHTTPS: security-considerations.mdx §Communication Security, "All
// authorization server endpoints MUST be served over HTTPS." (loopback
// excepted, as for auth/resource-metadata-https).
var asHTTPS = asCheck(func(s *authState, m map[string]json.RawMessage) Outcome {
	urls := map[string]string{"(metadata)": s.as.URL}
	for k, raw := range m {
		if k == "issuer" || k == "jwks_uri" || strings.HasSuffix(k, "_endpoint") {
			var u string
			if json.Unmarshal(raw, &u) == nil && u != "" {
				urls[k] = u
			}
		}
	}
	keys := make([]string, 0, len(urls))
	for k := range urls {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var bad []string
	for _, k := range keys {
		if why := httpsOrLoopback(urls[k]); why != "" {
			bad = append(bad, k+" "+why)
		}
	}
	if len(bad) > 0 {
		return check.Failf(map[string]any{"urls": urls}, "%s", strings.Join(bad, "; "))
	}
	return check.Pass()
})

// stringList reads a metadata member that is an array of strings.
func stringList(m map[string]json.RawMessage, key string) ([]string, bool) {
	raw, ok := m[key]
	if !ok {
		return nil, false
	}
	var l []string
	if json.Unmarshal(raw, &l) != nil {
		return nil, false
	}
	return l, true
}

// asPKCE: security-considerations.mdx §Authorization Code Protection,
// "Authorization servers providing OpenID Connect Discovery 1.0 MUST
// include code_challenge_methods_supported in their metadata", and clients
// "MUST use the S256 code challenge method" and refuse to proceed without
// it. Skipped for an authorization server whose grant_types_supported
// lacks authorization_code.
var asPKCE = asCheck(func(s *authState, m map[string]json.RawMessage) Outcome {
	if grants, ok := stringList(m, "grant_types_supported"); ok && !slices.Contains(grants, "authorization_code") {
		return check.Skip("the authorization server does not offer the authorization code grant (grant_types_supported " + strings.Join(grants, ", ") + ")")
	}
	methods, _ := stringList(m, "code_challenge_methods_supported")
	if !slices.Contains(methods, "S256") {
		return check.Failf(asEvidence(s, "code_challenge_methods_supported"), "code_challenge_methods_supported lacks S256; MCP clients must refuse an authorization server without it")
	}
	return check.Pass()
})

// asIssParameter: basic/authorization §Authorization Response Validation,
// "MCP authorization servers SHOULD include the iss parameter in
// authorization responses … Authorization servers that include the iss
// parameter MUST advertise this by setting
// authorization_response_iss_parameter_supported to true" (RFC 9207 §2.3).
// The authorization response itself needs a browser flow; the metadata is
// what a client can see.
var asIssParameter = asCheck(func(s *authState, m map[string]json.RawMessage) Outcome {
	var on bool
	if json.Unmarshal(m["authorization_response_iss_parameter_supported"], &on) != nil || !on {
		return check.Fail("authorization_response_iss_parameter_supported is not true: the authorization server does not say it sends iss in authorization responses (RFC 9207), the mix-up defence MCP asks for", asEvidence(s, "authorization_response_iss_parameter_supported"))
	}
	return check.Pass()
})

// asClientRegistration: client-registration.mdx, "MCP clients and
// authorization servers SHOULD support OAuth Client ID Metadata Documents",
// advertised with client_id_metadata_document_supported; "Dynamic Client
// Registration is deprecated" and kept only for authorization servers that
// lack them.
var asClientRegistration = asCheck(func(s *authState, m map[string]json.RawMessage) Outcome {
	var cimd bool
	_ = json.Unmarshal(m["client_id_metadata_document_supported"], &cimd)
	if cimd {
		return check.Pass()
	}
	ev := asEvidence(s, "client_id_metadata_document_supported", "registration_endpoint")
	if _, dcr := m["registration_endpoint"]; dcr {
		return check.Fail("client ID metadata documents are not advertised; the only registration offered is Dynamic Client Registration (registration_endpoint), which 2026-07-28 deprecates", ev)
	}
	return check.Fail("client ID metadata documents are not advertised and there is no registration_endpoint: clients without a pre-registered client ID cannot register", ev)
})

// grantOrSkip returns the run's grant type, or the skip of a check about it.
func grantOrSkip(e *Env) (string, *Outcome) {
	if a := e.opts.Auth; a == nil || a.Tokens == nil || a.Grant == "" {
		o := check.Skip("the run has no OAuth client (--oauth-*), so no grant to judge")
		return "", &o
	}
	return e.opts.Auth.Grant, nil
}

// asGrantType: RFC 8414 §2, grant_types_supported lists "the OAuth 2.0
// grant type values that this authorization server supports … If omitted,
// the default value is ["authorization_code", "implicit"]" — the metadata
// is how an MCP client (basic/authorization §Overview: clients MUST use
// the metadata) learns whether its grant is offered, so a grant served but
// not listed is a warning.
func asGrantType(ctx context.Context, e *Env) Outcome {
	grant, o := grantOrSkip(e)
	if o != nil {
		return *o
	}
	s := e.authState(ctx)
	m, o := asUsable(s)
	if o != nil {
		return *o
	}
	grants, ok := stringList(m, "grant_types_supported")
	if !ok {
		grants = []string{"authorization_code", "implicit"}
	}
	if !slices.Contains(grants, grant) {
		return check.Failf(asEvidence(s, "grant_types_supported"), "grant_types_supported %v does not list %s, the grant this run uses", grants, grant)
	}
	return check.Pass()
}

// asClientCredentialsMetadata: ext-auth oauth-client-credentials.mdx
// §Server Metadata Requirements, "When supporting the client credentials
// flow, Authorization Server metadata MUST include …
// token_endpoint_auth_methods_supported: MUST include at least one of
// private_key_jwt, client_secret_basic; token_endpoint_auth_signing_alg_values_supported:
// Required when supporting JWT authentication" (RFC 8414 §2: it "MUST be
// present if either of these authentication methods are specified").
func asClientCredentialsMetadata(ctx context.Context, e *Env) Outcome {
	grant, o := grantOrSkip(e)
	if o != nil {
		return *o
	}
	if grant != "client_credentials" {
		return check.Skip("the run's grant is " + grant + ", not client_credentials")
	}
	s := e.authState(ctx)
	m, o := asUsable(s)
	if o != nil {
		return *o
	}
	ev := asEvidence(s, "token_endpoint_auth_methods_supported", "token_endpoint_auth_signing_alg_values_supported")
	methods, _ := stringList(m, "token_endpoint_auth_methods_supported")
	if !slices.Contains(methods, "private_key_jwt") && !slices.Contains(methods, "client_secret_basic") {
		return check.Failf(ev, "token_endpoint_auth_methods_supported %v has neither private_key_jwt nor client_secret_basic", methods)
	}
	if slices.Contains(methods, "private_key_jwt") || slices.Contains(methods, "client_secret_jwt") {
		if algs, _ := stringList(m, "token_endpoint_auth_signing_alg_values_supported"); len(algs) == 0 {
			return check.Fail("JWT client authentication is offered but token_endpoint_auth_signing_alg_values_supported is absent (required when supporting JWT authentication; RFC 8414 §2: MUST be present)", ev)
		}
	}
	return check.Pass()
}

// probeResult is one auth probe shared by the checks that judge it.
type probeResult struct {
	once sync.Once
	x    *mcp.Exchange
	err  error
}

func (s *authState) result(key string) *probeResult {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.memo == nil {
		s.memo = map[string]*probeResult{}
	}
	r := s.memo[key]
	if r == nil {
		r = &probeResult{}
		s.memo[key] = r
	}
	return r
}

func (e *Env) malformedProbe(ctx context.Context) (*mcp.Exchange, error) {
	r := e.authz.result("malformed")
	r.once.Do(func() { r.x, r.err = e.authProbe(ctx, probeMalformedToken, nil, "auth/malformed-token") })
	return r.x, r.err
}

// validProbe sends the run's own token: the control of the probes that
// change something about it.
func (e *Env) validProbe(ctx context.Context) (*mcp.Exchange, error) {
	r := e.authz.result("valid")
	r.once.Do(func() { r.x, r.err = e.authProbe(ctx, e.authz.token, nil, "valid token") })
	return r.x, r.err
}

// malformedToken: basic/authorization §Token Handling, "Invalid or expired
// tokens MUST receive a HTTP 401 response."
func malformedToken(ctx context.Context, e *Env) Outcome {
	x, err := e.malformedProbe(ctx)
	if x == nil || x.Status == 0 {
		return check.Errored(fmt.Errorf("the request with Authorization: Bearer %s: %s", probeMalformedToken, describeExchange(x, err)), nil)
	}
	if x.Status != http.StatusUnauthorized {
		return check.Failf(e.authEvidence(x), "Authorization: Bearer %s (no token anyone issued) got HTTP %d, want 401", probeMalformedToken, x.Status)
	}
	return check.Pass()
}

// invalidTokenError: OAuth 2.1 §5.3.1 (RFC 6750 §3): "If the protected
// resource request included an access token and failed authentication, the
// resource server SHOULD include the error attribute", invalid_token for a
// token that is "expired, revoked, malformed, or invalid for other reasons".
func invalidTokenError(ctx context.Context, e *Env) Outcome {
	x, _ := e.malformedProbe(ctx)
	if x == nil || x.Status != http.StatusUnauthorized {
		return check.Skip("the malformed token got no 401 to judge (see auth/malformed-token)")
	}
	c := bearerChallenge(x)
	if c == nil {
		return check.Fail("the 401 for an invalid token carries no WWW-Authenticate: Bearer challenge", e.authEvidence(x))
	}
	if c.Error() != "invalid_token" {
		got := "no error attribute"
		if c.Error() != "" {
			got = fmt.Sprintf("error=%q", c.Error())
		}
		return check.Failf(e.authEvidence(x), "the 401 for an invalid token has %s in its challenge (Bearer %s); the resource server should say error=\"invalid_token\"", got, describeParams(c.Params))
	}
	return check.Pass()
}

// expiredToken: basic/authorization §Token Handling, "Invalid or expired
// tokens MUST receive a HTTP 401 response." It needs a token that expires
// while the check can wait (maxExpiryWait, within the run's deadline):
// from the run's OAuth client (expires_in, or a JWT's exp), or the static
// token when it is a JWT. Skipped with the lifetime otherwise.
func expiredToken(ctx context.Context, e *Env) Outcome {
	s := e.authState(ctx)
	var token string
	var lifetime time.Duration
	if life, ok := jwtLifetime(s.token); ok && life > maxExpiryWait {
		// The authorization server's tokens live longer than the check
		// waits: no token request to learn it again.
		return check.Skip(fmt.Sprintf("the authorization server issues tokens valid for %s (the run's token); this check waits at most %s (issue shorter-lived tokens to the test client for it to run)", life.Round(time.Second), maxExpiryWait))
	}
	if a := e.opts.Auth; a != nil && a.Tokens != nil {
		t, err := e.mint(ctx, TokenRequest{})
		if err != nil {
			if o, ok := notVerified(err, "a token to let expire"); ok {
				return o
			}
			return check.Skip("no token could be had for the probe: " + err.Error())
		}
		token, lifetime = t.AccessToken, t.ExpiresIn
	} else {
		token = s.token
	}
	if exp, ok := jwtExpiry(token); ok {
		lifetime = time.Until(exp)
	}
	if token == "" {
		return check.Skip("no access token to let expire (" + errString(s.tokenErr) + ")")
	}
	if lifetime <= 0 {
		return check.Skip("the token's lifetime is unknown (no expires_in, not a JWT with exp)")
	}
	wait := lifetime + 2*time.Second
	limit := maxExpiryWait
	if dl, ok := ctx.Deadline(); ok {
		if room := time.Until(dl) - e.client.Timeout() - time.Second; room < limit {
			limit = room
		}
	}
	if wait > limit {
		return check.Skip(fmt.Sprintf("the authorization server issues tokens valid for %s; this check waits at most %s (issue shorter-lived tokens to the test client for it to run)", lifetime.Round(time.Second), limit.Round(time.Second)))
	}
	select {
	case <-time.After(wait):
	case <-ctx.Done():
		return check.Errored(ctx.Err(), nil)
	}
	x, err := e.authProbe(ctx, token, nil, "auth/expired-token")
	if x == nil || x.Status == 0 {
		return check.Errored(fmt.Errorf("the expired token: %s", describeExchange(x, err)), nil)
	}
	if x.Status != http.StatusUnauthorized {
		return check.Failf(e.authEvidence(x), "a token %s past its expiry got HTTP %d, want 401", (wait - lifetime).Round(time.Second), x.Status)
	}
	return check.PassInfo(fmt.Sprintf("token lifetime %s", lifetime.Round(time.Second)))
}

// jwtLifetime is exp − iat of a JWT, unverified (false without both).
func jwtLifetime(token string) (time.Duration, bool) {
	claims, ok := jwtClaims(token)
	if !ok {
		return 0, false
	}
	var c struct {
		Exp, Iat *float64
	}
	if json.Unmarshal(claims, &c) != nil || c.Exp == nil || c.Iat == nil || *c.Exp <= *c.Iat {
		return 0, false
	}
	return time.Duration(*c.Exp-*c.Iat) * time.Second, true
}

// jwtExpiry reads the exp claim of a JWT without verifying it.
func jwtExpiry(token string) (time.Time, bool) {
	claims, ok := jwtClaims(token)
	if !ok {
		return time.Time{}, false
	}
	var c struct {
		Exp *float64 `json:"exp"`
	}
	if json.Unmarshal(claims, &c) != nil || c.Exp == nil {
		return time.Time{}, false
	}
	return time.Unix(int64(*c.Exp), 0), true
}

func errString(err error) string {
	if err == nil {
		return "none known"
	}
	return err.Error()
}

// queryTokenRefused: basic/authorization §Token Requirements, "Access
// tokens MUST NOT be included in the URI query string"; OAuth 2.1 §5.1:
// "clients MUST NOT send the access token in a URI query parameter, and
// resource servers MUST ignore access tokens in a URI query parameter." A
// request whose only credential is in the query is a request without
// credentials: 401. Another 4xx refuses the token outright and passes
// with a note; accepting it, or a 5xx, fails. The token goes into a URL,
// which servers and proxies log: with an OAuth client it is one issued for
// the probe, with a static --header it is that token (README says so).
func queryTokenRefused(ctx context.Context, e *Env) Outcome {
	s := e.authState(ctx)
	if s.unauth == nil || s.unauth.Status != http.StatusUnauthorized {
		return check.Skip("the server does not refuse requests without credentials, so accepting one with a query token proves nothing")
	}
	// A token in a URL lands in access logs: with an OAuth client the probe
	// gets a token of its own, so that the run's stays out of them.
	tok, what := s.token, "the run's own token"
	if a := e.opts.Auth; a != nil && a.Tokens != nil {
		if t, err := e.mint(ctx, TokenRequest{}); err == nil {
			tok, what = t.AccessToken, "a token issued for the probe"
		}
	}
	if tok == "" {
		return check.Skip("no valid access token known (" + errString(s.tokenErr) + ")")
	}
	if ctl, err := e.authProbe(ctx, tok, nil, "auth/query-token-refused (control)"); ctl == nil || ctl.Status == 0 || ctl.Status >= 400 {
		return check.Skip(what + " is refused in the Authorization header (" + describeExchange(ctl, err) + "), so the query probe proves nothing")
	}
	x, err := e.queryTokenProbe(ctx, tok)
	if x == nil || x.Status == 0 {
		return check.Errored(fmt.Errorf("the query-string token: %s", describeExchange(x, err)), nil)
	}
	switch {
	case x.Status < 400:
		return check.Failf(e.authEvidence(x), "a valid token sent as ?access_token= with no Authorization header was accepted (HTTP %d); resource servers MUST ignore tokens in the query", x.Status)
	case x.Status >= 500:
		return check.Failf(e.authEvidence(x), "a token sent only as ?access_token= got HTTP %d: the server failed instead of ignoring it (which leaves the request without credentials: 401)", x.Status)
	case x.Status != http.StatusUnauthorized:
		// Refused outright (400 invalid_request, as RFC 6750 §3.1 allows
		// for an unsupported method): the token was not accepted, which is
		// what the rule protects.
		return check.PassInfo(fmt.Sprintf("refused with HTTP %d rather than ignored (401)", x.Status))
	}
	return check.Pass()
}

// otherAudienceRefused: basic/authorization §Token Handling, "MCP servers
// MUST validate that access tokens were issued specifically for them as
// the intended audience, according to RFC 8707 Section 2", and
// security-considerations.mdx §Access Token Privilege Restriction: "MCP
// servers MUST only accept tokens specifically intended for themselves and
// MUST reject tokens that do not include them in the audience claim"; an
// invalid token "MUST receive a HTTP 401 response". Resource indicators
// are whole URIs (RFC 8707 §2), so two tokens are presented: one for a
// sibling path on the server's own host (siblingResource), which a server
// comparing the host alone accepts, and one for another host
// (--oauth-other-resource, else DefaultOtherResource). A resource the
// authorization server issues no token for is said in the info; the check
// skips when it issues neither.
func otherAudienceRefused(ctx context.Context, e *Env) Outcome {
	a := e.opts.Auth
	if a == nil || a.Tokens == nil {
		return check.Skip("the run has no OAuth client (--oauth-*) to ask for a token for another resource")
	}
	other := a.OtherResource
	if other == "" {
		other = DefaultOtherResource
	}
	self := e.client.Target().String()
	var resources []string
	if sib := siblingResource(self); sib != "" {
		resources = append(resources, sib)
	}
	if !oauth.SameResource(other, self) {
		resources = append(resources, other)
	}
	if len(resources) == 0 {
		return check.Skip("the other resource " + other + " is this server")
	}
	var notIssued, refused, bad []string
	var ev map[string]any
	for _, res := range resources {
		t, err := e.mint(ctx, TokenRequest{Resource: res})
		if err != nil {
			if o, ok := notVerified(err, "a token for "+res); ok {
				return o
			}
			notIssued = append(notIssued, fmt.Sprintf("%s (%v)", res, err))
			continue
		}
		aud, isJWT := jwtAudiences(t.AccessToken)
		if isJWT && slices.ContainsFunc(aud, func(x string) bool { return oauth.SameResource(x, self) }) {
			notIssued = append(notIssued, fmt.Sprintf("%s (the authorization server ignored the resource: the token's aud %v includes this server)", res, aud))
			continue
		}
		x, perr := e.authProbe(ctx, t.AccessToken, nil, "auth/other-audience-refused")
		if x == nil || x.Status == 0 {
			return check.Errored(fmt.Errorf("the token requested for %s: %s", res, describeExchange(x, perr)), nil)
		}
		what := "an opaque token"
		if isJWT {
			what = fmt.Sprintf("a JWT with aud %v", aud)
		}
		switch {
		case x.Status == http.StatusUnauthorized:
			refused = append(refused, fmt.Sprintf("%s for %s: 401", what, res))
			continue
		case x.Status < 400:
			bad = append(bad, fmt.Sprintf("a token requested for %s (%s) was accepted: HTTP %d", res, what, x.Status))
		default:
			bad = append(bad, fmt.Sprintf("a token requested for %s (%s) got HTTP %d, not 401", res, what, x.Status))
		}
		if ev == nil {
			ev = check.With(e.authEvidence(x), "otherResource", res)
		}
	}
	if len(bad) > 0 {
		msg := strings.Join(bad, "; ") + "; a token not issued for this server (" + self + ") is invalid here: it must validate the whole audience URI (RFC 8707 §2) and answer 401"
		return check.Fail(msg, ev)
	}
	if len(refused) == 0 {
		return check.Skip("the authorization server issues no token for another resource: " + strings.Join(notIssued, "; "))
	}
	info := strings.Join(refused, "; ")
	if len(notIssued) > 0 {
		info += "; not probed: " + strings.Join(notIssued, "; ")
	}
	return check.PassInfo(info)
}

// siblingResource is a resource on the server's own origin that is not
// the server: its path replaced by /mcp-eval-probe-sibling/ followed by the
// endpoint's last segment (no string prefix of the server's path but "/",
// so that a prefix-matching server is not what it catches). "" for a URL
// that does not parse.
func siblingResource(self string) string {
	u, err := url.Parse(self)
	if err != nil || u.Host == "" {
		return ""
	}
	last := path.Base(u.Path)
	if last == "/" || last == "." {
		last = "mcp"
	}
	return u.Scheme + "://" + u.Host + "/mcp-eval-probe-sibling/" + last
}

// notVerified turns a token request that failed because the assertion
// was presented before (an authorization server that accepts each
// assertion once, RFC 7523 §3 jti) into an errored check: the check could
// not run, which the tally and the comment show, where a skip of a hard
// check would pass unseen.
func notVerified(err error, what string) (Outcome, bool) {
	if !errors.Is(err, oauth.ErrAssertionReused) {
		return Outcome{}, false
	}
	return check.Errored(fmt.Errorf("not verified: %s could not be had: %w", what, err), nil), true
}

func containsAll(have, want []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}

// noTokenEcho: security-considerations.mdx §Token Theft, "Attackers who
// obtain tokens stored by the client, or tokens cached or logged on the
// server can access protected resources", and "Clients and servers MUST
// implement secure token storage and follow OAuth best practices". The spec
// has no sentence on echoes; an answer that repeats a credential puts it
// where proxies, logs and client UIs keep answers, so mcp-eval reports it
// (a warning). Runs after the other auth checks and scans every answer
// they got (headers and bodies) for every token and credential the run
// sent, in every spelling the redactor masks; the evidence masks them.
func noTokenEcho(ctx context.Context, e *Env) Outcome {
	s := e.authState(ctx)
	if s.token != "" {
		_, _ = e.validProbe(ctx)
	}
	_, _ = e.malformedProbe(ctx)
	s.mu.Lock()
	probes := append([]sentProbe(nil), s.sent...)
	secrets := append([]string{s.token}, s.minted...)
	s.mu.Unlock()
	if a := e.opts.Auth; a != nil {
		secrets = append(secrets, a.Secrets...)
	}
	var found []map[string]any
	for _, p := range probes {
		creds := append(append([]string(nil), p.Tokens...), secrets...)
		if where := echoIn(p.X, creds); where != "" {
			found = append(found, map[string]any{"probe": p.Check, "where": where, "answer": e.authEvidence(p.X)})
		}
	}
	if len(found) > 0 {
		return check.Failf(e.maskTokens(map[string]any{"echoes": found}), "%d of %d answers repeat a credential the request carried (first: %s, in %s); answers should never carry tokens or secrets",
			len(found), len(probes), found[0]["probe"], found[0]["where"])
	}
	return check.PassInfo(fmt.Sprintf("%d answers scanned", len(probes)))
}

// echoIn names where an answer carries one of creds in any spelling (a
// header name, or "body"), "" if nowhere.
func echoIn(x *mcp.Exchange, creds []string) string {
	if x == nil {
		return ""
	}
	for _, c := range creds {
		if len(c) < 8 {
			continue
		}
		for _, sp := range redact.Spellings(c) {
			for k, vs := range x.Header {
				for _, v := range vs {
					if strings.Contains(v, sp) {
						return "header " + k
					}
				}
			}
			if strings.Contains(string(x.Body), sp) {
				return "body"
			}
			for _, m := range x.Messages {
				if strings.Contains(string(m.Raw), sp) {
					return "body"
				}
			}
		}
	}
	return ""
}

// describeParams renders challenge parameters in a stable order.
func describeParams(p map[string]string) string {
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s=%q", k, p[k])
	}
	return b.String()
}
