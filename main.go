// Command mcp-eval evaluates a Model Context Protocol server before it
// ships: protocol conformance (Layer 0) on every push, and the model layers
// where configured. See README.md and DESIGN.md.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	setMemoryLimit(os.Getenv)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
