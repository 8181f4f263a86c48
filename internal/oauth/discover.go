package oauth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Defaults of a Fetcher.
const (
	DefaultTimeout  = 10 * time.Second
	DefaultMaxBytes = 1 << 20 // a metadata document or token response
)

// Fetcher makes the requests of discovery and of the token endpoint: each
// with a deadline (Timeout) and a size limit (MaxBytes), following no
// redirect (a credential must not travel to where a redirect points, and
// a metadata document is named by the URL it was fetched from). The zero
// value is ready to use.
type Fetcher struct {
	// Client sends the requests; nil uses one made for the Fetcher. Its
	// redirect policy is replaced: redirects are never followed.
	Client *http.Client
	// Timeout bounds each request, body included; 0 is DefaultTimeout.
	Timeout time.Duration
	// MaxBytes caps each answer's body; 0 is DefaultMaxBytes.
	MaxBytes int64
}

func (f *Fetcher) timeout() time.Duration {
	if f == nil || f.Timeout <= 0 {
		return DefaultTimeout
	}
	return f.Timeout
}

func (f *Fetcher) maxBytes() int64 {
	if f == nil || f.MaxBytes <= 0 {
		return DefaultMaxBytes
	}
	return f.MaxBytes
}

var noRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

func (f *Fetcher) client() *http.Client {
	var c http.Client
	if f != nil && f.Client != nil {
		c = *f.Client
	}
	c.CheckRedirect = noRedirect
	return &c
}

// answer is one HTTP answer read within the bounds.
type answer struct {
	status      int
	header      http.Header
	contentType string
	body        []byte
}

// ErrTooLarge is wrapped when an answer exceeds the Fetcher's MaxBytes.
var ErrTooLarge = errors.New("answer exceeds the size limit")

// do sends req under the Fetcher's deadline and reads the body up to
// MaxBytes.
func (f *Fetcher) do(ctx context.Context, req *http.Request) (*answer, error) {
	ctx, cancel := context.WithTimeout(ctx, f.timeout())
	defer cancel()
	resp, err := f.client().Do(req.WithContext(ctx))
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return nil, fmt.Errorf("%w within %v", errNoAnswer, f.timeout())
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL is named by the caller
		}
		return nil, err
	}
	defer resp.Body.Close()
	limit := f.maxBytes()
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return nil, fmt.Errorf("the answer did not arrive within %v", f.timeout())
		}
		return nil, fmt.Errorf("read answer: %w", err)
	}
	if int64(len(body)) > limit {
		return nil, fmt.Errorf("%w (%d bytes)", ErrTooLarge, limit)
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	return &answer{status: resp.StatusCode, header: resp.Header, contentType: ct, body: body}, nil
}

// errNoAnswer is wrapped when a request got no answer within the
// Fetcher's timeout: the origin is silent, and asking it again costs
// another timeout.
var errNoAnswer = errors.New("no answer")

// get fetches a JSON document.
func (f *Fetcher) get(ctx context.Context, rawURL string) (*answer, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	return f.do(ctx, req)
}

// Attempt is one URI tried during discovery and what came of it.
type Attempt struct {
	// URL is the URI requested.
	URL string
	// Why says where the URI came from ("resource_metadata of the
	// WWW-Authenticate challenge", "RFC 8414 path insertion"…).
	Why string
	// Status is the HTTP status; 0 when no answer came.
	Status int
	// ContentType is the answer's media type, without parameters.
	ContentType string
	// Body is the answer's body (at most the Fetcher's MaxBytes).
	Body []byte
	// Err says why the attempt did not yield the document; empty for the
	// one that did.
	Err string
}

func (a Attempt) String() string {
	if a.Err == "" {
		return a.URL + " (found)"
	}
	return a.URL + " (" + a.Err + ")"
}

// Document is a metadata document found by discovery.
type Document struct {
	// URL is where the document came from.
	URL string
	// Raw is its body as received.
	Raw []byte
	// Tried lists every URI tried, in order, the last being URL.
	Tried []Attempt
}

// DiscoveryError says that no URI gave a usable document: every attempt,
// with its reason, in order.
type DiscoveryError struct {
	// What names the document ("protected-resource metadata").
	What  string
	Tried []Attempt
}

func (e *DiscoveryError) Error() string {
	parts := make([]string, len(e.Tried))
	for i, a := range e.Tried {
		parts[i] = a.String()
	}
	return fmt.Sprintf("no %s found: tried %s", e.What, strings.Join(parts, ", "))
}

// IssuerMismatch returns the first attempt whose document named another
// issuer, if any.
func (e *DiscoveryError) IssuerMismatch() (Attempt, bool) {
	for _, a := range e.Tried {
		if strings.HasPrefix(a.Err, issuerMismatchPrefix) {
			return a, true
		}
	}
	return Attempt{}, false
}

