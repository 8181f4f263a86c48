package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	gh "github.com/google/go-github/v93/github"
)

// Config tunes a Client. The zero value is usable apart from Token.
type Config struct {
	Token string // the github-token input
	// ArtifactName names the artifact holding the baseline report.json;
	// DefaultArtifactName when empty.
	ArtifactName string
	// UserAgent identifies mcp-eval to the API (GitHub asks every client to
	// send one); "mcp-eval" when empty.
	UserAgent string
	// Timeout bounds each HTTP request; 30 s when zero.
	Timeout time.Duration
	// BaselineTimeout bounds the whole baseline search; 2 min when zero.
	BaselineTimeout time.Duration
	// MaxRuns caps how many green runs are examined for a baseline (each
	// costs about three requests of the token's 1,000 per hour); 100 when
	// zero.
	MaxRuns int
	// MaxAge bounds the baseline search in time: runs older than this are
	// not examined; 90 days when zero (GitHub's default artifact retention).
	MaxAge time.Duration
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Retries bounds the retries of a request refused for a rate limit
	// (403 or 429, honouring Retry-After and x-ratelimit-reset); 3 when
	// zero, none when negative. MaxRetryWait is the longest wait before a
	// retry, 1 min when zero: a longer one is not waited for.
	Retries      int
	MaxRetryWait time.Duration
	// sleep waits between retries (tests replace it).
	sleep func(context.Context, time.Duration) error
	// MaxZipBytes caps the downloaded artifact; 50 MiB when zero.
	MaxZipBytes int64
	// MaxReportBytes caps report.json inside it; 32 MiB when zero.
	MaxReportBytes int64
	// Transport carries every request, API and artifact download alike;
	// a clone of http.DefaultTransport when nil (which honours HTTPS_PROXY):
	// the shared one may have its connections closed by anything else in
	// the process (httptest.Server.Close does), failing a request in flight
	// with "http: CloseIdleConnections called".
	Transport http.RoundTripper
}

func (c *Config) defaults() {
	if c.ArtifactName == "" {
		c.ArtifactName = DefaultArtifactName
	}
	if c.UserAgent == "" {
		c.UserAgent = "mcp-eval"
	}
	if c.Timeout <= 0 {
		c.Timeout = 30 * time.Second
	}
	if c.BaselineTimeout <= 0 {
		c.BaselineTimeout = 2 * time.Minute
	}
	if c.MaxRuns <= 0 {
		c.MaxRuns = 100
	}
	if c.MaxAge <= 0 {
		c.MaxAge = 90 * 24 * time.Hour
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.MaxZipBytes <= 0 {
		c.MaxZipBytes = 50 << 20
	}
	if c.MaxReportBytes <= 0 {
		c.MaxReportBytes = 32 << 20
	}
	if c.Transport == nil {
		c.Transport = http.DefaultTransport.(*http.Transport).Clone()
	}
}

func (c *Config) now() time.Time { return c.Now() }

// Client talks to the GitHub REST API for one run: the baseline, the
// comment and the label. Its methods return failures as *Warning.
type Client struct {
	gh     *gh.Client
	blob   *http.Client // artifact downloads: never carries the token
	cfg    Config
	owner  string
	repo   string
	runID  int64
	branch string // where the baseline comes from

	idOnce sync.Once // Identity
	id     string
	idErr  error
}

// NewClient returns a client for the repository and run of env, with the
// baseline branch taken from ev. GITHUB_API_URL other than api.github.com
// (GitHub Enterprise Server, or GHE.com) is honoured. Its error is a
// *Warning: without a token or a repository there is no baseline and no
// comment, which the summary says, and the run goes on.
func NewClient(env Env, ev Event, cfg Config) (*Client, error) {
	cfg.defaults()
	owner, repo, ok := splitRepo(env.Repository)
	if !ok {
		return nil, &Warning{Kind: Unavailable, Op: "setup", Msg: "GITHUB_REPOSITORY is not set: the GitHub API is not used (no baseline, no comment)"}
	}
	if cfg.Token == "" {
		return nil, &Warning{Kind: Forbidden, Op: "setup", Msg: "the github-token input is empty: no baseline and no pull request comment (set it to ${{ github.token }})"}
	}
	c := &Client{cfg: cfg, owner: owner, repo: repo, runID: env.RunID, branch: ev.BaseBranch(env)}
	// Rate-limit retries below the token: a retried request is the same
	// request, to the same origin.
	auth := &authTransport{base: &retryTransport{base: cfg.Transport, maxWait: cfg.MaxRetryWait, tries: cfg.Retries, sleep: cfg.sleep, now: cfg.Now}, token: cfg.Token}
	opts := []gh.ClientOptionsFunc{
		gh.WithHTTPClient(&http.Client{Transport: auth, Timeout: cfg.Timeout}),
		gh.WithUserAgent(cfg.UserAgent),
	}
	if api := strings.TrimRight(env.APIURL, "/"); api != "" && api != DefaultAPIURL {
		// WithEnterpriseURLs adds /api/v3/ unless the host is api.* (GHE.com)
		// or the path already ends in it. The upload URL is never used.
		opts = append(opts, gh.WithEnterpriseURLs(api, api))
	}
	var err error
	if c.gh, err = gh.NewClient(opts...); err != nil {
		return nil, &Warning{Kind: Unavailable, Op: "setup", Msg: fmt.Sprintf("GITHUB_API_URL %q is not a URL", env.APIURL), Err: err}
	}
	base, err := url.Parse(c.gh.BaseURL())
	if err != nil {
		return nil, &Warning{Kind: Unavailable, Op: "setup", Msg: fmt.Sprintf("GITHUB_API_URL %q is not a URL", env.APIURL), Err: err}
	}
	// The token goes to the API's origin only: scheme, host and port.
	auth.host = base.Host
	auth.scheme = base.Scheme
	c.blob = &http.Client{
		Transport: cfg.Transport,
		Timeout:   cfg.Timeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 5 {
				return errors.New("too many redirects")
			}
			req.Header.Del("Authorization")
			return nil
		},
	}
	return c, nil
}

