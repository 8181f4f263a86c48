package conformance

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/mcp-eval/mcp-eval/engine/check"
	"github.com/mcp-eval/mcp-eval/internal/oauth"
	"github.com/mcp-eval/mcp-eval/mcp"
)

// scopedProbe is one request made with a valid token that lacks a scope
// the server needs: what was asked, what came back. auth/insufficient-scope
// judges the refusal, auth/single-challenge re-authorizes from it.
type scopedProbe struct {
	// out, when set, is why no probe was made (a skip, or an errored
	// check when a single-use assertion was spent).
	out *Outcome
	// required are the scopes the 401 challenge names (none: the server
	// advertises no scope, and the probe token carries no scope or
	// --oauth-scope-insufficient).
	required []string
	// asked is the scope requested for the probe token ("" with none);
	// label says it in words.
	asked, label string
	tok          *Token
	x            *mcp.Exchange
	err          error
}

// had is the scope the probe token carries: the one granted when the
// token response says, else the one asked for (RFC 6749 §5.1: a response
// leaves scope out when it is the one requested).
func (p *scopedProbe) had() []string {
	if p.tok != nil && p.tok.Scope != "" {
		return strings.Fields(p.tok.Scope)
	}
	return strings.Fields(p.asked)
}

// scopeProbe makes the under-scoped probe once. A scope is known to be
// required when the server's 401 challenge names it (scope=, "required to
// satisfy the current request"); the probe token carries
// --oauth-scope-insufficient, or a scope of scopes_supported outside the
// required ones. A server whose challenge names none gets a token with
// --oauth-scope-insufficient, else one requested with no scope.
func (e *Env) scopeProbe(ctx context.Context) *scopedProbe {
	s := e.authState(ctx)
	s.scopedOnce.Do(func() { s.scoped = e.makeScopeProbe(ctx, s) })
	return &s.scoped
}

func (e *Env) makeScopeProbe(ctx context.Context, s *authState) scopedProbe {
	skip := func(reason string) scopedProbe { o := check.Skip(reason); return scopedProbe{out: &o} }
	a := e.opts.Auth
	if a == nil || a.Tokens == nil {
		return skip("the run has no OAuth client (--oauth-*) to ask for a token with fewer scopes")
	}
	var p scopedProbe
	if s.challenge != nil {
		p.required = strings.Fields(s.challenge.Scope())
	}
	req := TokenRequest{}
	switch {
	case len(p.required) == 0 && a.InsufficientScope == "":
		req.NoScope, p.label = true, "no scope"
	case len(p.required) == 0:
		req.Scope, p.asked, p.label = a.InsufficientScope, a.InsufficientScope, fmt.Sprintf("scope %q only", a.InsufficientScope)
	default:
		scope := a.InsufficientScope
		if scope == "" {
			supported, _ := stringList(s.prmJSON, "scopes_supported")
			for _, sc := range supported {
				if !slices.Contains(p.required, sc) {
					scope = sc
					break
				}
			}
		}
		if scope == "" {
			return skip(fmt.Sprintf("no scope outside the required %v to ask for (scopes_supported has none; name one with --oauth-scope-insufficient)", p.required))
		}
		req.Scope, p.asked, p.label = scope, scope, fmt.Sprintf("scope %q", scope)
	}
	t, err := e.mint(ctx, req)
	if err != nil {
		if o, ok := notVerified(err, "a token with "+p.label); ok {
			return scopedProbe{out: &o}
		}
		if len(p.required) == 0 {
			return skip(fmt.Sprintf("the server's 401 challenge names no scope, and the authorization server issues no token with %s: %v", p.label, err))
		}
		return skip(fmt.Sprintf("the authorization server issues no token with %s: %v", p.label, err))
	}
	p.tok = t
	if granted := strings.Fields(t.Scope); len(p.required) > 0 && len(granted) > 0 && containsAll(granted, p.required) {
		return skip(fmt.Sprintf("asked for %s, the authorization server granted %q, which covers the required %v", p.label, t.Scope, p.required))
	}
	p.x, p.err = e.authProbe(ctx, t.AccessToken, nil, "auth/insufficient-scope")
	return p
}

