package conformance

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/mcp-eval/mcp-eval/engine/check"
)

// probeIssuer is the issuer the "another issuer" forgery claims: a name no
// authorization server has (RFC 2606).
const probeIssuer = "https://mcp-eval-probe.invalid"

// probeKid is the key id of the "unknown kid" forgery.
const probeKid = "mcp-eval-probe-unknown-kid"

// forgery is one token made from a valid one that no authorization server
// issued.
type forgery struct {
	Name  string // what was changed, for the message
	Token string
}

// forgeries derives, from a valid access token, tokens that must all be
// refused. For a JWT (three base64url parts whose header is a JSON object
// with alg): the signature altered; the header's alg set to "none" with no
// signature (RFC 7519 §6, the unsecured JWT); the header's kid set to a
// key no one published (the original signature kept); the iss claim
// replaced by another issuer (the original signature kept). For any other
// token: one character changed near its end, where the opaque formats of
// real authorization servers keep their MAC or random part. Each is
// different from tok; nil when tok is too short to change.
func forgeries(tok string) []forgery {
	if parts := strings.Split(tok, "."); len(parts) == 3 {
		if hdr, ok := jwtObject(parts[0]); ok {
			if _, hasAlg := hdr["alg"]; hasAlg {
				var out []forgery
				if len(parts[2]) > 0 {
					out = append(out, forgery{"the signature altered", parts[0] + "." + parts[1] + "." + changeAt(parts[2], len(parts[2])/2)})
				}
				none := map[string]any{"alg": "none"}
				if typ, ok := hdr["typ"]; ok {
					none["typ"] = typ
				}
				out = append(out, forgery{`alg "none" and no signature`, jwtPart(none) + "." + parts[1] + "."})
				kid := cloneMap(hdr)
				kid["kid"] = probeKid
				out = append(out, forgery{"a kid no key set has (" + probeKid + ")", jwtPart(kid) + "." + parts[1] + "." + parts[2]})
				if claims, ok := jwtObject(parts[1]); ok {
					iss := cloneMap(claims)
					iss["iss"] = probeIssuer
					out = append(out, forgery{"iss " + probeIssuer, parts[0] + "." + jwtPart(iss) + "." + parts[2]})
				}
				return out
			}
		}
	}
	if len(tok) < 2 {
		return nil
	}
	return []forgery{{"one character changed", changeAt(tok, len(tok)-2)}}
}

// changeAt changes the token character at i, or the nearest letter or
// digit before it (a separator changed would make a token malformed, not
// forged), to another character of the base64url alphabet. A base64
// string's last character may carry padding bits a decoder ignores, so
// callers pick an earlier one.
func changeAt(s string, i int) string {
	for ; i > 0 && !isAlnum(s[i]); i-- {
	}
	b := []byte(s)
	if b[i] == 'A' {
		b[i] = 'B'
	} else {
		b[i] = 'A'
	}
	return string(b)
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// jwtObject decodes one base64url part of a JWT as a JSON object.
func jwtObject(part string) (map[string]any, bool) {
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(part, "="))
	if err != nil {
		return nil, false
	}
	var m map[string]any
	d := json.NewDecoder(strings.NewReader(string(b)))
	d.UseNumber() // keep exp and iat as the authorization server wrote them
	if d.Decode(&m) != nil || m == nil {
		return nil, false
	}
	return m, true
}

func jwtPart(m map[string]any) string {
	b, _ := json.Marshal(m)
	return base64.RawURLEncoding.EncodeToString(b)
}

func cloneMap(m map[string]any) map[string]any {
	c := make(map[string]any, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// forgedTokenRefused: basic/authorization §Token Handling, "MCP servers,
// acting in their role as an OAuth 2.1 resource server, MUST validate
// access tokens as described in OAuth 2.1 Section 5.2", and "Invalid or
// expired tokens MUST receive a HTTP 401 response"; OAuth 2.1 §5.2: the
// resource server "MUST validate the access token" — for a JWT access
// token (RFC 9068 §4) that includes its signature, with the keys of the
// issuer it expects. A server that reads the claims without verifying
// them (audience, expiry and scope still checked) accepts a token anyone
// can make. The probes are tokens derived from the run's own valid token
// (forgeries); each is sent to this server only, never to an
// authorization server, and is masked in evidence. The control: the valid
// token itself, sent just before, must be accepted, or a refusal of the
// forgeries proves nothing.
func forgedTokenRefused(ctx context.Context, e *Env) Outcome {
	s := e.authState(ctx)
	tok, err := e.currentToken(ctx)
	if err != nil || tok == "" {
		return check.Skip("no valid access token to derive forged ones from (" + errString(err) + ")")
	}
	forged := forgeries(tok)
	if len(forged) == 0 {
		return check.Skip("the access token is too short to change")
	}
	s.mu.Lock()
	for _, f := range forged {
		s.minted = append(s.minted, f.Token)
	}
	s.mu.Unlock()
	ctl, cerr := e.authProbe(ctx, tok, nil, "auth/forged-token-refused (control)")
	if ctl == nil || ctl.Status == 0 || ctl.Status >= 400 {
		return check.Skip("the run's own token is refused (" + describeExchange(ctl, cerr) + "), so a refusal of tokens made from it proves nothing")
	}
	var accepted, not401 []string
	var ev map[string]any
	for _, f := range forged {
		x, err := e.authProbe(ctx, f.Token, nil, "auth/forged-token-refused ("+f.Name+")")
		if x == nil || x.Status == 0 {
			return check.Errored(fmt.Errorf("the token with %s: %s", f.Name, describeExchange(x, err)), nil)
		}
		switch {
		case x.Status == http.StatusUnauthorized:
			continue
		case x.Status < 400:
			accepted = append(accepted, fmt.Sprintf("%s (HTTP %d)", f.Name, x.Status))
		default:
			not401 = append(not401, fmt.Sprintf("%s (HTTP %d)", f.Name, x.Status))
		}
		if ev == nil {
			ev = check.With(e.authEvidence(x), "forgery", f.Name)
		}
	}
	kind := "an opaque token"
	if len(forged) > 1 {
		kind = "a JWT"
	}
	switch {
	case len(accepted) > 0:
		msg := fmt.Sprintf("the server accepted %d of %d tokens made from the run's own (%s) that no authorization server issued: %s; it MUST validate access tokens (OAuth 2.1 §5.2: for a JWT, its signature with the issuer's keys)",
			len(accepted), len(forged), kind, strings.Join(accepted, "; "))
		if len(not401) > 0 {
			msg += "; refused without 401: " + strings.Join(not401, "; ")
		}
		return check.Fail(msg, ev)
	case len(not401) > 0:
		return check.Failf(ev, "forged tokens (%s) were refused with another status than 401: %s; an invalid token MUST receive 401", kind, strings.Join(not401, "; "))
	}
	names := make([]string, len(forged))
	for i, f := range forged {
		names[i] = f.Name
	}
	return check.PassInfo(fmt.Sprintf("%s: 401 for %s", kind, strings.Join(names, ", ")))
}
