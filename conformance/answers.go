package conformance

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcp-eval/mcp-eval/engine/check"
	"github.com/mcp-eval/mcp-eval/internal/clip"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/report"
)

// expectError judges an answer that must be a JSON-RPC error with code want
// and, on HTTP, the status wantStatus.
func (e *Env) expectError(x *mcp.Exchange, err error, what string, wantStatus, want int) Outcome {
	if err != nil {
		return check.Errored(err, check.Protocol.Of(x))
	}
	if x.Response == nil {
		if x.Status != 0 {
			if wantStatus == 0 {
				return check.Failf(check.Protocol.Of(x), "%s: HTTP %d with no JSON-RPC error body (%s), want error %d", what, x.Status, bodyExcerpt(x), want)
			}
			return check.Failf(check.Protocol.Of(x), "%s: HTTP %d with no JSON-RPC error body (%s), want HTTP %d with error %d", what, x.Status, bodyExcerpt(x), wantStatus, want)
		}
		return check.Failf(check.Protocol.Of(x), "%s: no JSON-RPC answer, want error %d", what, want)
	}
	if x.Response.Error == nil {
		return check.Failf(check.Protocol.Of(x), "%s: the server accepted the request (answered with a result), want error %d", what, want)
	}
	if got := x.Response.Error.Code; got != want {
		return check.Failf(check.Protocol.Of(x), "%s: error %d%s, want %d", what, got, codeHint(got), want)
	}
	if x.Status != 0 && wantStatus != 0 && x.Status != wantStatus {
		return check.Failf(check.Protocol.Of(x), "%s: error %d with HTTP %d, want HTTP %d", what, want, x.Status, wantStatus)
	}
	return check.Pass()
}

// cameBack says what came back instead of a JSON-RPC message: on HTTP the
// status, content type and first bytes; on stdio that nothing readable
// answered. It says only what the transport saw: an HTTP request is
// known by the headers it was sent with.
func cameBack(x *mcp.Exchange) string {
	switch {
	case x == nil:
		return "nothing came back"
	case x.Status != 0:
		return fmt.Sprintf("HTTP %d, %s", x.Status, bodyExcerpt(x))
	case x.SentHeader != nil:
		return "no HTTP answer"
	case len(x.Invalid) > 0:
		return "stdout had no answer but: " + clip.Bytes(strings.Join(x.Invalid, "; "), 200)
	}
	return "no answer on stdout"
}

// bodyExcerpt says what came back when an answer was no JSON-RPC message:
// the content type and the first bytes of the body.
func bodyExcerpt(x *mcp.Exchange) string {
	if x == nil {
		return "nothing"
	}
	b := strings.TrimSpace(string(x.Body))
	ct := x.ContentType
	if ct == "" {
		ct = "no content type"
	}
	if b == "" {
		return ct + ", empty body"
	}
	return fmt.Sprintf("%s: %q", ct, clip.Bytes(b, 120))
}

// codeHint explains codes that come from drafts or older revisions.
func codeHint(code int) string {
	switch code {
	case -32001:
		return " (the draft-only HeaderMismatch code; released as -32020)"
	case -32003:
		return " (the draft-only MissingRequiredClientCapability code; released as -32021)"
	case -32004:
		return " (the draft-only UnsupportedProtocolVersion code; released as -32022)"
	case mcp.CodeLegacyResourceNotFound:
		return " (the 2025-11-25 resource-not-found code, which 2026-07-28 servers MUST NOT emit)"
	case mcp.CodeLegacyURLElicitationRequired:
		return " (removed in 2026-07-28)"
	}
	return ""
}

// legacyAmbiguous relaxes a missing-_meta verdict on stdio for a dual-era
// server. Over stdio the protocol version in _meta is the only sign of the
// era, and a dual-era server chooses the era per request
// (basic/versioning.mdx §Dual-era servers); a request without it may be
// served as a legacy request, where server/discover does not exist before
// initialize. Over HTTP the MCP-Protocol-Version header names the era, so
// there the rule applies in full.
func (e *Env) legacyAmbiguous(x *mcp.Exchange, o Outcome) Outcome {
	if o.Status != report.StatusFail || e.kind != "stdio" || !e.dualEra() {
		return o
	}
	if rerr := x.RPCError(); rerr != nil && rerr.Code == mcp.CodeMethodNotFound {
		return check.PassInfo("served as a legacy request (-32601): without a protocol version a dual-era stdio server cannot tell the era")
	}
	return o
}

// dualEra reports whether server/discover lists a legacy revision too.
func (e *Env) dualEra() bool {
	if e.discover == nil {
		return false
	}
	for _, v := range e.discover.SupportedVersions {
		if v < mcp.LatestVersion {
			return true
		}
	}
	return false
}

// httpStatus returns s on HTTP and 0 (meaning "no status") on stdio.
func (e *Env) httpStatus(s int) int {
	if e.kind == "http" {
		return s
	}
	return 0
}

func orAbsent(b []byte) string {
	if b == nil {
		return "absent"
	}
	return clip.Bytes(string(b), 40)
}

// needs is the Skip of a check that applies only when the server declares
// capability.
func needs(capability string) func(*Env) string {
	return func(e *Env) string {
		if !e.declares(capability) {
			return "the server does not declare the " + capability + " capability"
		}
		return ""
	}
}

// vehicle is the method of a probe that needs any answer the server gives
// (its id, its jsonrpc member, its content type, that the server is still
// there): server/discover when the server answered it on the client in
// use, a small answer, else tools/list. The first page of tools/list is
// the whole list on a server that pages by 1 000: refetched by a dozen
// probes in every run, it was most of the memory of a big server's run;
// what the list holds is judged on the run's walk instead.
func (e *Env) vehicle() string {
	if e.discover != nil && e.era() == mcp.EraModern && e.client == e.modern {
		return "server/discover"
	}
	return "tools/list"
}

// firstPage sends e.vehicle's request on the run's client, edited first
// when edit is set, and returns the exchange, or the errored outcome of a
// request that got no answer.
func (e *Env) firstPage(ctx context.Context, edit func(*mcp.Call)) (*mcp.Exchange, *Outcome) {
	call := e.client.NewCall(e.vehicle(), nil)
	if edit != nil {
		edit(call)
	}
	x, err := e.client.Do(ctx, call)
	if err != nil {
		o := check.Errored(err, check.Protocol.Of(x))
		return x, &o
	}
	return x, nil
}
