package redact

import (
	"encoding/base64"
	"strings"
)

// credentialNames are the header names that carry a credential whatever
// their value: RFC 9110's Authorization and Proxy-Authorization, and the
// cookies of RFC 6265.
var credentialNames = []string{"authorization", "proxy-authorization", "cookie", "set-cookie"}

// credentialWords are the last words (after "-" or "_") of a header name
// that says it carries a credential: X-Api-Key, Ocp-Apim-Subscription-Key,
// apikey, X-Auth-Token, Private-Token, X-Amz-Security-Token,
// X-Hasura-Admin-Secret, X-Password, X-Auth, X-Session.
var credentialWords = []string{"key", "apikey", "token", "secret", "password", "passwd", "credential", "credentials", "auth", "session"}

// CredentialHeader reports whether a header named name carries a
// credential by its name, so that its value is a secret whatever it is
// (and one too short to mask is refused). Other headers (X-Trace,
// X-Tenant, Accept) are shown as they are, unless their value came from
// the environment.
func CredentialHeader(name string) bool {
	n := strings.ToLower(strings.TrimSpace(name))
	for _, c := range credentialNames {
		if n == c {
			return true
		}
	}
	words := strings.FieldsFunc(n, func(r rune) bool { return r == '-' || r == '_' })
	if len(words) == 0 {
		return false
	}
	last := words[len(words)-1]
	for _, w := range credentialWords {
		if last == w {
			return true
		}
	}
	return false
}

// HeaderCredentials returns the parts of a credential header's value a
// server or a log may echo alone, beside the whole value: the credential
// after the scheme of an Authorization or Proxy-Authorization value
// ("Bearer x" → x; RFC 9110 §11.4), a Basic credential decoded
// ("user:password") and its password, and each cookie's value; the
// credential after the scheme comes first. Parts may be short: the caller
// decides which must be long enough to mask.
func HeaderCredentials(name, value string) []string {
	value = strings.TrimSpace(value)
	var out []string
	add := func(s string) {
		if s = strings.TrimSpace(s); s != "" && s != value {
			out = append(out, s)
		}
	}
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "cookie", "set-cookie":
		for _, c := range strings.Split(value, ";") {
			if _, v, ok := strings.Cut(c, "="); ok {
				add(v)
			}
		}
		return out
	case "authorization", "proxy-authorization":
	default:
		return out // no scheme: the value is the credential
	}
	scheme, cred, ok := strings.Cut(value, " ")
	if !ok {
		return out
	}
	add(cred)
	if strings.EqualFold(scheme, "basic") {
		if dec, err := base64.StdEncoding.DecodeString(strings.TrimSpace(cred)); err == nil {
			add(string(dec))
			if _, pass, ok := strings.Cut(string(dec), ":"); ok {
				add(pass)
			}
		}
	}
	return out
}
