package config

// The --oauth-* options (reaching a protected server), declared
// in the option registry (declare) and validated before any request.

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/mcp-eval/mcp-eval/internal/exitcode"
	"github.com/mcp-eval/mcp-eval/internal/oauth"
	"github.com/mcp-eval/mcp-eval/internal/option"
	"github.com/mcp-eval/mcp-eval/internal/readfile"
	"github.com/mcp-eval/mcp-eval/internal/redact"
)

// OAuthFlags are the options with which mcp-eval obtains an access token
// for an HTTP server behind OAuth (internal/oauth).
type OAuthFlags struct {
	ClientID string
	// ClientSecret and Assertion are references to environment variables
	// ('$VAR' or '${VAR}'), never the values: a secret on a command line
	// is seen by every process of the machine and kept in shell history.
	ClientSecret  string
	Scope         string
	Federation    string // "github": the Actions runner's OIDC token
	AssertionFile string
	Assertion     string
}

// declare declares the --oauth-* options (and their Action inputs) bound
// to o, in the order of the README's table.
func (o *OAuthFlags) declare(s *option.Set) {
	const see = " (see Reaching a protected server)"
	s.Add(option.Def{Name: "oauth-client-id", Help: "OAuth client `id` for the client credentials grant (oauth-client-credentials extension); the token is obtained on the server's first 401",
		Doc:   "OAuth client id for the client credentials grant ([oauth-client-credentials](https://github.com/modelcontextprotocol/ext-auth) extension): discovery starts at the server's first 401; the token is renewed before it expires and masked everywhere" + see,
		Input: &option.Input{Doc: "OAuth client id: the access token is obtained with the client credentials grant when the server first answers 401 (discovery as MCP 2026-07-28 specifies), renewed before it expires and masked everywhere."}},
		option.String(&o.ClientID, ""))
	s.Add(option.Def{Name: "oauth-client-secret", Help: "the client secret as an environment variable reference, `'$VAR'`, never the value itself",
		Doc:    "the client secret as a `$VAR` or `${VAR}` reference (single quotes), expanded like `--header`; a literal value or an unset variable is exit 2 naming the flag or the variable, never the value",
		Secret: true,
		Input:  &option.Input{Ref: true, Doc: "The client secret of oauth-client-id: ${{ secrets.NAME }}, or a $VAR naming an environment variable. It reaches mcp-eval by reference, never as an argument, and is masked."}},
		option.String(&o.ClientSecret, ""))
	s.Add(option.Def{Name: "oauth-scope", Help: "space-separated `scopes` to ask for (default: the 401 challenge's scope, else the server's scopes_supported)",
		Doc:   "scopes to ask for, space-separated; default: the `scope` of the server's 401 challenge, else its `scopes_supported`, else none",
		Input: &option.Input{Doc: "Space-separated scopes to ask for (default: the scope of the server's 401 challenge, else its scopes_supported)."}},
		option.String(&o.Scope, ""))
	s.Add(option.Def{Name: "oauth-federation", Help: "`github`: present the Actions job's OIDC token as a jwt-bearer assertion (RFC 7523; needs permissions: id-token: write): no stored secret",
		Doc:   "`github`: in GitHub Actions (`permissions: id-token: write`), the job's OIDC token is the assertion of a jwt-bearer grant (RFC 7523, workload identity federation), its audience the token endpoint: no stored secret",
		Input: &option.Input{Doc: "github: no stored secret; the job's OIDC token (permissions: id-token: write) is exchanged for an access token with the jwt-bearer grant (RFC 7523), its audience the token endpoint."}},
		option.String(&o.Federation, ""))
	s.Add(option.Def{Name: "oauth-assertion-file", Help: "`file` holding a JWT to present as a jwt-bearer assertion (RFC 7523), read afresh for each token request",
		Doc:   "a JWT file to present as the jwt-bearer assertion (a projected Kubernetes token, a SPIFFE JWT-SVID), read afresh for each token request",
		Input: &option.Input{Doc: "A file (in the workspace) holding a JWT to exchange with the jwt-bearer grant, re-read for each token request."}},
		option.String(&o.AssertionFile, ""))
	s.Add(option.Def{Name: "oauth-assertion", Help: "a JWT to present as a jwt-bearer assertion, as an environment variable reference, `'$VAR'`",
		Doc:    "a JWT to present as the jwt-bearer assertion, as a `$VAR` reference",
		Secret: true},
		option.String(&o.Assertion, ""))
}

