package oauth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
)

// The Actions runner's OIDC token service (actions/toolkit
// packages/core/src/oidc-utils.ts, core.getIDToken): a GET of
// ACTIONS_ID_TOKEN_REQUEST_URL with the audience as a query parameter and
// ACTIONS_ID_TOKEN_REQUEST_TOKEN as a bearer token answers {"value": JWT}.
// The runner sets both only for a job with `permissions: id-token: write`.
const (
	EnvIDTokenURL   = "ACTIONS_ID_TOKEN_REQUEST_URL"
	EnvIDTokenToken = "ACTIONS_ID_TOKEN_REQUEST_TOKEN"
)

// ErrNoIDToken is wrapped when the runner offers no OIDC token.
var ErrNoIDToken = errors.New("the job has no OIDC token")

// GitHubIDToken returns an assertion source that asks the Actions runner
// for the job's OIDC token for each audience, or an error naming what is
// missing (before anything is sent). The request token is given to
// onSecret at once; each ID token is given to the Session's OnSecret as the
// assertion it is. The request token is sent to the runner's service
// alone, over HTTPS unless on loopback.
func GitHubIDToken(getenv func(string) string, f *Fetcher, onSecret func(source, value string) error) (func(ctx context.Context, audience string) (string, error), error) {
	rawURL, tok := strings.TrimSpace(getenv(EnvIDTokenURL)), strings.TrimSpace(getenv(EnvIDTokenToken))
	switch {
	case rawURL == "" && tok == "":
		return nil, fmt.Errorf("%w: %s and %s are not set (give the job `permissions: id-token: write`)", ErrNoIDToken, EnvIDTokenURL, EnvIDTokenToken)
	case rawURL == "":
		return nil, fmt.Errorf("%w: %s is not set", ErrNoIDToken, EnvIDTokenURL)
	case tok == "":
		return nil, fmt.Errorf("%w: %s is not set", ErrNoIDToken, EnvIDTokenToken)
	}
	if err := RequireSecure(EnvIDTokenURL, rawURL); err != nil {
		return nil, err
	}
	base, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", EnvIDTokenURL, err)
	}
	if onSecret != nil {
		if err := onSecret(EnvIDTokenToken, tok); err != nil {
			return nil, err
		}
	}
	if f == nil {
		f = &Fetcher{}
	}
	return func(ctx context.Context, audience string) (string, error) {
		u := *base
		q := u.Query()
		q.Set("audience", audience)
		u.RawQuery = q.Encode()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
		if err != nil {
			return "", err
		}
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set("Accept", "application/json")
		ans, err := f.do(ctx, req)
		if err != nil {
			return "", fmt.Errorf("the runner's OIDC token service (%s): %v", base.Host, err)
		}
		var v struct {
			Value string `json:"value"`
		}
		if ans.status != http.StatusOK {
			return "", fmt.Errorf("the runner's OIDC token service (%s) answered HTTP %d: %s", base.Host, ans.status, strconv.Quote(clipText(string(ans.body), 200)))
		}
		if err := decodeObject(ans.body, &v); err != nil || v.Value == "" {
			return "", fmt.Errorf("the runner's OIDC token service (%s) answered without a token (want {\"value\": …})", base.Host)
		}
		return v.Value, nil
	}, nil
}

// maxAssertionBytes bounds an assertion read from a file.
const maxAssertionBytes = 64 << 10

// FileAssertion returns an assertion source that reads path afresh for
// each token request (a projected Kubernetes token or a SPIFFE JWT-SVID is
// rotated in place), trimmed, within 64 KiB.
func FileAssertion(path string) func(context.Context, string) (string, error) {
	return func(context.Context, string) (string, error) {
		f, err := os.Open(path)
		if err != nil {
			return "", err
		}
		defer f.Close()
		b, err := io.ReadAll(io.LimitReader(f, maxAssertionBytes+1))
		if err != nil {
			return "", err
		}
		if len(b) > maxAssertionBytes {
			return "", fmt.Errorf("%s: larger than %d bytes, not a JWT", path, maxAssertionBytes)
		}
		s := strings.TrimSpace(string(b))
		if s == "" {
			return "", fmt.Errorf("%s is empty", path)
		}
		return s, nil
	}
}

// StaticAssertion returns an assertion source that always gives v.
func StaticAssertion(v string) func(context.Context, string) (string, error) {
	return func(context.Context, string) (string, error) { return v, nil }
}
