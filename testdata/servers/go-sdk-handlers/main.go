// Command go-sdk-handlers is a small MCP server built on the official Go SDK
// (github.com/modelcontextprotocol/go-sdk, the version in go.mod), for the
// e2e verdict corpus: the same server over stdio, over the SDK's default
// (stateful) StreamableHTTPHandler, and over the stateless one, so that a
// test shows what each wiring makes of the 2026-07-28 rules.
//
//	go-sdk-handlers                          # stdio
//	go-sdk-handlers -http 127.0.0.1:PORT     # stateful HTTP at /
//	go-sdk-handlers -http 127.0.0.1:PORT -stateless
//
// Its one tool, lookup_city, is readOnlyHint and typed, so the SDK gives it
// an outputSchema and answers with structuredContent.
package main

import (
	"context"
	"flag"
	"log"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type lookupIn struct {
	City string `json:"city" jsonschema:"the city to look up, for example Lisbon"`
}

type lookupOut struct {
	City    string `json:"city" jsonschema:"the city as found"`
	Country string `json:"country" jsonschema:"the country it is in"`
}

func main() {
	addr := flag.String("http", "", "serve Streamable HTTP at this address instead of stdio")
	stateless := flag.Bool("stateless", false, "use the stateless HTTP handler (2026-07-28)")
	flag.Parse()

	server := mcp.NewServer(&mcp.Implementation{Name: "go-sdk-handlers", Version: "1.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{
		Name:        "lookup_city",
		Description: "Look up which country a city is in; answers with the city and its country.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}, func(ctx context.Context, req *mcp.CallToolRequest, in lookupIn) (*mcp.CallToolResult, lookupOut, error) {
		country := "unknown"
		switch strings.ToLower(in.City) {
		case "lisbon":
			country = "Portugal"
		case "paris":
			country = "France"
		}
		return nil, lookupOut{City: in.City, Country: country}, nil
	})

	if *addr == "" {
		if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			log.Fatal(err)
		}
		return
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{Stateless: *stateless})
	srv := &http.Server{Addr: *addr, Handler: h, ReadHeaderTimeout: 10 * time.Second}
	log.Printf("serving at http://%s/ (stateless: %v)", *addr, *stateless)
	log.Fatal(srv.ListenAndServe())
}
