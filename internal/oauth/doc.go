// Package oauth is mcp-eval's OAuth client for reaching a protected MCP
// server over HTTP (basic/authorization of revision 2026-07-28): the
// WWW-Authenticate challenge, protected-resource metadata discovery (RFC
// 9728), authorization server metadata discovery (RFC 8414, OpenID Connect
// Discovery 1.0) with issuer validation, the canonical server URI (RFC
// 8707), and the token request of the client credentials grant (the
// oauth-client-credentials extension) and of the jwt-bearer grant (RFC
// 7523; workload identity federation, SEP-1933), with the Actions
// runner's OIDC token as the assertion. It imports only the standard
// library: mcp, which must not know OAuth, takes a Session as its
// mcp.Authorizer, and the checks of the auth group use the same pieces.
//
// Everything a server or an authorization server sends is untrusted: each
// request has a deadline and a size limit (Fetcher), no redirect is
// followed, parsers never panic, and a credential is sent only where it
// belongs (the access token to the server's origin, client credentials to
// the token endpoint, the runner's request token to the runner), over
// HTTPS unless to loopback.
//
// # API for authx
//
// The auth checks need no Session to look at a server: parse the 401's
// challenge with BearerChallenge or ParseChallenges (Challenge.Params by
// lower-cased name; ResourceMetadata, Scope, Error, ErrorDescription;
// Issues lists what the grammar does not allow but was accepted), list the
// candidate URIs with ResourceMetadataURIs and AuthServerMetadataURIs
// (the revision's order, path-inserted first), and fetch with a Fetcher:
// DiscoverResource(ctx, serverURL, &challenge) and
// DiscoverAuthServer(ctx, issuer) return the parsed metadata
// (ResourceMetadata, ServerMetadata) with Document.Raw, Document.URL and
// Document.Tried (every URI tried, with status, body and why it failed);
// a *DiscoveryError carries the same attempts when nothing was found
// (IssuerMismatch reports a document that named another issuer). The
// canonical URI is CanonicalURI; SameResource and Covers compare resource
// identifiers; IsLoopback and RequireSecure say where plain HTTP is
// allowed. With credentials, the run's *Session (pipeline builds it from
// the --oauth-* flags; conformance gets it in its options) holds what its
// discovery found (Challenge, ResourceDiscovery, ServerDiscovery) and
// RequestToken(ctx, TokenOptions{Resource, Scope, Audience}) asks the same
// authorization server for another token without replacing the run's: a
// nil field keeps the run's value, a pointer to "" leaves the parameter
// out; a refusal is a *TokenError with the endpoint's Code (error) and
// Description (error_description). Every token so obtained is already
// masked (OnSecret → redact.Redactor.Add). The run's token rides on every
// request of the mcp client unless the call sets its own Authorization
// header (a malformed or foreign token) or lists "Authorization" in
// mcp.Call.Omit (an unauthenticated probe); such calls are never retried.
// Fetcher.RequestToken sends a hand-built TokenRequest when a check needs
// a request the Session would not make.
package oauth