// ResourceMetadata is the protected-resource metadata of RFC 9728 §2, the
// members a client and the checks read. Unknown members stay in Raw.
type ResourceMetadata struct {
	Resource                          string   `json:"resource"`
	AuthorizationServers              []string `json:"authorization_servers,omitempty"`
	ScopesSupported                   []string `json:"scopes_supported,omitempty"`
	BearerMethodsSupported            []string `json:"bearer_methods_supported,omitempty"`
	JWKSURI                           string   `json:"jwks_uri,omitempty"`
	ResourceName                      string   `json:"resource_name,omitempty"`
	ResourceDocumentation             string   `json:"resource_documentation,omitempty"`
	ResourceSigningAlgValuesSupported []string `json:"resource_signing_alg_values_supported,omitempty"`
}

// ResourceDiscovery is the protected-resource metadata of a server and how
// it was found.
type ResourceDiscovery struct {
	Document
	Metadata ResourceMetadata
	// FromChallenge says the URL came from the challenge's
	// resource_metadata rather than a well-known URI.
	FromChallenge bool
}

// DiscoverResource finds the protected-resource metadata of the server at
// serverURL as the revision orders it (authorization-server-discovery.mdx
// §Protected Resource Metadata Discovery Requirements: "use the resource
// metadata URL from the parsed WWW-Authenticate headers when present;
// otherwise, they MUST fall back to constructing and requesting the
// well-known URIs in the order listed"): the challenge's resource_metadata
// when there is one, then ResourceMetadataURIs. The well-known URIs are
// tried after a resource_metadata URL that fails too, so that a broken
// link does not stop a client the well-known document would serve (the
// attempts say what happened).
//
// A URI yields the document when it answers 200 with a JSON object that
// has a resource member; the document is not otherwise judged here (the
// caller compares resource with the server). A *DiscoveryError lists every
// URI tried.
func (f *Fetcher) DiscoverResource(ctx context.Context, serverURL string, ch *Challenge) (*ResourceDiscovery, error) {
	type candidate struct{ url, why string }
	var cands []candidate
	if ch != nil && ch.ResourceMetadata() != "" {
		cands = append(cands, candidate{ch.ResourceMetadata(), "resource_metadata of the WWW-Authenticate challenge"})
	}
	wk, err := ResourceMetadataURIs(serverURL)
	if err != nil {
		return nil, err
	}
	for i, u := range wk {
		why := "well-known URI at the root"
		if i == 0 && len(wk) == 2 {
			why = "well-known URI with the endpoint's path"
		}
		if len(cands) > 0 && cands[0].url == u {
			continue
		}
		cands = append(cands, candidate{u, why})
	}
	var tried []Attempt
	for _, c := range cands {
		a, md := f.tryResource(ctx, c.url, c.why)
		tried = append(tried, a)
		if md != nil {
			return &ResourceDiscovery{Document: Document{URL: c.url, Raw: a.Body, Tried: tried}, Metadata: *md,
				FromChallenge: ch != nil && c.url == ch.ResourceMetadata()}, nil
		}
		if ctx.Err() != nil {
			break
		}
	}
	return nil, &DiscoveryError{What: "protected-resource metadata", Tried: tried}
}

func (f *Fetcher) tryResource(ctx context.Context, rawURL, why string) (Attempt, *ResourceMetadata) {
	a := Attempt{URL: rawURL, Why: why}
	if _, err := parseHTTPURL(rawURL); err != nil {
		a.Err = err.Error()
		return a, nil
	}
	ans, err := f.get(ctx, rawURL)
	if err != nil {
		a.Err = err.Error()
		return a, nil
	}
	a.Status, a.ContentType, a.Body = ans.status, ans.contentType, ans.body
	if ans.status != http.StatusOK {
		a.Err = fmt.Sprintf("HTTP %d", ans.status)
		return a, nil
	}
	var md ResourceMetadata
	if err := decodeObject(ans.body, &md); err != nil {
		a.Err = "HTTP 200 but " + err.Error()
		return a, nil
	}
	if md.Resource == "" {
		a.Err = "HTTP 200 but the document has no resource member (RFC 9728 §2: REQUIRED)"
		return a, nil
	}
	return a, &md
}