// insufficientScope: basic/authorization §Runtime Insufficient Scope
// Errors, "When a client makes a request with an access token with
// insufficient scope during runtime operations, the server SHOULD respond
// with: HTTP 403 Forbidden … WWW-Authenticate header with the Bearer scheme
// and … error="insufficient_scope" … scope="required_scope1 …" …
// resource_metadata". The probe is scopeProbe's.
func insufficientScope(ctx context.Context, e *Env) Outcome {
	p := e.scopeProbe(ctx)
	if p.out != nil {
		return *p.out
	}
	if len(p.required) == 0 {
		return unadvertisedScope(e, p)
	}
	x := p.x
	if x == nil || x.Status == 0 {
		return check.Errored(fmt.Errorf("the token with scope %q: %s", p.asked, describeExchange(x, p.err)), nil)
	}
	ev := check.With(e.authEvidence(x), "tokenScope", p.asked)
	if x.Status < 400 {
		return check.Failf(ev, "a token with scope %q only was accepted (HTTP %d), although the server's challenge requires %v", p.asked, x.Status, p.required)
	}
	c, missing := insufficientScopeAnswer(x)
	if len(missing) > 0 {
		return check.Failf(ev, "a token with scope %q only (the challenge requires %v): %s", p.asked, p.required, strings.Join(missing, "; "))
	}
	info := "403 insufficient_scope, scope=" + c.Scope()
	if c.ResourceMetadata() == "" {
		info += "; no resource_metadata in the 403 challenge (the spec lists it, for consistency with 401 responses)"
	}
	return check.PassInfo(info)
}

// unadvertisedScope is auth/insufficient-scope for a server whose 401
// challenge names no scope. Accepted, nothing is known to be required (a
// skip saying so); refused, the refusal is judged as the runtime
// insufficient-scope rule asks (403, error="insufficient_scope", scope=
// naming what is needed).
func unadvertisedScope(e *Env, p *scopedProbe) Outcome {
	x := p.x
	if x == nil || x.Status == 0 {
		return check.Errored(fmt.Errorf("the token with %s: %s", p.label, describeExchange(x, p.err)), nil)
	}
	if x.Status < 400 {
		granted := ""
		if p.tok.Scope != "" {
			granted = fmt.Sprintf(" (granted %q)", p.tok.Scope)
		}
		return check.Skip(fmt.Sprintf("the server's 401 challenge names no scope (scope=), and a token with %s%s was accepted (HTTP %d): no scope is known to be required", p.label, granted, x.Status))
	}
	ev := check.With(e.authEvidence(x), "tokenScope", p.label)
	c, missing := insufficientScopeAnswer(x)
	if len(missing) > 0 {
		return check.Failf(ev, "a valid token with %s was refused, though the server advertises no required scope (no scope= in its 401 challenge): %s", p.label, strings.Join(missing, "; "))
	}
	return check.PassInfo(fmt.Sprintf("a token with %s: 403 insufficient_scope, scope=%s (a scope its 401 challenge does not name)", p.label, c.Scope()))
}

// insufficientScopeAnswer reads the refusal of an under-scoped token: its
// Bearer challenge, and what it lacks of the answer RFC 6750 §3.1 asks for
// (HTTP 403, error="insufficient_scope", scope= naming what is needed).
func insufficientScopeAnswer(x *mcp.Exchange) (c *oauth.Challenge, missing []string) {
	c = bearerChallenge(x)
	if x.Status != http.StatusForbidden {
		missing = append(missing, fmt.Sprintf("HTTP %d, not 403", x.Status))
	}
	switch {
	case c == nil:
		missing = append(missing, "no WWW-Authenticate: Bearer challenge")
	default:
		if c.Error() != "insufficient_scope" {
			missing = append(missing, fmt.Sprintf("error=%q, not \"insufficient_scope\"", c.Error()))
		}
		if c.Scope() == "" {
			missing = append(missing, "no scope= naming what is needed")
		}
	}
	return c, missing
}

