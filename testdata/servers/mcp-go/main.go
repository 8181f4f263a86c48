// Command mcp-go-server is a small MCP server built on github.com/mark3labs/mcp-go
// v1.2.1 the way its README documents it: NewMCPServer with tool capabilities, the
// README's hello_world tool, a read-only tool, and the task capabilities its
// examples/task_tool turns on (WithTaskCapabilities), served over stdio
// (ServeStdio) or, with -http ADDR, Streamable HTTP (NewStreamableHTTPServer at
// /mcp). It is a nested module, so the project's go.mod never requires mcp-go;
// .ci/install-deps.sh builds it for the e2e corpus.
//
//	mcp-go-server -http 127.0.0.1:PORT -issuer http://127.0.0.1:AS_PORT [-scope 'mcp:tools'] [-no-audience] [-no-signature]
//
// protects /mcp for the auth corpus: the RFC 9728 metadata is mcp-go's own
// (WithProtectedResourceMetadata, at the path-inserted well-known URI), the
// token check a middleware in front of the handler (auth.go), since mcp-go
// validates no token. The endpoint is also the resource identifier.
// -no-audience accepts tokens whatever their audience, -no-signature reads
// the claims without verifying the signature (iss, exp, aud and scope still
// checked): the negative corpus.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net/http"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

func main() {
	addr := flag.String("http", "", "serve Streamable HTTP at ADDR (endpoint /mcp) instead of stdio")
	issuer := flag.String("issuer", "", "with -http: protect /mcp with access tokens of this authorization server")
	scope := flag.String("scope", "mcp:tools", "with -issuer: space-separated scopes every request needs")
	noAudience := flag.Bool("no-audience", false, "with -issuer: accept tokens whatever their audience (a defect, for the negative corpus)")
	noSignature := flag.Bool("no-signature", false, "with -issuer: read the claims without verifying the signature (a defect, for the negative corpus)")
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

	if *addr != "" && *issuer != "" {
		resource := "http://" + *addr + "/mcp"
		v := &verifier{issuer: *issuer, resource: resource, scopes: strings.Fields(*scope),
			metadataURL:   "http://" + *addr + server.ProtectedResourceMetadataPath(resource),
			checkAudience: !*noAudience, checkSignature: !*noSignature, hc: &http.Client{Timeout: 10 * time.Second}}
		h := server.NewStreamableHTTPServer(s, server.WithEndpointPath("/mcp"),
			server.WithProtectedResourceMetadata(server.ProtectedResourceMetadataConfig{
				Resource: resource, AuthorizationServers: []string{*issuer}, ScopesSupported: v.scopes,
				BearerMethodsSupported: []string{"header"}, ResourceName: "mcp-go corpus server",
			}))
		mux := http.NewServeMux()
		mux.Handle(server.ProtectedResourceMetadataPath(resource), h)
		mux.Handle("/mcp", v.middleware(h))
		srv := &http.Server{Addr: *addr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
		log.Printf("serving %s (issuer %s)", resource, *issuer)
		log.Fatal(srv.ListenAndServe())
	}
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
