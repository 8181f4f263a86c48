// Command mcp-eval evaluates a Model Context Protocol server before it
// ships: protocol conformance (Layer 0) on every push, and the model layers
// where configured. See README.md and DESIGN.md.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/mcp-eval/mcp-eval/internal/exitcode"
)

func main() {
	setMemoryLimit(os.Getenv)
	ctx, stop := interruptible()
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// interruptible returns a context that SIGINT or SIGTERM ends with an
// *exitcode.Interrupted cause: the run stops, writes what finished and exits
// 130 or 143. A second signal gets the default action (the process dies at
// once), for a user who will not wait.
func interruptible() (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sigs:
			signal.Reset(os.Interrupt, syscall.SIGTERM)
			in := &exitcode.Interrupted{Name: "SIGTERM", Num: 15}
			if s == os.Interrupt {
				in = &exitcode.Interrupted{Name: "SIGINT", Num: 2}
			}
			cancel(in)
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel(nil)
	}
}
