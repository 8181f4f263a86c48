package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/mcp-eval/mcp-eval/mcp"
)

// startedServer is an HTTP server mcp-eval launched with --server-start.
type startedServer struct{ *mcp.StartedServer }

// startServer runs cmdline through the system shell where there is one
// (serverStartCommand), then waits until url answers (mcp.StartServer).
func startServer(ctx context.Context, cmdline, url string, timeout time.Duration, log io.Writer) (*startedServer, error) {
	argv, err := serverStartCommand(cmdline, os.Getenv)
	if err != nil {
		return nil, err
	}
	s, err := mcp.StartServer(ctx, argv, url, timeout, log)
	switch {
	case ctx.Err() != nil:
		return nil, errors.New("interrupted while starting the server")
	case err != nil:
		return nil, fmt.Errorf("--server-start: %v", err)
	}
	return &startedServer{s}, nil
}

// stopAndReport stops the server and names on w the processes it had left
// outside its process group.
func (s *startedServer) stopAndReport(w io.Writer) {
	if left := s.Stop(); len(left) > 0 {
		fmt.Fprintf(w, "mcp-eval: warning: the --server-start server left %d process(es) outside its process group; killed pid %s\n",
			len(left), joinInts(left))
	}
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}
