package pipeline

import (
	"fmt"
	"sync"

	"github.com/mcp-eval/mcp-eval/conformance"
	"github.com/mcp-eval/mcp-eval/internal/exitcode"
	"github.com/mcp-eval/mcp-eval/internal/oauth"
	"github.com/mcp-eval/mcp-eval/internal/redact"
	"github.com/mcp-eval/mcp-eval/mcp"
)

// oauthSession builds the run's OAuth session from the --oauth-* options,
// or nil when none is given. Nothing is sent yet: the server's first 401
// starts discovery (mcp.Options.Authorizer). Every credential that arrives
// during the run is masked from then on (the run's redactor, and the
// runner's log through Env.MaskSecret in the Action); discovery and token
// requests have --timeout each and a 1 MiB limit.
func (p *RunPlan) oauthSession() (*oauth.Session, error) {
	return p.oauthSessionFor(p.cfg.ServerURL)
}

// oauthSessionFor is oauthSession for the endpoint serverURL: the server
// under test, or a replica (replicas get a session each, see
// RunPlan.replicas).
func (p *RunPlan) oauthSessionFor(serverURL string) (*oauth.Session, error) {
	cfg := p.cfg
	f := &oauth.Fetcher{Timeout: cfg.Timeout, MaxBytes: oauth.DefaultMaxBytes}
	// The auth checks ask the session for tokens concurrently; MaskSecret
	// writes ::add-mask:: to the step's stdout, one secret at a time.
	var mu sync.Mutex
	onSecret := func(source, v string) error {
		mu.Lock()
		defer mu.Unlock()
		if source == "OAuth access token" {
			p.presented.add(v)
		}
		if err := p.red.Add(redact.Secret{Source: source, Value: v}); err != nil {
			return err
		}
		if p.env.MaskSecret != nil {
			return p.env.MaskSecret(v)
		}
		return nil
	}
	cred, err := cfg.OAuthCredentials(p.env.Getenv, f, onSecret)
	if err != nil || cred == nil {
		return nil, err
	}
	s, err := oauth.NewSession(oauth.SessionConfig{
		ServerURL: serverURL, Credentials: *cred, Fetcher: f, OnSecret: onSecret,
		Logf: func(format string, args ...any) { fmt.Fprintf(p.env.Stderr, format+"\n", args...) },
	})
	if err != nil {
		return nil, exitcode.Usagef("--oauth-*: %v", err)
	}
	if !cfg.Verbose {
		s.Quiet()
	}
	return s, nil
}

// oauthCapabilities declares the oauth-client-credentials extension in the
// clientCapabilities of every request when the run authenticates with
// client credentials (docs/extensions/auth/oauth-client-credentials.mdx
// §For MCP clients: "Include the extension in its per-request
// capabilities"). Workload identity federation (SEP-1933) names no
// extension identifier yet, so a jwt-bearer run declares none.
func oauthCapabilities(s *oauth.Session, opts *mcp.Options) {
	if s == nil || s.Grant() != oauth.GrantClientCredentials {
		return
	}
	opts.Capabilities = map[string]any{"extensions": map[string]any{oauth.ExtensionClientCredentials: map[string]any{}}}
}

// authChecks gives the auth group the run's OAuth session (nil without
// --oauth-*): the probes' tokens come from its RequestToken, and the client
// secret is one of the credentials no answer may echo.
func (p *RunPlan) authChecks(s *session) *conformance.Auth {
	if s == nil {
		return nil
	}
	if s.auth == nil {
		if s.passthrough == nil {
			return nil
		}
		return &conformance.Auth{Passthrough: s.passthrough}
	}
	var secrets []string
	if p.cfg.OAuth.ClientSecret != "" {
		if cred, err := p.cfg.OAuthCredentials(p.env.Getenv, nil, nil); err == nil && cred != nil && cred.ClientSecret != "" {
			secrets = append(secrets, cred.ClientSecret)
		}
	}
	a := conformance.SessionAuth(s.auth, s.auth.Grant(), secrets...)
	a.InsufficientScope = p.cfg.AuthChecks.InsufficientScope
	a.OtherResource = p.cfg.AuthChecks.OtherResource
	if s.passthrough != nil {
		a.Passthrough = s.passthrough
		a.Presented = p.presented.list
	}
	return a
}

// tokenList is every access token the run's OAuth client obtained, for
// auth/no-token-passthrough (the run's tokens are renewed: any of them may
// have been passed on).
type tokenList struct {
	mu     sync.Mutex
	tokens []string
}

func (l *tokenList) add(v string) {
	l.mu.Lock()
	l.tokens = append(l.tokens, v)
	l.mu.Unlock()
}

func (l *tokenList) list() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.tokens...)
}
