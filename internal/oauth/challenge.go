package oauth

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// Challenge is one challenge of a WWW-Authenticate header (RFC 9110
// §11.6.1): a scheme, then a token68 or a list of auth-params.
type Challenge struct {
	// Scheme is the auth-scheme as sent ("Bearer"); schemes are
	// case-insensitive, so compare with strings.EqualFold.
	Scheme string
	// Token68 is the token68 form of the credentials, when sent instead of
	// parameters.
	Token68 string
	// Params holds the auth-params by lower-cased name (names are
	// case-insensitive, RFC 9110 §11.2), values unquoted. A name sent twice
	// keeps its first value and is listed in Issues.
	Params map[string]string
	// Issues lists what the parser accepted although the grammar does not:
	// an unquoted value that is no token (a URL with ":" and "/"), a
	// parameter repeated, a missing value. A conformance check may report
	// them; a client can still use the challenge.
	Issues []string
}

// The Bearer challenge's parameters this package reads (RFC 6750 §3,
// RFC 9728 §5.1).
const (
	ParamResourceMetadata = "resource_metadata"
	ParamScope            = "scope"
	ParamError            = "error"
	ParamErrorDescription = "error_description"
	ParamRealm            = "realm"
)

// IsBearer reports whether the challenge's scheme is Bearer.
func (c Challenge) IsBearer() bool { return strings.EqualFold(c.Scheme, "Bearer") }

// ResourceMetadata is the resource_metadata parameter (RFC 9728 §5.1).
func (c Challenge) ResourceMetadata() string { return c.Params[ParamResourceMetadata] }

// Scope is the scope parameter (RFC 6750 §3), space-separated scopes.
func (c Challenge) Scope() string { return c.Params[ParamScope] }

// Error is the error parameter (RFC 6750 §3.1: invalid_request,
// invalid_token, insufficient_scope).
func (c Challenge) Error() string { return c.Params[ParamError] }

// ErrorDescription is the error_description parameter.
func (c Challenge) ErrorDescription() string { return c.Params[ParamErrorDescription] }

// Bounds of what is parsed: a challenge header is a few hundred bytes in
// practice; a server sending more gets an error, not a slow parse.
const (
	maxChallengeBytes = 16 << 10
	maxChallenges     = 32
	maxParams         = 64
)

// ErrChallenge is wrapped by every error ParseChallenges returns.
var ErrChallenge = errors.New("malformed WWW-Authenticate")

// BearerChallenge returns the first Bearer challenge of h's
// WWW-Authenticate fields, and whether there is one. A field that does not
// parse is skipped (ParseChallenges says why).
func BearerChallenge(h http.Header) (Challenge, bool) {
	cs, _ := ParseChallenges(h.Values("WWW-Authenticate"))
	for _, c := range cs {
		if c.IsBearer() {
			return c, true
		}
	}
	return Challenge{}, false
}

// ParseChallenges parses WWW-Authenticate field values (each may hold
// several challenges, and a response may carry several fields). It returns
// the challenges it could read and an error wrapping ErrChallenge for the
// first part it could not; the input is untrusted and never makes it panic.
//
// Beyond RFC 9110's grammar it accepts, and lists in Challenge.Issues, an
// unquoted parameter value that is not a token (servers write
// resource_metadata=https://… unquoted), since a client that refused it
// would fail to reach such a server for no benefit.
func ParseChallenges(values []string) ([]Challenge, error) {
	var out []Challenge
	var firstErr error
	total := 0
	for _, v := range values {
		total += len(v)
		if total > maxChallengeBytes {
			return out, fmt.Errorf("%w: longer than %d bytes", ErrChallenge, maxChallengeBytes)
		}
		p := &challengeParser{s: v}
		cs, err := p.parse()
		out = append(out, cs...)
		if err != nil && firstErr == nil {
			firstErr = err
		}
		if len(out) > maxChallenges {
			return out[:maxChallenges], fmt.Errorf("%w: more than %d challenges", ErrChallenge, maxChallenges)
		}
	}
	return out, firstErr
}

type challengeParser struct {
	s string
	i int
}

func (p *challengeParser) parse() ([]Challenge, error) {
	var out []Challenge
	for {
		p.skipListSep()
		if p.i >= len(p.s) {
			return out, nil
		}
		scheme := p.token()
		if scheme == "" {
			return out, fmt.Errorf("%w: unexpected %q at byte %d", ErrChallenge, p.s[p.i], p.i)
		}
		c := Challenge{Scheme: scheme, Params: map[string]string{}}
		p.skipSpace()
		if err := p.credentials(&c); err != nil {
			return append(out, c), err
		}
		out = append(out, c)
		if len(out) > maxChallenges {
			return out, nil
		}
	}
}

