// Package mcp is a small Model Context Protocol client made for evaluating
// servers rather than for building hosts.
//
// It speaks revision 2026-07-28 (stateless: every request carries its
// protocol version and client capabilities in params._meta, Streamable HTTP
// requests carry MCP-Protocol-Version, Mcp-Method and Mcp-Name headers) and
// falls back to the 2025-11-25 initialize handshake for legacy servers, so
// that every layer of mcp-eval can talk to both eras.
//
// Unlike an SDK it keeps the wire visible: every call returns an Exchange
// with the exact bytes sent, the HTTP status and headers, and every JSON-RPC
// message received, and a caller may alter or drop any header or _meta key
// before sending. The conformance layer is built on that raw mode.
//
// The server under test is untrusted: every request has a deadline, every
// answer is read through a size limit, and nothing the server sends can make
// the client panic. The package imports only the standard library and two
// stdlib-only internal packages, internal/proc (server processes: start,
// shutdown) and internal/clip (quoted text shortened on a rune boundary);
// it knows nothing of reports, layers or telemetry (see Observer).
package mcp
