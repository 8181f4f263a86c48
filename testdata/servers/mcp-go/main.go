// Command mcp-go-server is a small MCP server built on github.com/mark3labs/mcp-go
// v1.2.1 the way its README documents it: NewMCPServer with tool capabilities, the
// README's hello_world tool, a read-only tool, and the task capabilities its
// examples/task_tool turns on (WithTaskCapabilities), served over stdio
// (ServeStdio) or, with -http ADDR, Streamable HTTP (NewStreamableHTTPServer at
// /mcp). It is a nested module, so the project's go.mod never requires mcp-go;
// .ci/install-deps.sh builds it for the e2e corpus.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

func main() {
	addr := flag.String("http", "", "serve Streamable HTTP at ADDR (endpoint /mcp) instead of stdio")
	flag.Parse()

	s := server.NewMCPServer(
		"mcp-go corpus server",
		"1.0.0",
		server.WithToolCapabilities(false),
		server.WithTaskCapabilities(true, true, true),
		server.WithRecovery(),
	)

	hello := mcp.NewTool("hello_world",
		mcp.WithDescription("Say hello to someone"),
		mcp.WithString("name",
			mcp.Required(),
			mcp.Description("Name of the person to greet"),
		),
	)
	s.AddTool(hello, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		name, err := req.RequireString("name")
		if err != nil {
			return mcp.NewToolResultError(err.Error()), nil
		}
		return mcp.NewToolResultText(fmt.Sprintf("Hello, %s!", name)), nil
	})

	upper := mcp.NewTool("upper_case",
		mcp.WithDescription("Return the given text in upper case; it changes nothing anywhere"),
		mcp.WithReadOnlyHintAnnotation(true),
		mcp.WithString("text",
			mcp.Required(),
			mcp.Description("Text to convert"),
		),
	)
	s.AddTool(upper, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		text, err := req.RequireString("text")
		if err != nil {
			return mcp.NewToolResultError(err.Error()), nil
		}
		return mcp.NewToolResultText(strings.ToUpper(text)), nil
	})

	if *addr != "" {
		h := server.NewStreamableHTTPServer(s, server.WithEndpointPath("/mcp"))
		if err := h.Start(*addr); err != nil {
			log.Fatalf("server error: %v", err)
		}
		return
	}
	if err := server.ServeStdio(s); err != nil {
		log.Fatalf("server error: %v", err)
	}
}