// credentials reads what follows a scheme: nothing, a token68, or
// auth-params, up to the next challenge.
func (p *challengeParser) credentials(c *Challenge) error {
	if p.i >= len(p.s) || p.s[p.i] == ',' {
		return nil
	}
	if t, ok := p.token68(); ok {
		c.Token68 = t
		return nil
	}
	for {
		if !p.atParam() {
			return nil // the next challenge starts here
		}
		if len(c.Params) >= maxParams {
			return fmt.Errorf("%w: more than %d parameters", ErrChallenge, maxParams)
		}
		if err := p.param(c); err != nil {
			return err
		}
		p.skipSpace()
		if p.i >= len(p.s) {
			return nil
		}
		if p.s[p.i] != ',' {
			return fmt.Errorf("%w: expected \",\" after parameter at byte %d", ErrChallenge, p.i)
		}
		p.skipListSep()
		if p.i >= len(p.s) {
			return nil
		}
	}
}

// atParam reports whether an auth-param (token BWS "=") starts at p.i.
func (p *challengeParser) atParam() bool {
	j := p.i
	for j < len(p.s) && isTchar(p.s[j]) {
		j++
	}
	if j == p.i {
		return false
	}
	for j < len(p.s) && (p.s[j] == ' ' || p.s[j] == '\t') {
		j++
	}
	return j < len(p.s) && p.s[j] == '='
}

func (p *challengeParser) param(c *Challenge) error {
	name := strings.ToLower(p.token())
	p.skipSpace()
	p.i++ // "="
	p.skipSpace()
	var value string
	switch {
	case p.i < len(p.s) && p.s[p.i] == '"':
		v, err := p.quoted()
		if err != nil {
			return err
		}
		value = v
	default:
		start := p.i
		v := p.token()
		if p.i < len(p.s) && p.s[p.i] != ',' && p.s[p.i] != ' ' && p.s[p.i] != '\t' {
			// Not a token: read on to the next comma or space.
			for p.i < len(p.s) && p.s[p.i] != ',' && p.s[p.i] != ' ' && p.s[p.i] != '\t' {
				p.i++
			}
			v = p.s[start:p.i]
			c.Issues = append(c.Issues, fmt.Sprintf("%s: the unquoted value %q is not a token (RFC 9110 §11.2: quote it)", name, v))
		}
		if v == "" {
			c.Issues = append(c.Issues, name+": no value")
		}
		value = v
	}
	if _, dup := c.Params[name]; dup {
		c.Issues = append(c.Issues, name+": sent more than once (RFC 9110 §11.2: each parameter at most once)")
		return nil
	}
	c.Params[name] = value
	return nil
}

// quoted reads a quoted-string at p.i, undoing quoted-pairs.
func (p *challengeParser) quoted() (string, error) {
	start := p.i
	p.i++
	var b strings.Builder
	for p.i < len(p.s) {
		ch := p.s[p.i]
		switch ch {
		case '"':
			p.i++
			return b.String(), nil
		case '\\':
			if p.i+1 >= len(p.s) {
				return "", fmt.Errorf("%w: quoted string from byte %d ends in a backslash", ErrChallenge, start)
			}
			b.WriteByte(p.s[p.i+1])
			p.i += 2
		default:
			b.WriteByte(ch)
			p.i++
		}
	}
	return "", fmt.Errorf("%w: quoted string from byte %d is not closed", ErrChallenge, start)
}

// token68 reads a token68 (RFC 9110 §11.2) if one stands alone at p.i:
// followed by the end, a comma or spaces then a comma or the end.
func (p *challengeParser) token68() (string, bool) {
	j := p.i
	for j < len(p.s) && isToken68(p.s[j]) {
		j++
	}
	if j == p.i {
		return "", false
	}
	k := j
	for k < len(p.s) && p.s[k] == '=' {
		k++
	}
	if k == j && p.atParam() {
		return "", false
	}
	end := k
	for end < len(p.s) && (p.s[end] == ' ' || p.s[end] == '\t') {
		end++
	}
	if end < len(p.s) && p.s[end] != ',' {
		return "", false
	}
	t := p.s[p.i:k]
	p.i = end
	return t, true
}

func (p *challengeParser) token() string {
	start := p.i
	for p.i < len(p.s) && isTchar(p.s[p.i]) {
		p.i++
	}
	return p.s[start:p.i]
}

func (p *challengeParser) skipSpace() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

// skipListSep skips the commas and spaces between list elements (RFC 9110
// §5.6.1: empty elements are allowed).
func (p *challengeParser) skipListSep() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == ',') {
		p.i++
	}
}

// isTchar reports whether b is a tchar (RFC 9110 §5.6.2).
func isTchar(b byte) bool {
	switch {
	case 'a' <= b && b <= 'z', 'A' <= b && b <= 'Z', '0' <= b && b <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", b) >= 0
}

// isToken68 reports whether b may appear in a token68 before its "="s.
func isToken68(b byte) bool {
	switch {
	case 'a' <= b && b <= 'z', 'A' <= b && b <= 'Z', '0' <= b && b <= '9':
		return true
	}
	return strings.IndexByte("-._~+/", b) >= 0
}
