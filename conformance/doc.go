// Package conformance is Layer 0: deterministic checks, with no model, of
// whether an MCP server follows protocol revision 2026-07-28.
//
// Every check has a stable id "group/check", the spec's requirement level,
// the spec section it enforces, and evidence (the request and the relevant
// part of the answer) when it does not pass. The seven groups of
// report.HardGroups (discover, ordering, caching, result-type, schema,
// errors, headers) are the hard assertions of DESIGN.md; elsewhere the
// spec's MUST or SHOULD decides whether a failure fails the run.
//
// Checks never cause side effects on the server: no probe calls a tool
// unless it is marked readOnlyHint or listed as safe by the user, and rules
// that can be probed with a name the server does not have (a header
// mismatch is rejected before the method runs) are probed that way.
//
// The package imports mcp, report, internal/schema and engine/wire (the
// whole-message schema), never another layer.
package conformance
