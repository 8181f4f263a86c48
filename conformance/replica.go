package conformance

import "github.com/mcp-eval/mcp-eval/mcp"

// Replica is another endpoint of the server under test behind the same
// name (--server-url given again), and how requests to it are authorized.
type Replica struct {
	*mcp.HTTPTarget
	// Authorizer, when set, obtains the replica's access token (the run's
	// OAuth client, discovering from the replica's own 401: each replica
	// is a protected resource in its own right, RFC 9728 §5.1, and gets a
	// token requested for the resource its metadata names, RFC 8707 §2,
	// sent to its origin only); nil sends the target's headers alone.
	Authorizer mcp.Authorizer
}
