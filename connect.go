package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/mcp-eval/mcp-eval/internal/redact"
	"github.com/mcp-eval/mcp-eval/mcp"
)

// connectError turns a failed mcp.Connect into exit 3 with one line: what
// is at the target is not something to evaluate, and no check list would
// say more (README §Exit codes).
func connectError(ctx context.Context, cfg *Config, err error, red *redact.Redactor) error {
	if ctx.Err() != nil {
		return &exitError{3, "interrupted"}
	}
	var ue *mcp.UnauthorizedError
	var nm *mcp.NotMCPError
	switch {
	case errors.As(err, &ue):
		return &exitError{3, red.String(ue.Error())}
	case errors.As(err, &nm):
		msg := nm.Error()
		if nm.Stderr != "" && cfg.ServerCmd != "" {
			msg = fmt.Sprintf("no MCP server on stdio: the process printed %q on stderr — did you mean --server-start '%s' --server-url <its URL>?",
				nm.Stderr, cfg.ServerCmd)
		}
		return &exitError{3, red.String(msg)}
	}
	return &exitError{3, "could not reach the server: " + red.String(err.Error())}
}

// startProgress reports on stderr while a stdio server starts, so that a
// slow first build (`go run`, `npx`) is not mistaken for a hang.
func startProgress(stderr io.Writer) func(time.Duration) {
	return func(d time.Duration) {
		fmt.Fprintf(stderr, "mcp-eval: waiting for the server to start… %d s\n", int(d.Round(time.Second).Seconds()))
	}
}
