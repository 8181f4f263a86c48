package conformance

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcp-eval/mcp-eval/engine/check"
	"github.com/mcp-eval/mcp-eval/mcp"
)

// A server that answers 401 without its key and advertises no MCP
// authorization (no resource_metadata in its challenge, no
// protected-resource metadata at the well-known URIs), reached with a
// static credential (--header 'Authorization: …'), is an API-key server:
// basic/authorization §Protocol Requirements, "Authorization is OPTIONAL
// for MCP implementations. When supported: Implementations using an
// HTTP-based transport SHOULD conform to this specification." Not
// implementing it is a SHOULD-level finding (auth/mcp-authorization), and
// the checks of the chapter do not apply: each skips with
// noMCPAuthorization. A server that advertises MCP authorization is judged
// by the whole chapter, whatever credential the run has.

// noMCPAuthorization is the skip reason of the auth checks on such a server.
const noMCPAuthorization = "this server does not implement MCP authorization; it was reached with a static credential (see auth/mcp-authorization)"

// detectStaticCredential decides, once discovery found no metadata, whether
// the server is reached with a static credential instead: the run has no
// OAuth client, its --header carries an Authorization, and a request with
// the run's own headers is served. It returns the finding's text ("" when
// the chapter is judged as usual).
func (e *Env) detectStaticCredential(ctx context.Context, s *authState) string {
	if s.prm != nil || s.prmVia == "resource_metadata" {
		return "" // MCP authorization is advertised: judge the chapter
	}
	if a := e.opts.Auth; a != nil && a.Tokens != nil {
		return "" // the user expects OAuth: its absence is a failure
	}
	ht, ok := e.client.Target().(*mcp.HTTPTarget)
	if !ok || ht.Header.Get("Authorization") == "" {
		return ""
	}
	scheme, _, _ := strings.Cut(ht.Header.Get("Authorization"), " ")
	x, _, err := e.do(ctx, e.modern, e.modern.NewCall("server/discover", nil))
	e.record("auth/mcp-authorization (the run's own headers)", x, s.token)
	if x == nil || x.Status == 0 || x.Status >= 400 {
		// The static credential does not open the server either: nothing
		// says it is an API-key server, so judge the chapter.
		_ = err
		return ""
	}
	return fmt.Sprintf("the server refuses a request without credentials (%s) but advertises no MCP authorization: no resource_metadata in a Bearer challenge, and the well-known URIs answer %s; it was reached with a static credential (Authorization: %s …, HTTP %d)",
		describeExchange(s.unauth, s.unauthErr), strings.Join(s.prmTried, "; "), scheme, x.Status)
}

// mcpAuthorizationPrepare runs auth/mcp-authorization wherever the group
// applies, and on a server reached with a static credential.
func mcpAuthorizationPrepare(ctx context.Context, e *Env) string {
	s := e.authState(ctx)
	if s.noMCPAuth != "" {
		return ""
	}
	return s.skip
}

// mcpAuthorization: basic/authorization §Protocol Requirements,
// "Authorization is OPTIONAL for MCP implementations. When supported:
// Implementations using an HTTP-based transport SHOULD conform to this
// specification." A protected server reached with a static credential
// that advertises no MCP authorization fails this SHOULD (a warning); one
// that advertises it passes (the chapter's other checks judge how well);
// without metadata and without a static credential that opens it,
// auth/resource-metadata-discoverable judges (a MUST).
func mcpAuthorization(ctx context.Context, e *Env) Outcome {
	s := e.authState(ctx)
	switch {
	case s.noMCPAuth != "":
		return check.Failf(e.authEvidence(s.unauth), "this server does not implement MCP authorization; it was reached with a static credential. %s. Authorization is OPTIONAL, and an HTTP server that supports it SHOULD conform to the authorization chapter (protected-resource metadata, OAuth 2.1 bearer tokens)", s.noMCPAuth)
	case s.prm != nil:
		return check.PassInfo("protected-resource metadata at " + s.prm.URL)
	case s.prmVia == "resource_metadata":
		return check.PassInfo("the challenge names resource_metadata (" + s.challenge.ResourceMetadata() + "); see auth/resource-metadata-discoverable")
	}
	return check.Skip("no protected-resource metadata and no static credential that opens the server: auth/resource-metadata-discoverable judges it")
}
