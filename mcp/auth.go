package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
)

// Authorizer supplies the credentials of HTTP requests, so that mcp can
// reach a protected server while knowing nothing of OAuth (internal/oauth
// implements it). Methods must be safe for concurrent use.
type Authorizer interface {
	// Authorization returns the Authorization header value for a request
	// to endpoint, "" to send none (no token yet, or another origin).
	Authorization(ctx context.Context, endpoint string) (string, error)
	// Refused is told that a request to endpoint sent with Authorization
	// value sent ("" for none) was answered status with header h. It
	// reports whether to send the request once more (with what
	// Authorization then returns); an error says why no credential can be
	// had and ends the request with it (wrapped in ErrAuthorization).
	Refused(ctx context.Context, endpoint, sent string, status int, h http.Header) (retry bool, err error)
}

// ErrAuthorization wraps the error of an Authorizer: the credentials of the
// run could not be obtained (no metadata found, a token endpoint that
// refused), so the request was not answered.
var ErrAuthorization = errors.New("authorization failed")

// authorized sends out over the client's transport, each exchange under
// its own timeout, with the Authorizer's credential, and once more when the
// Authorizer wants a refused request retried. The Authorizer's own work
// (discovery, a token request) is bounded by its own timeouts, not the
// request's: a slow token endpoint is not the server timing out. A call
// that sets Authorization itself or omits it (an auth probe) is sent as it
// is and never retried. Only the HTTP transport carries credentials.
func (c *Client) authorized(ctx context.Context, timeout time.Duration, out *Outgoing) (*Exchange, error) {
	exchange := func(o *Outgoing) (*Exchange, error) {
		ctx, cancel := WithTimeout(ctx, timeout)
		defer cancel()
		return c.t.Exchange(ctx, o)
	}
	a := c.opts.Authorizer
	h, isHTTP := c.t.(*HTTP)
	if a == nil || !isHTTP || out.Header.Get("Authorization") != "" ||
		slices.ContainsFunc(out.Omit, func(k string) bool { return strings.EqualFold(k, "Authorization") }) {
		return exchange(out)
	}
	send := func() (*Exchange, string, error) {
		v, err := a.Authorization(ctx, h.URL)
		if err != nil {
			return &Exchange{Sent: out.Body}, "", fmt.Errorf("%w: %w", ErrAuthorization, err)
		}
		o := *out
		if v != "" {
			o.Header = out.Header.Clone()
			if o.Header == nil {
				o.Header = http.Header{}
			}
			o.Header.Set("Authorization", v)
		}
		x, err := exchange(&o)
		return x, v, err
	}
	x, sent, err := send()
	if err != nil || x == nil || x.Status != http.StatusUnauthorized {
		return x, err
	}
	retry, aerr := a.Refused(ctx, h.URL, sent, x.Status, x.Header)
	if aerr != nil {
		return x, fmt.Errorf("%w: %w", ErrAuthorization, aerr)
	}
	if !retry {
		return x, nil
	}
	x2, _, err := send()
	if x2 != nil {
		x2.Retried = x
	}
	return x2, err
}

// Authorization returns the Authorization header the client's Authorizer
// gives its HTTP endpoint now ("" without one), for probes that build
// their own HTTP request (resilience's cut streams).
func (c *Client) Authorization(ctx context.Context) (string, error) {
	h, ok := c.t.(*HTTP)
	if c.opts.Authorizer == nil || !ok {
		return "", nil
	}
	return c.opts.Authorizer.Authorization(ctx, h.URL)
}
