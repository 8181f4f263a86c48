package conformance

import (
	"context"
	"fmt"

	"github.com/mcp-eval/mcp-eval/engine/check"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/report"
)

func eraChecks() []*Check {
	return []*Check{
		{ID: "era/modern", Reqs: []string{"base/support-core"}, Level: report.LevelMust, Revision: revModern, SpecRef: spec("basic/versioning"),
			Title: "the server speaks 2026-07-28",
			Once:  true,
			Run: func(ctx context.Context, e *Env) Outcome {
				p := e.client.Probe()
				switch e.era() {
				case mcp.EraModern:
					return check.PassInfo(p.Reason)
				case mcp.EraLegacy:
					msg := fmt.Sprintf("the server speaks only the initialize-based %s revision (%s); see the migration list", e.client.Version(), p.Reason)
					ev := check.Protocol.Of(p.Discover)
					if e.legacyWhy != "" {
						// The probe had taken it for modern; the
						// DiscoverResult itself says otherwise.
						msg = "this endpoint does not serve 2026-07-28: " + e.legacyWhy + ", so it is a legacy endpoint for this revision; see the migration list"
						ev = check.Protocol.Of(e.modern.Probe().Discover)
					}
					if h := e.legacyHint(); h != "" {
						msg += ". " + h
					}
					return check.Fail(msg, check.With(ev, "migration", migration(e)))
				}
				msg := "the server answered neither server/discover nor initialize"
				if p.Reason != "" {
					msg += ": " + p.Reason
				}
				if p.InitializeErr != nil {
					msg += "; initialize: " + p.InitializeErr.Error()
				}
				return check.Fail(msg, check.Protocol.Of(p.Discover))
			}},
		{ID: "era/legacy-handshake", Reqs: []string{"guidance/legacy-initialize"}, Level: report.LevelMust, Revision: revLegacy, SpecRef: "https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle",
			Title: "initialize at 2025-11-25 succeeds",
			Once:  true,
			Run: func(ctx context.Context, e *Env) Outcome {
				if e.era() != mcp.EraLegacy {
					return check.Fail("the initialize handshake did not succeed", check.Protocol.Of(e.client.Probe().Initialize))
				}
				return check.PassInfo("negotiated " + e.client.Version())
			}},
	}
}

// migration lists what a legacy server must change to speak 2026-07-28
// (changelog.mdx; basic/versioning.mdx).
func migration(e *Env) []string {
	var out []string
	if h := e.legacyHint(); h != "" {
		out = append(out, h)
	}
	out = append(out,
		"Implement server/discover (required): answer with supportedVersions, capabilities, resultType, ttlMs and cacheScope.",
		"Drop the initialize handshake and notifications/initialized: every request carries _meta io.modelcontextprotocol/protocolVersion and clientCapabilities; answer a missing key with -32602 (HTTP 400).",
		"Serve every request statelessly: no Mcp-Session-Id; tools/list, prompts/list and resources/list must not vary per connection.",
		"Add resultType to every result, and ttlMs with cacheScope to server/discover, the list results and resources/read.",
		"Answer an unsupported protocol version with -32022 and data.supported/data.requested (HTTP 400).",
		"ping, logging/setLevel and resources/subscribe/unsubscribe are removed: answer -32601 (HTTP 404); logging is opted into per request with _meta logLevel, subscriptions through subscriptions/listen.",
		"Server-initiated requests (elicitation/create, sampling/createMessage, roots/list) become input requests in an input_required result (multi round-trip requests).",
		"If you implemented the drafts' error codes: -32001 → -32020 (header mismatch), -32003 → -32021 (missing client capability), -32004 → -32022 (unsupported version).",
		"-32042 (URL elicitation required) is removed: return input_required with an elicitation/create request in url mode.",
	)
	if e.declares("resources") {
		out = append(out, "Resource not found: answer -32602 (with data.uri), no longer -32002.")
	}
	if e.kind == "http" {
		out = append(out, "Streamable HTTP: require and validate MCP-Protocol-Version, Mcp-Method and Mcp-Name against the body (HTTP 400, -32020); answer GET and DELETE with 405.")
	}
	return out
}
