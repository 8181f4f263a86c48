package main

import (
	"io"
	"log"

	"github.com/go-logr/stdr"
	"go.opentelemetry.io/otel"

	"github.com/mcp-eval/mcp-eval/internal/redact"
)

// routeLogs sends what is logged without this program asking (Go's HTTP
// client on bytes a server sent after its response, OpenTelemetry's error
// handler and internal logger) through redact.Logs to stderr, masked with
// the environment's secrets now and each run's as it starts
// (pipeline.Evaluate calls redact.MaskLogs): nothing reaches stderr past
// the redactor. OpenTelemetry's logger otherwise writes to os.Stderr
// itself, not through the standard logger.
func routeLogs(stderr io.Writer, red *redact.Redactor) {
	redact.SetLogOutput(stderr)
	redact.MaskLogs(red)
	log.SetOutput(redact.Logs)
	log.SetFlags(0)
	log.SetPrefix("mcp-eval: log: ")
	otel.SetLogger(stdr.New(log.Default()))
}
