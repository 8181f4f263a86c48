// Command weather-server is the example MCP server that mcp-eval's quickstart
// evaluates. It speaks MCP revision 2026-07-28 (no initialize; every request
// carries its own _meta) and, through the official Go SDK, the earlier
// initialize-based revisions too.
//
// All data is fake and fixed, and nothing touches the network:
//
//   - get_weather: current weather for eight cities (read-only)
//   - search_invoices: filters a small invoice table (read-only)
//   - send_email: records the message in an in-memory outbox and returns its
//     id; nothing is ever sent
//   - prompt weather_report, resource weather://stations and resource
//     template weather://stations/{id}
//
// Usage:
//
//	weather-server                        serve MCP over stdin/stdout
//	weather-server -http 127.0.0.1:8080   serve stateless Streamable HTTP
//
// Over HTTP the MCP endpoint is /mcp, and / serves the same endpoint so that
// a bare base URL works too; every other path is 404. Add -json-response to
// answer requests with application/json instead of an SSE stream, and -v to
// log every request.
//
// Logs go to stderr only: on stdio, stdout carries the protocol.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stderr))
}

// run parses args and serves until ctx is cancelled or, on stdio, the client
// closes stdin. It returns the process exit code.
func run(ctx context.Context, args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("weather-server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("http", "", "serve stateless Streamable HTTP on `ADDR` (e.g. 127.0.0.1:8080) instead of stdio")
	jsonResponse := fs.Bool("json-response", false, "over HTTP, answer with application/json instead of text/event-stream")
	verbose := fs.Bool("v", false, "log every session and request (the SDK's info-level logs)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "weather-server: unexpected argument %q\n", fs.Arg(0))
		return 2
	}

	// The SDK logs at info level for every stateless HTTP request; by
	// default keep only warnings and errors.
	level := slog.LevelWarn
	if *verbose {
		level = slog.LevelInfo
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	srv := newServer(new(outbox), logger)

	var err error
	if *addr == "" {
		err = srv.Run(ctx, newStdioTransport(os.Stdin, os.Stdout))
	} else {
		err = serveHTTP(ctx, *addr, newHTTPHandler(srv, *jsonResponse, logger), stderr)
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintf(stderr, "weather-server: %v\n", err)
		return 1
	}
	return 0
}

// serveHTTP serves h on addr until ctx is cancelled, then shuts down
// gracefully.
func serveHTTP(ctx context.Context, addr string, h http.Handler, stderr io.Writer) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	hs := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
	}
	// Printed whatever the log level: with port 0 it is how the caller
	// learns the address.
	fmt.Fprintf(stderr, "weather-server: serving MCP (stateless Streamable HTTP) at http://%s/mcp\n", ln.Addr())

	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutdownCtx); err != nil {
		return err
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
