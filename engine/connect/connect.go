// Package connect starts the test fixture (internal/mcptest) and connects
// mcp-eval's own client to it: the first step of the tests that drive a
// server through the client (agent, engine/runs, resilience, bench).
//
// It imports testing and is meant for _test.go files only. mcptest itself
// imports only the standard library (a leaf helper), so the client lives
// here, beside the engines, where importing mcp runs downward.
package connect

import (
	"testing"

	"github.com/mcp-eval/mcp-eval/internal/mcptest"
	"github.com/mcp-eval/mcp-eval/mcp"
)

// HTTP serves the fixture with o over Streamable HTTP and returns it, a
// client connected to it with co, and the tools it lists. Server and client
// are closed when the test ends.
func HTTP(tb testing.TB, o mcptest.Options, co mcp.Options) (*mcptest.HTTP, *mcp.Client, []mcp.Tool) {
	tb.Helper()
	fx := mcptest.Serve(tb, o)
	c, err := mcp.Connect(tb.Context(), &mcp.HTTPTarget{URL: fx.URL}, co)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	tools, err := c.ListTools(tb.Context())
	if err != nil {
		tb.Fatal(err)
	}
	return fx, c, tools
}