// Given reports whether any --oauth-* option is set.
func (o OAuthFlags) Given() bool {
	return o.ClientID != "" || o.ClientSecret != "" || o.Scope != "" || o.Federation != "" || o.AssertionFile != "" || o.Assertion != ""
}

// varRef matches a whole '$VAR' or '${VAR}' reference.
var varRef = regexp.MustCompile(`^\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([^}]+)\})$`)

// expandRef returns the value of the variable a '$VAR' option names. A
// literal value is a usage error that does not quote it back (it may be
// the secret); an unset variable is an error naming it.
func (c *Config) expandRef(name, v string, getenv func(string) string) (string, error) {
	m := varRef.FindStringSubmatch(strings.TrimSpace(v))
	if m == nil {
		return "", exitcode.Usagef("%s: give the name of an environment variable that holds the value, such as '$CLIENT_SECRET' (in single quotes), not the value itself (it is not shown: it may be a secret)", c.Source(name, 0))
	}
	vn := m[1] + m[2]
	val := strings.TrimSpace(getenv(vn))
	if val == "" {
		return "", exitcode.Configf("%s: environment variable %s is not set", c.Source(name, 0), vn)
	}
	return val, nil
}

// validateOAuth checks the --oauth-* options before any network call: where
// the token may travel, then which credentials combine, then that the
// secret and assertion can be had.
func (c *Config) validateOAuth(getenv func(string) string) error {
	if !c.OAuth.Given() {
		return nil
	}
	if err := c.validateOAuthTarget(); err != nil {
		return err
	}
	if err := c.validateOAuthCombination(); err != nil {
		return err
	}
	_, err := c.OAuthCredentials(getenv, nil, nil)
	return err
}

// validateOAuthTarget checks that the token has a server it may be sent to.
func (c *Config) validateOAuthTarget() error {
	first := c.Source(firstOAuthFlag(c.OAuth), 0)
	if c.ServerURL == "" {
		// authorization/index.mdx §Protocol Requirements: "Implementations
		// using an STDIO transport SHOULD NOT follow this specification,
		// and instead retrieve credentials from the environment."
		return exitcode.Usagef("%s is for an HTTP server (--server-url): a stdio server takes its credentials from its environment", first)
	}
	if err := oauth.RequireSecure("--server-url", c.ServerURL); err != nil {
		return exitcode.Usagef("%s: the access token travels only over HTTPS or to loopback, and --server-url %s is plain HTTP to another host", first, c.ServerURL)
	}
	for _, h := range c.Headers.Vals {
		if name, _, _ := strings.Cut(h, ":"); strings.EqualFold(strings.TrimSpace(name), "Authorization") {
			return exitcode.Usagef("--header Authorization and %s are exclusive: give a static token or let mcp-eval obtain one", first)
		}
	}
	return nil
}

// validateOAuthCombination checks that the options name one way to get a
// token: client credentials, or one assertion (with an optional client id).
func (c *Config) validateOAuthCombination() error {
	o := c.OAuth
	src := func(name string) string { return c.Source(name, 0) }
	sources := 0
	for _, v := range []string{o.Federation, o.AssertionFile, o.Assertion} {
		if v != "" {
			sources++
		}
	}
	switch {
	case sources > 1:
		return exitcode.Usagef("--oauth-federation, --oauth-assertion-file and --oauth-assertion are exclusive: give one assertion")
	case o.Federation != "" && o.Federation != "github":
		return exitcode.Usagef("%s must be github (the Actions job's OIDC token), got %q", src("oauth-federation"), o.Federation)
	case sources == 0 && o.ClientID == "":
		return exitcode.Usagef("%s needs --oauth-client-id (with --oauth-client-secret) or an assertion (--oauth-federation github, --oauth-assertion-file, --oauth-assertion)", src(firstOAuthFlag(o)))
	case sources == 0 && o.ClientSecret == "":
		return exitcode.Usagef("%s needs --oauth-client-secret '$VAR' (client credentials), or an assertion (--oauth-federation github, --oauth-assertion-file, --oauth-assertion)", src("oauth-client-id"))
	case o.ClientSecret != "" && o.ClientID == "":
		return exitcode.Usagef("%s needs --oauth-client-id", src("oauth-client-secret"))
	}
	return nil
}

// firstOAuthFlag names the first --oauth-* option given, for messages.
func firstOAuthFlag(o OAuthFlags) string {
	for _, f := range []struct{ name, v string }{
		{"oauth-client-id", o.ClientID}, {"oauth-client-secret", o.ClientSecret}, {"oauth-federation", o.Federation},
		{"oauth-assertion-file", o.AssertionFile}, {"oauth-assertion", o.Assertion}, {"oauth-scope", o.Scope},
	} {
		if f.v != "" {
			return f.name
		}
	}
	return "oauth-client-id"
}

