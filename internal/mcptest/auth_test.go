package mcptest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"
)

// get fetches a path of the fixture's origin with no credentials.
func (h *harness) get(path string) reply {
	h.t.Helper()
	resp, err := h.hc.Get(h.url + path)
	if err != nil {
		h.t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return reply{status: resp.StatusCode, header: resp.Header, body: b, raw: b}
}

// doc is a metadata document as a JSON object (nil unless a 200 whose body
// is a JSON object with an issuer or a resource).
func (h *harness) doc(path string) map[string]any {
	r := h.get(path)
	if r.status != http.StatusOK {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(r.body, &m) != nil || (m["issuer"] == nil && m["resource"] == nil) {
		return nil
	}
	return m
}

// withToken sends server/discover with Authorization: Bearer tok ("" sends
// none) and, if query is set, that query string.
func (h *harness) withToken(tok, query string) reply {
	h.t.Helper()
	hdr := headers("server/discover", withMeta(nil))
	hdr["Authorization"] = []string{""}
	if tok != "" {
		hdr.Set("Authorization", "Bearer "+tok)
	}
	if query != "" {
		return h.doURL(http.MethodPost, "/mcp?"+query, hdr, body(1, "server/discover", withMeta(nil)))
	}
	return h.do(http.MethodPost, hdr, body(1, "server/discover", withMeta(nil)))
}

// doURL is do on another path of the origin.
func (h *harness) doURL(method, path string, hdr http.Header, b []byte) reply {
	h.t.Helper()
	req, err := http.NewRequest(method, h.url+path, strings.NewReader(string(b)))
	if err != nil {
		h.t.Fatal(err)
	}
	for k, vs := range hdr {
		if len(vs) == 1 && vs[0] == "" {
			continue
		}
		req.Header[k] = vs
	}
	resp, err := h.hc.Do(req)
	if err != nil {
		h.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	rb, _ := io.ReadAll(resp.Body)
	return reply{status: resp.StatusCode, header: resp.Header, body: rb, raw: rb}
}

func bearerChallenge(r reply) string {
	for _, v := range r.header.Values("WWW-Authenticate") {
		if strings.HasPrefix(strings.ToLower(v), "bearer") {
			return v
		}
	}
	return ""
}

const prmPath = "/.well-known/oauth-protected-resource/mcp"
const asPath = "/.well-known/oauth-authorization-server/as"

// protected reports whether the fixture guards its endpoint (auth mode):
// its protected-resource metadata or its 401 to a request without a token
// says so. The auth probes judge only a protected fixture.
func protected(h *harness) bool {
	return h.doc(prmPath) != nil || h.withToken("", "").status == http.StatusUnauthorized
}

func offLoopbackHTTP(u string) bool {
	p, err := url.Parse(u)
	return err != nil || (p.Scheme != "https" && p.Hostname() != "127.0.0.1")
}

func init() {
	valid := func(h *harness) string { return h.srv.issue(h.url+"/mcp", AuthScope, time.Hour) }
	as := func(h *harness, f func(md map[string]any) bool) bool {
		md := h.doc(asPath)
		return md != nil && f(md)
	}
	list := func(v any) []any { l, _ := v.([]any); return l }

	probes["auth/unauthenticated-401"] = func(h *harness) bool {
		r := h.withToken("", "")
		return r.status == http.StatusUnauthorized && bearerChallenge(r) == ""
	}
	probes["auth/no-error-without-credentials"] = func(h *harness) bool {
		return strings.Contains(bearerChallenge(h.withToken("", "")), "error=")
	}
	probes["auth/challenge-scope"] = func(h *harness) bool {
		c := bearerChallenge(h.withToken("", ""))
		return c != "" && !strings.Contains(c, "scope=")
	}
	probes["auth/no-offline-access"] = func(h *harness) bool {
		md := h.doc(prmPath)
		return md != nil && slices.Contains(list(md["scopes_supported"]), any("offline_access")) ||
			strings.Contains(bearerChallenge(h.withToken("", "")), "offline_access")
	}
	probes["auth/resource-metadata-discoverable"] = func(h *harness) bool {
		return h.withToken("", "").status == http.StatusUnauthorized && h.get(prmPath).status != http.StatusOK &&
			h.get("/.well-known/oauth-protected-resource").status != http.StatusOK
	}
	probes["auth/resource-metadata-valid"] = func(h *harness) bool {
		r := h.get(prmPath)
		return h.doc(prmPath) != nil && !strings.HasPrefix(r.header.Get("Content-Type"), "application/json")
	}
	probes["auth/resource-metadata-resource"] = func(h *harness) bool {
		md := h.doc(prmPath)
		return md != nil && md["resource"] != h.url+"/mcp"
	}
	probes["auth/authorization-servers"] = func(h *harness) bool {
		md := h.doc(prmPath)
		return md != nil && len(list(md["authorization_servers"])) == 0
	}
	probes["auth/resource-metadata-https"] = func(h *harness) bool {
		md := h.doc(prmPath)
		for _, a := range list(md["authorization_servers"]) {
			if s, _ := a.(string); offLoopbackHTTP(s) {
				return true
			}
		}
		return false
	}
	probes["auth/as-metadata"] = func(h *harness) bool {
		return as(h, func(md map[string]any) bool { return md["issuer"] != h.url+"/as" })
	}
	probes["auth/as-token-endpoint"] = func(h *harness) bool {
		return as(h, func(md map[string]any) bool { _, ok := md["token_endpoint"].(string); return !ok })
	}
	probes["auth/as-https"] = func(h *harness) bool {
		return as(h, func(md map[string]any) bool {
			for k, v := range md {
				if s, ok := v.(string); ok && (strings.HasSuffix(k, "_endpoint") || k == "jwks_uri") && offLoopbackHTTP(s) {
					return true
				}
			}
			return false
		})
	}
	probes["auth/as-pkce-s256"] = func(h *harness) bool {
		return as(h, func(md map[string]any) bool {
			return !slices.Contains(list(md["code_challenge_methods_supported"]), any("S256"))
		})
	}
	probes["auth/as-iss-parameter"] = func(h *harness) bool {
		return as(h, func(md map[string]any) bool { return md["authorization_response_iss_parameter_supported"] != true })
	}
	probes["auth/as-client-registration"] = func(h *harness) bool {
		return as(h, func(md map[string]any) bool { return md["client_id_metadata_document_supported"] != true })
	}
	probes["auth/as-grant-type"] = func(h *harness) bool {
		return as(h, func(md map[string]any) bool {
			return !slices.Contains(list(md["grant_types_supported"]), any("client_credentials"))
		})
	}
	probes["auth/as-client-credentials-metadata"] = func(h *harness) bool {
		return as(h, func(md map[string]any) bool {
			m := list(md["token_endpoint_auth_methods_supported"])
			return !slices.Contains(m, any("client_secret_basic")) && !slices.Contains(m, any("private_key_jwt"))
		})
	}
	probes["auth/malformed-token"] = func(h *harness) bool {
		return protected(h) && h.withToken("mcp-eval-probe-malformed", "").status != http.StatusUnauthorized
	}
	probes["auth/forged-token-refused"] = func(h *harness) bool {
		tok := valid(h)
		b := []byte(tok)
		// Inside the MAC (the last character carries padding bits).
		if b[len(b)-2] == 'A' {
			b[len(b)-2] = 'B'
		} else {
			b[len(b)-2] = 'A'
		}
		return protected(h) && h.withToken(string(b), "").status != http.StatusUnauthorized
	}
	probes["auth/no-token-passthrough"] = func(h *harness) bool {
		before := h.srv.Forwarded()
		return protected(h) && h.withToken(valid(h), "").status == http.StatusOK && h.srv.Forwarded() > before
	}
	probes["auth/mcp-authorization"] = func(h *harness) bool {
		// An API-key server: 401 without a key, no metadata anywhere, no
		// resource_metadata in the challenge.
		r := h.withToken("", "")
		return r.status == http.StatusUnauthorized && !strings.Contains(bearerChallenge(r), "resource_metadata") &&
			h.get(prmPath).status != http.StatusOK && h.get("/.well-known/oauth-protected-resource").status != http.StatusOK
	}
	probes["auth/invalid-token-error"] = func(h *harness) bool {
		r := h.withToken("mcp-eval-probe-malformed", "")
		return r.status == http.StatusUnauthorized && !strings.Contains(bearerChallenge(r), `error="invalid_token"`)
	}
	probes["auth/expired-token"] = func(h *harness) bool {
		return protected(h) && h.withToken(h.srv.issue(h.url+"/mcp", AuthScope, -time.Second), "").status != http.StatusUnauthorized
	}
	probes["auth/query-token-refused"] = func(h *harness) bool {
		st := h.withToken("", "access_token="+url.QueryEscape(valid(h))).status
		return protected(h) && (st < 400 || st >= 500)
	}
	probes["auth/other-audience-refused"] = func(h *harness) bool {
		return protected(h) && h.withToken(h.srv.issue("https://mcp-eval-probe.invalid/mcp", AuthScope, time.Hour), "").status != http.StatusUnauthorized
	}
	probes["auth/insufficient-scope"] = func(h *harness) bool {
		r := h.withToken(h.srv.issue(h.url+"/mcp", AuthExtraScope, time.Hour), "")
		return protected(h) && (r.status != http.StatusForbidden || !strings.Contains(bearerChallenge(r), `error="insufficient_scope"`))
	}
	probes["auth/single-challenge"] = func(h *harness) bool {
		r := h.withToken(h.srv.issue(h.url+"/mcp", AuthExtraScope, time.Hour), "")
		// The challenge names the refused token's own scope.
		return protected(h) && r.status == http.StatusForbidden && strings.Contains(bearerChallenge(r), fmt.Sprintf("scope=%q", AuthExtraScope))
	}
	probes["auth/no-token-echo"] = func(h *harness) bool {
		return strings.Contains(string(h.withToken("mcp-eval-probe-malformed", "").body), "mcp-eval-probe-malformed")
	}
}

// TestAuthFixtureCorrect: in auth mode, the correct fixture fires no probe,
// and its token endpoint issues what the guard accepts.
func TestAuthFixtureCorrect(t *testing.T) {
	t.Parallel()
	h := newHarness(t, Options{Auth: true})
	for id, p := range probes {
		if p(h) {
			t.Errorf("probe %s fired on the correct auth-mode fixture", id)
		}
	}
	form := url.Values{"grant_type": {"client_credentials"}, "resource": {h.url + "/mcp"}}
	req, _ := http.NewRequest(http.MethodPost, h.url+"/as/token", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(AuthClientID, AuthClientSecret)
	resp, err := h.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var tr struct {
		AccessToken string `json:"access_token"`
		ExpiresIn   int    `json:"expires_in"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&tr); err != nil || tr.AccessToken == "" || tr.ExpiresIn != 3600 {
		t.Fatalf("token response %d %+v %v", resp.StatusCode, tr, err)
	}
	if r := h.withToken(tr.AccessToken, ""); r.result() == nil {
		t.Errorf("the issued token was refused: %d %s", r.status, r.body)
	}
	if r := h.withToken("", ""); r.status != http.StatusUnauthorized || !strings.Contains(bearerChallenge(r), "resource_metadata=") {
		t.Errorf("no token: %d %v", r.status, r.header)
	}
}
