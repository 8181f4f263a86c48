package mcp

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/mcp-eval/mcp-eval/internal/clip"
)

// An HTTP server given as a stdio command writes nothing on stdout and
// names its URL on stderr ("listening on http://127.0.0.1:3000/mcp"). A
// stdio server may print a URL too (a link to its docs), so the URL alone
// is no proof: the start-up wait (doFirst) ends early only when the
// process has been silent on stdout for httpSilence and something answers
// HTTP at the loopback URL it printed, and otherwise once the request
// timeout has passed with the process still silent.

// httpSilence is how long a process must have written nothing on stdout
// before the URL it printed is tried.
const httpSilence = time.Second

// httpTryEvery and httpTryTimeout pace and bound those tries.
const (
	httpTryEvery   = 500 * time.Millisecond
	httpTryTimeout = 500 * time.Millisecond
)

const httpServerHint = "it looks like an HTTP server: start it with --server-start and point --server-url at it"

// httpWatch looks, during a stdio start-up, for the signs of an HTTP
// server.
type httpWatch struct {
	timeout time.Duration // the request timeout
	tried   time.Time
}

// look returns the error that ends the start-up wait of st, waited so far,
// or nil to wait on.
func (w *httpWatch) look(ctx context.Context, st *Stdio, waited time.Duration) *NotMCPError {
	if !st.silent() {
		return nil
	}
	line := urlLine(st.StderrTail())
	if line == "" {
		return nil
	}
	u := printedURL(line)
	nm := &NotMCPError{Stderr: line, URL: u, Hint: httpServerHint}
	if waited >= w.timeout {
		nm.Got = "the process wrote nothing on stdout within " + w.timeout.String()
		return nm
	}
	if waited < httpSilence || time.Since(w.tried) < httpTryEvery {
		return nil
	}
	w.tried = time.Now()
	if answersHTTP(ctx, u) {
		nm.Got = "the process wrote nothing on stdout, and an HTTP server answers at " + u
		return nm
	}
	return nil
}

// urlRE matches an http(s) URL in a line of output.
var urlRE = regexp.MustCompile(`https?://[^\s"'<>]+`)

// urlLine returns the last line of s that names an http(s) URL.
func urlLine(s string) string {
	lines := strings.Split(s, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); urlRE.MatchString(l) {
			return clip.Bytes(l, 200)
		}
	}
	return ""
}

// printedURL is the last URL in line, without the punctuation that ends a
// sentence around it.
func printedURL(line string) string {
	all := urlRE.FindAllString(line, -1)
	if len(all) == 0 {
		return ""
	}
	return strings.TrimRight(all[len(all)-1], ".,;:!)]}")
}

// answersHTTP reports whether something answers HTTP at u, a loopback URL
// (any other is not tried: the process's own machine is the only place
// where its listening socket can be told apart from another service).
func answersHTTP(ctx context.Context, u string) bool {
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "http" && p.Scheme != "https") {
		return false
	}
	host := p.Hostname()
	switch {
	case host == "0.0.0.0":
		p.Host = net.JoinHostPort("127.0.0.1", p.Port())
	case host == "::":
		p.Host = net.JoinHostPort("::1", p.Port())
	case host == "localhost", host == "::1", strings.HasPrefix(host, "127."):
	default:
		return false
	}
	if p.Port() == "" {
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, httpTryTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.String(), nil)
	if err != nil {
		return false
	}
	// A transport of its own: http.DefaultTransport is shared with whatever
	// else runs in the process, which may close its connections under it.
	tr := &http.Transport{DisableKeepAlives: true} // a loopback URL: no proxy
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return true
}