// OAuthCredentials resolves the --oauth-* options into the credentials of
// an oauth.Session, or nil when none is given: the secret and a static
// assertion expanded from the environment, an assertion file checked
// readable (it is read afresh for each token), GitHub federation checked
// offered by the runner. onSecret hears the runner's request token.
func (c *Config) OAuthCredentials(getenv func(string) string, f *oauth.Fetcher, onSecret func(source, value string) error) (*oauth.Credentials, error) {
	o := c.OAuth
	if !o.Given() {
		return nil, nil
	}
	cred := &oauth.Credentials{ClientID: strings.TrimSpace(o.ClientID), Scope: strings.Join(strings.Fields(o.Scope), " ")}
	if o.ClientSecret != "" {
		v, err := c.expandRef("oauth-client-secret", o.ClientSecret, getenv)
		if err != nil {
			return nil, err
		}
		cred.ClientSecret = v
	}
	switch {
	case o.Federation == "github":
		src, err := oauth.GitHubIDToken(getenv, f, onSecret)
		if err != nil {
			return nil, exitcode.Configf("%s: %v", c.Source("oauth-federation", 0), err)
		}
		cred.Assertion = src
	case o.AssertionFile != "":
		read := fileAssertion(o.AssertionFile)
		if _, err := read(context.Background(), ""); err != nil {
			return nil, exitcode.Configf("%s: %v", c.Source("oauth-assertion-file", 0), err)
		}
		cred.Assertion = read
	case o.Assertion != "":
		v, err := c.expandRef("oauth-assertion", o.Assertion, getenv)
		if err != nil {
			return nil, err
		}
		cred.Assertion = oauth.StaticAssertion(v)
	}
	return cred, nil
}

// oauthSecrets are the credentials of the --oauth-* options known before
// the run, for the redactor: the client secret and a static assertion (an
// assertion file's content is masked when read; tokens when they arrive).
func (c *Config) oauthSecrets(getenv func(string) string) []redact.Secret {
	var out []redact.Secret
	for _, f := range []struct{ name, ref string }{{"oauth-client-secret", c.OAuth.ClientSecret}, {"oauth-assertion", c.OAuth.Assertion}} {
		if f.ref == "" {
			continue
		}
		if v, err := c.expandRef(f.name, f.ref, getenv); err == nil {
			out = append(out, redact.Secret{Source: "--" + f.name, Value: v})
		}
	}
	if c.OAuth.AssertionFile != "" {
		if v, err := fileAssertion(c.OAuth.AssertionFile)(context.Background(), ""); err == nil {
			out = append(out, redact.Secret{Source: "--oauth-assertion-file", Value: v})
		}
	}
	return out
}

// maxAssertionBytes bounds an assertion file: a JWT, however many claims.
const maxAssertionBytes = 64 << 10

// fileAssertion returns an assertion source that reads path afresh for
// each token request (a projected Kubernetes token or a SPIFFE JWT-SVID is
// rotated in place), trimmed, through the one bounded reader of user files:
// a FIFO with no writer, a device or a file whose read blocks is refused,
// not waited on for ever (readfile).
func fileAssertion(path string) func(context.Context, string) (string, error) {
	return func(context.Context, string) (string, error) {
		b, err := readfile.Read(path, maxAssertionBytes)
		if err != nil {
			return "", fmt.Errorf("%s: %s", path, readfile.Reason(err))
		}
		s := strings.TrimSpace(string(b))
		if s == "" {
			return "", fmt.Errorf("%s is empty", path)
		}
		if !compactJWT(s) {
			// Whatever the file holds goes to a token endpoint the
			// server's metadata names: a path that resolves to something
			// else (a symlink to /proc/self/environ) must not send it.
			return "", fmt.Errorf("%s: not a JWT (RFC 7519 §7.2: three or five base64url parts separated by dots); its %d bytes are not sent", path, len(s))
		}
		return s, nil
	}
}

// compactJWT reports whether s has the shape of a JWT in compact
// serialization: a JWS of three base64url parts (RFC 7515 §7.1) or a JWE
// of five (RFC 7516 §7.1), separated by dots. Nothing is decoded.
func compactJWT(s string) bool {
	parts := strings.Split(s, ".")
	if len(parts) != 3 && len(parts) != 5 {
		return false
	}
	for i, p := range parts {
		if p == "" && i == 0 {
			return false
		}
		for _, c := range []byte(p) {
			if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return false
			}
		}
	}
	return true
}
