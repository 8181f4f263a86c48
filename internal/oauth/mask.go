package oauth

import (
	"encoding/base64"
	"encoding/hex"
	"net/url"
	"sort"
	"strings"
)

// credentialMask replaces a credential of the request in an error quoting
// the token endpoint's answer. It is the redactor's mask (internal/redact,
// which this package may not import: it stays free of mcp-eval's
// packages), so the two read the same.
const credentialMask = "***"

// minMasked is the shortest spelling masked: shorter pieces of an encoding
// occur in ordinary text (the redactor's MinLen).
const minMasked = 8

// credentialForms are the spellings of the request's own credentials that
// a token endpoint may echo in its error (RFC 6749 §5.2 lets it say
// anything in error_description; a proxy or framework in front of it may
// quote the request): the client secret and the assertion as they are,
// form-encoded, percent-encoded, hex, and base64 in every alphabet and at
// every alignment inside a longer blob; the Basic credentials as sent and
// decoded ("id:secret"). Longest first, so that a longer spelling is
// masked whole before a piece of it.
func (r TokenRequest) credentialForms(basic string) []string {
	set := map[string]bool{}
	add := func(s string) {
		if len(s) >= minMasked {
			set[s] = true
		}
	}
	for _, sec := range []string{r.ClientSecret, r.Assertion} {
		if sec == "" {
			continue
		}
		add(sec)
		add(url.QueryEscape(sec))
		add(url.PathEscape(sec))
		add(hex.EncodeToString([]byte(sec)))
		add(strings.ToUpper(hex.EncodeToString([]byte(sec))))
		for _, core := range base64Cores(sec) {
			add(core)
		}
	}
	if basic != "" {
		add(basic)
		add("Basic " + basic)
		if dec, err := base64.StdEncoding.DecodeString(basic); err == nil {
			add(string(dec))
		}
	}
	out := make([]string, 0, len(set))
	for s := range set {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) || len(out[i]) == len(out[j]) && out[i] < out[j] })
	return out
}

// base64Cores returns, for each of the three byte alignments a value can
// have inside a longer blob and for the standard and URL-safe alphabets,
// the base64 characters that depend on the value's bytes alone: every
// base64 encoding of any text holding the value contains one of them.
func base64Cores(v string) []string {
	var out []string
	n := len(v)
	for k := 0; k < 3; k++ {
		in := strings.Repeat("\x00", k) + v
		first := (8*k + 5) / 6    // the first character whose bits are all the value's
		last := (8 * (k + n)) / 6 // one past the last such character
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
			s := enc.EncodeToString([]byte(in))
			if last > first && last <= len(s) {
				out = append(out, s[first:last])
			}
		}
	}
	return out
}

// mask replaces every form in the error's text fields.
func (e *TokenError) mask(forms []string) {
	for _, f := range forms {
		e.Code = strings.ReplaceAll(e.Code, f, credentialMask)
		e.Description = strings.ReplaceAll(e.Description, f, credentialMask)
		e.URI = strings.ReplaceAll(e.URI, f, credentialMask)
		e.Detail = strings.ReplaceAll(e.Detail, f, credentialMask)
	}
}