// ServerMetadata is authorization server metadata (RFC 8414 §2; OpenID
// Connect Discovery 1.0 §3), the members a client and the checks read.
// Unknown members stay in Raw.
type ServerMetadata struct {
	Issuer                                     string   `json:"issuer"`
	AuthorizationEndpoint                      string   `json:"authorization_endpoint,omitempty"`
	TokenEndpoint                              string   `json:"token_endpoint,omitempty"`
	JWKSURI                                    string   `json:"jwks_uri,omitempty"`
	RegistrationEndpoint                       string   `json:"registration_endpoint,omitempty"`
	ScopesSupported                            []string `json:"scopes_supported,omitempty"`
	ResponseTypesSupported                     []string `json:"response_types_supported,omitempty"`
	GrantTypesSupported                        []string `json:"grant_types_supported,omitempty"`
	TokenEndpointAuthMethodsSupported          []string `json:"token_endpoint_auth_methods_supported,omitempty"`
	TokenEndpointAuthSigningAlgValuesSupported []string `json:"token_endpoint_auth_signing_alg_values_supported,omitempty"`
	CodeChallengeMethodsSupported              []string `json:"code_challenge_methods_supported,omitempty"`
	IntrospectionEndpoint                      string   `json:"introspection_endpoint,omitempty"`
	RevocationEndpoint                         string   `json:"revocation_endpoint,omitempty"`
	// RFC 9207 §3.
	AuthorizationResponseIssParameterSupported bool `json:"authorization_response_iss_parameter_supported,omitempty"`
	// OAuth Client ID Metadata Document (client-registration.mdx).
	ClientIDMetadataDocumentSupported bool `json:"client_id_metadata_document_supported,omitempty"`
	// ResourceIndicatorsSupported is not registered by RFC 8707; some
	// servers publish it. Session sends audience= alongside resource=
	// unless it is true (see Session).
	ResourceIndicatorsSupported bool `json:"resource_indicators_supported,omitempty"`
}

// ServerDiscovery is an authorization server's metadata and how it was
// found.
type ServerDiscovery struct {
	Document
	Metadata ServerMetadata
	// Issuer is the issuer identifier the URIs were built from, which the
	// document's issuer equals.
	Issuer string
	// OpenID says the document is an OpenID Connect discovery document
	// (openid-configuration) rather than RFC 8414 metadata.
	OpenID bool
}

const issuerMismatchPrefix = "issuer mismatch"

// DiscoverAuthServer finds the metadata of the authorization server with
// this issuer identifier at AuthServerMetadataURIs, in order, and accepts
// a document only when its issuer is identical to the issuer the URI was
// built from (authorization-server-discovery.mdx: "the issuer value in the
// document MUST be identical to the issuer identifier used to construct the
// well-known URL. If they differ, the client MUST NOT use the metadata";
// RFC 8414 §3.3). A document naming another issuer is an attempt that
// failed ("issuer mismatch: …"), and discovery goes on to the next URI. A
// *DiscoveryError lists every URI tried.
func (f *Fetcher) DiscoverAuthServer(ctx context.Context, issuer string) (*ServerDiscovery, error) {
	uris, err := AuthServerMetadataURIs(issuer)
	if err != nil {
		return nil, err
	}
	whys := []string{"RFC 8414", "OpenID Connect Discovery"}
	if len(uris) == 3 {
		whys = []string{"RFC 8414 path insertion", "OpenID Connect Discovery path insertion", "OpenID Connect Discovery path appending"}
	}
	var tried []Attempt
	for i, u := range uris {
		a := Attempt{URL: u, Why: whys[i]}
		ans, err := f.get(ctx, u)
		switch {
		case err != nil:
			a.Err = err.Error()
		case ans.status != http.StatusOK:
			a.Status, a.ContentType, a.Body = ans.status, ans.contentType, ans.body
			a.Err = fmt.Sprintf("HTTP %d", ans.status)
		default:
			a.Status, a.ContentType, a.Body = ans.status, ans.contentType, ans.body
			var md ServerMetadata
			if err := decodeObject(ans.body, &md); err != nil {
				a.Err = "HTTP 200 but " + err.Error()
				break
			}
			if md.Issuer != issuer {
				a.Err = fmt.Sprintf("%s: the document's issuer is %q, not %q (RFC 8414 §3.3: it MUST NOT be used)", issuerMismatchPrefix, md.Issuer, issuer)
				break
			}
			tried = append(tried, a)
			return &ServerDiscovery{Document: Document{URL: u, Raw: ans.body, Tried: tried}, Metadata: md,
				Issuer: issuer, OpenID: strings.Contains(u, WellKnownOpenID)}, nil
		}
		tried = append(tried, a)
		if ctx.Err() != nil {
			break
		}
		if errors.Is(err, errNoAnswer) && i < len(uris)-1 {
			// Every URI is on the issuer's origin: a silent one costs one
			// --timeout, not one per URI.
			tried[len(tried)-1].Err += fmt.Sprintf(" (the other %d well-known URIs of this origin not tried)", len(uris)-1-i)
			break
		}
	}
	return nil, &DiscoveryError{What: "authorization server metadata for issuer " + issuer, Tried: tried}
}

// decodeObject decodes a JSON object into v. A member of the wrong type
// (a number where a string belongs) is an error naming it.
func decodeObject(body []byte, v any) error {
	b := bytes.TrimSpace(body)
	if len(b) == 0 || b[0] != '{' {
		return errors.New("the body is not a JSON object")
	}
	if err := json.Unmarshal(b, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return fmt.Errorf("member %s has the wrong type (%s, want %s)", te.Field, te.Value, te.Type)
		}
		return fmt.Errorf("the body is not valid JSON: %v", err)
	}
	return nil
}