// singleChallenge: basic/authorization §Runtime Insufficient Scope Errors
// as SEP-2350 left it (https://github.com/modelcontextprotocol/modelcontextprotocol/pull/2350):
// "servers SHOULD include the scopes needed to satisfy the current
// operation in the scope parameter", and "Whatever scope-inclusion
// strategy a server adopts, servers SHOULD include all scopes required for
// the current operation in a single challenge". The Step-Up Authorization
// Flow has the client re-authorize with the union of the scopes it had and
// those the challenge names; the check does what such a client does from
// the 403 of auth/insufficient-scope's probe and repeats the request. It
// fails when the 403 carries several Bearer challenges, when its scope=
// names nothing the refused token lacked (re-authorizing cannot help: the
// scopes a token was granted are not the ones an operation needs), and
// when the token with every challenged scope is refused for scope again
// (the first challenge did not name all the operation needs). A warning:
// the spec lets a server decide scopes per request, so a second challenge
// is not a broken contract, but it costs the user a second consent.
func singleChallenge(ctx context.Context, e *Env) Outcome {
	p := e.scopeProbe(ctx)
	if p.out != nil {
		return *p.out
	}
	x := p.x
	c := bearerChallenge(x)
	// A 403 whose Bearer challenge names a scope is one to re-authorize
	// from even without error="insufficient_scope" (auth/insufficient-scope
	// reports that): what it names is still what the server says the
	// operation needs.
	if x == nil || x.Status != http.StatusForbidden || c == nil || (c.Error() != "" && c.Error() != "insufficient_scope") || c.Scope() == "" {
		return check.Skip(fmt.Sprintf("the token with %s got %s, not a 403 challenge naming a scope to re-authorize with (see auth/insufficient-scope)", p.label, describeExchange(x, p.err)))
	}
	ev := check.With(e.authEvidence(x), "tokenScope", strings.Join(p.had(), " "))
	if n := bearerCount(x); n > 1 {
		return check.Failf(ev, "the 403 for a token with %s carries %d Bearer challenges; the scopes the operation needs belong in a single challenge, so that one re-authorization is enough", p.label, n)
	}
	had, challenged := p.had(), strings.Fields(c.Scope())
	if len(had) > 0 && containsAll(had, challenged) {
		return check.Failf(ev, "the 403 challenge names scope=%q, all of which the refused token already had (%q): a client that re-authorizes with them gets the same refusal; the challenge should name the scopes the operation needs", c.Scope(), strings.Join(had, " "))
	}
	union := had
	for _, sc := range challenged {
		if !slices.Contains(union, sc) {
			union = append(slices.Clip(union), sc)
		}
	}
	scope := strings.Join(union, " ")
	t, err := e.mint(ctx, TokenRequest{Scope: scope})
	if err != nil {
		if o, ok := notVerified(err, fmt.Sprintf("a token with scope %q", scope)); ok {
			return o
		}
		return check.Skip(fmt.Sprintf("the authorization server issues no token with the scope a client re-authorizes with, %q: %v", scope, err))
	}
	if granted := strings.Fields(t.Scope); len(granted) > 0 && !containsAll(granted, challenged) {
		return check.Skip(fmt.Sprintf("asked for scope %q, the authorization server granted %q, which lacks part of the challenged %q", scope, t.Scope, c.Scope()))
	}
	y, yerr := e.authProbe(ctx, t.AccessToken, nil, "auth/single-challenge")
	if y == nil || y.Status == 0 {
		return check.Errored(fmt.Errorf("the token with scope %q: %s", scope, describeExchange(y, yerr)), nil)
	}
	if y.Status < 300 {
		return check.PassInfo(fmt.Sprintf("re-authorized as a client does after the 403 (scope %q: the refused token's and the challenge's), the request got HTTP %d", scope, y.Status))
	}
	if c2 := bearerChallenge(y); y.Status == http.StatusForbidden && c2 != nil && c2.Error() == "insufficient_scope" {
		ev := check.With(check.With(e.authEvidence(y), "firstChallenge", x.Header.Values("WWW-Authenticate")), "tokenScope", scope)
		return check.Failf(ev, "after the 403 challenge named scope=%q, a token with scope %q (the refused token's and every challenged one) was refused for scope again, now scope=%q: the first challenge did not include all scopes the operation needs", c.Scope(), scope, c2.Scope())
	}
	return check.Skip(fmt.Sprintf("the token with the challenged scopes (%q) got %s, neither an answer nor another insufficient_scope challenge", scope, describeExchange(y, yerr)))
}

// bearerCount counts the Bearer challenges of an answer's
// WWW-Authenticate fields.
func bearerCount(x *mcp.Exchange) int {
	cs, _ := oauth.ParseChallenges(x.Header.Values("WWW-Authenticate"))
	n := 0
	for _, c := range cs {
		if c.IsBearer() {
			n++
		}
	}
	return n
}
