package mcp

import (
	"context"
	"net/http"
	"sync"
)

// Target is a server to connect to: an HTTP endpoint or a command.
type Target interface {
	// Dial opens a transport. For a command it starts a new process, which
	// the era probe uses to fall back to initialize on a clean server.
	Dial(ctx context.Context) (Transport, error)
	// Kind is "http" or "stdio".
	Kind() string
	String() string
}

// HTTPTarget is a Streamable HTTP endpoint.
type HTTPTarget struct {
	URL      string
	Header   http.Header
	MaxBytes int64
	Observer Observer
	Client   *http.Client

	once   sync.Once
	health *health
}

// Dial implements Target; every dial shares the target's connection pool
// and its health (see Client.Do) but not its legacy session.
func (t *HTTPTarget) Dial(context.Context) (Transport, error) {
	t.once.Do(func() { t.health = &health{} })
	return &HTTP{URL: t.URL, Header: t.Header, MaxBytes: t.MaxBytes, Observer: t.Observer, Client: t.Client, health: t.health}, nil
}

// Kind implements Target.
func (t *HTTPTarget) Kind() string { return "http" }

func (t *HTTPTarget) String() string { return t.URL }

// CommandTarget is a server launched as a subprocess speaking stdio.
type CommandTarget struct{ Command Command }

// Dial implements Target by starting a new server process.
func (t *CommandTarget) Dial(ctx context.Context) (Transport, error) {
	return StartCommand(ctx, t.Command)
}

// Kind implements Target.
func (t *CommandTarget) Kind() string { return "stdio" }

func (t *CommandTarget) String() string { return t.Command.String() }