// authTransport adds the token only to requests for the API host. The
// artifact download answers with a signed URL on blob storage; go-github
// follows 301s through the client's transport, and a token sent there
// would leak to a third party, so the host decides, not the caller.
type authTransport struct {
	base   http.RoundTripper
	token  string
	host   string
	scheme string
}

func (t *authTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if strings.EqualFold(req.URL.Host, t.host) && req.URL.Scheme == t.scheme {
		req = req.Clone(req.Context())
		req.Header.Set("Authorization", "Bearer "+t.token)
	}
	return t.base.RoundTrip(req)
}

// WarningKind classifies a Warning.
type WarningKind int

// The kinds of Warning.
const (
	// NoBaseline: no usable baseline report was found.
	NoBaseline WarningKind = iota + 1
	// Forbidden: the token may not do this (401/403): a fork or Dependabot
	// pull request, or a workflow whose permissions: block lacks the scope.
	Forbidden
	// NotFound: the API answered 404 or 410.
	NotFound
	// Unavailable: a 5xx, a rate limit, a timeout or a network error.
	Unavailable
	// Rejected: the API refused the request otherwise (4xx).
	Rejected
)

// Warning is a GitHub API problem the job reports in its summary and then
// carries on from: none of them fails a run by itself (DESIGN.md).
type Warning struct {
	Kind WarningKind
	Op   string // "baseline", "comment", "label" or "setup"
	Msg  string // one readable sentence for the summary
	Err  error  // the underlying error, if any
}

// Error is the summary sentence followed by the underlying error.
func (w *Warning) Error() string {
	if w.Err == nil {
		return w.Msg
	}
	return w.Msg + ": " + w.Err.Error()
}

// Unwrap returns the underlying error, e.g. a *github.ErrorResponse.
func (w *Warning) Unwrap() error { return w.Err }

// apiWarning classifies an error from go-github. hint is appended for a
// 401/403, naming the permission the call needs.
func apiWarning(op, what, hint string, err error) *Warning {
	w := &Warning{Kind: Unavailable, Op: op, Err: err}
	var (
		er  *gh.ErrorResponse
		rl  *gh.RateLimitError
		arl *gh.AbuseRateLimitError
	)
	switch {
	case errors.As(err, &rl), errors.As(err, &arl):
		w.Msg = what + ": the GitHub API rate limit is exhausted"
	case errors.Is(err, context.DeadlineExceeded):
		w.Msg = what + ": the GitHub API did not answer in time"
	case errors.As(err, &er) && er.Response != nil:
		switch code := er.Response.StatusCode; {
		case code == http.StatusUnauthorized || code == http.StatusForbidden:
			w.Kind, w.Msg = Forbidden, what+": permission denied ("+hint+")"
		case code == http.StatusNotFound || code == http.StatusGone:
			w.Kind, w.Msg = NotFound, what+": not found"
		case code >= 500:
			w.Msg = fmt.Sprintf("%s: GitHub answered %d (an outage?)", what, code)
		default:
			w.Kind, w.Msg = Rejected, fmt.Sprintf("%s: GitHub answered %d", what, code)
		}
	default:
		w.Msg = what + ": the GitHub API could not be reached"
	}
	return w
}
