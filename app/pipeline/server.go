package pipeline

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mcp-eval/mcp-eval/conformance"
	"github.com/mcp-eval/mcp-eval/internal/exitcode"
	"github.com/mcp-eval/mcp-eval/internal/oauth"
	"github.com/mcp-eval/mcp-eval/internal/otlpreceiver"
	"github.com/mcp-eval/mcp-eval/internal/passthrough"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/telemetry"
)

// session is the connected server: the client, the target it reached, and
// what close undoes (the client, a started server, server.log), in that
// order.
type session struct {
	client *mcp.Client
	target mcp.Target
	// auth is the run's OAuth session (--oauth-*), nil without one.
	auth *oauth.Session
	// passthrough is the --passthrough-listener, nil without one.
	passthrough *passthrough.Listener
	// traces is the --otlp-receiver, nil without one.
	traces *otlpreceiver.Receiver
	undo   []func()
}

func (s *session) close() {
	for i := len(s.undo) - 1; i >= 0; i-- {
		s.undo[i]()
	}
}

// connect opens server.log, starts the server with --server-start, and
// connects the MCP client to --server-url or --server-cmd. On an error
// what was opened is closed again.
func (p *RunPlan) connect(ctx context.Context) (_ *session, err error) {
	cfg, env := p.cfg, p.env
	s := &session{}
	defer func() {
		if err != nil {
			s.close()
		}
	}()
	serverLog, closeLog, err := p.openServerLog()
	if err != nil {
		return nil, err
	}
	s.undo = append(s.undo, closeLog)
	if addr := cfg.AuthChecks.PassthroughListener; addr != "" {
		// Up before the server starts: its upstream may be called at once.
		if s.passthrough, err = passthrough.Listen(addr); err != nil {
			return nil, exitcode.Usagef("--passthrough-listener %s: %v", addr, err)
		}
		s.undo = append(s.undo, func() { _ = s.passthrough.Close() })
	}
	if addr := cfg.TraceChecks.OTLPReceiver; addr != "" {
		// Up before the server starts: its exporter may send at once.
		if s.traces, err = otlpreceiver.Listen(addr); err != nil {
			return nil, exitcode.Usagef("--otlp-receiver %s: %v", addr, err)
		}
		s.undo = append(s.undo, func() { _ = s.traces.Close() })
	}
	p.started = time.Now()
	if cfg.ServerStart != "" {
		stop, err := startServer(ctx, cfg.ServerStart, cfg.ServerURL, cfg.StartTimeout, serverLog, env.Stderr)
		if err != nil {
			return nil, exitcode.New(exitcode.NoEval, err.Error()+p.seeServerLog())
		}
		s.undo = append(s.undo, func() { stop(env.Stderr) })
	}
	if s.target, err = p.target(serverLog); err != nil {
		return nil, err
	}
	if s.auth, err = p.oauthSession(); err != nil {
		return nil, err
	}
	opts := p.connectOptions()
	if s.auth != nil {
		opts.Authorizer = s.auth
		oauthCapabilities(s.auth, &opts)
	}
	if s.client, err = mcp.Connect(ctx, s.target, opts); err != nil {
		return nil, connectError(ctx, cfg, err, p.red, p.seeServerLog())
	}
	s.undo = append(s.undo, func() { s.client.Close() })
	if p.wire != nil {
		// What came back before this (the era probe) was held until now.
		p.wire.SetRevision(s.client.Version())
	}
	return s, nil
}

// target is the server to connect to: --server-url with its headers, or
// --server-cmd, whose stderr goes to server.log. Telemetry observes every
// message either way, and the answer budget follows --max-message-bytes.
func (p *RunPlan) target(log io.Writer) (mcp.Target, error) {
	cfg := p.cfg
	// The answers being read at once share one memory budget, one
	// --max-message-bytes beyond their free allowance (DESIGN.md §Bounds).
	mcp.SetAnswerBudget(cfg.MaxMessageBytes)
	var obs mcp.Observer
	if len(p.mcpObs) > 0 {
		obs = telemetry.MCPObservers(p.mcpObs...)
	}
	if cfg.ServerURL != "" {
		hs, err := cfg.ExpandHeaders(p.env.Getenv)
		if err != nil {
			return nil, err
		}
		h := http.Header{}
		for _, x := range hs {
			h.Add(x.Name, x.Value)
		}
		return &mcp.HTTPTarget{URL: cfg.ServerURL, Header: h, MaxBytes: cfg.MaxMessageBytes, Client: mcp.NewHTTPClient(), Observer: obs}, nil
	}
	argv, err := serverCommand(cfg.ServerCmd, p.env.Getenv)
	if err != nil {
		return nil, err
	}
	// Every process of the run (the probe's, fresh ones, Layer 2's
	// restarts) names what it left behind, one line each, as it stops.
	var mu sync.Mutex
	left := func(pids []int) {
		mu.Lock()
		defer mu.Unlock()
		warnLeftovers(p.env.Stderr, "--server-cmd", pids)
	}
	return &mcp.CommandTarget{Command: mcp.Command{Argv: argv, Stderr: log, MaxBytes: cfg.MaxMessageBytes, Observer: obs, Leftovers: left}}, nil
}

// connectOptions are the MCP client's options for the run: the timeouts,
// the revision, start-up progress on stderr, and, with OTLP export on, a
// span per tool call whose traceparent goes in the request's _meta.
func (p *RunPlan) connectOptions() mcp.Options {
	opts := mcp.Options{
		ClientInfo: mcp.Implementation{Name: "mcp-eval", Version: p.env.Version},
		Timeout:    p.cfg.Timeout,
		Version:    p.cfg.ProtocolVersion,
		// --start-timeout covers a stdio server's first answer too.
		StartTimeout: p.cfg.StartTimeout,
		Waiting:      startProgress(p.env.Stderr),
	}
	if exp := p.exp; exp != nil {
		opts.StartRequest = func(ctx context.Context, method, name string) (string, func(error)) {
			if method != "tools/call" || name == "" || strings.HasPrefix(name, telemetry.ProbePrefix) {
				return "", nil
			}
			return exp.StartToolCall(ctx, name)
		}
	}
	return opts
}

// seeServerLog points at server.log, where the whole output of a server
// the run started is, for the one line that says it could not start.
func (p *RunPlan) seeServerLog() string {
	if p.cfg.ServerCmd == "" && p.cfg.ServerStart == "" {
		return ""
	}
	return " (the server's whole output: " + filepath.Join(p.cfg.Out, "server.log") + ")"
}

// openServerLog creates OUT/server.log for what the server prints. It is
// masked too: a server that logs its request headers would otherwise write
// the token into an uploaded artifact. closeLog flushes and closes it; it
// runs once the server has stopped (session.close).
func (p *RunPlan) openServerLog() (_ io.Writer, closeLog func(), _ error) {
	if err := os.MkdirAll(p.cfg.Out, 0o755); err != nil {
		return nil, nil, exitcode.Configf("--out: %v", err)
	}
	f, err := os.Create(filepath.Join(p.cfg.Out, "server.log"))
	if err != nil {
		return nil, nil, exitcode.Configf("--out: %v", err)
	}
	// Capped (head and tail kept) so a server that floods stderr cannot
	// fill the disk; masked before the cap, so what is kept is clean, and
	// as a file (held across lines), so it masks what the reports mask.
	capped := NewCappedLog(f, ServerLogCap)
	w := p.red.FileWriter(capped)
	return w, func() { w.Flush(); capped.Close(); f.Close() }, nil
}

// replicas are the replicas given with --server-url: the server's own
// target with another URL (the same headers, bounds and observers, so that
// their answers are judged like the server's). With --oauth-* each replica
// gets an OAuth session of its own, with the run's credentials: it
// discovers from the replica's 401 and asks for a token for the resource
// the replica's metadata names (RFC 9728 §5.1, RFC 8707 §2), and sends it
// to that replica only. Replicas behind one name that share a resource
// get tokens for it each; a replica that is a resource of its own gets its
// own audience. A token is never sent where it was not requested for.
func (p *RunPlan) replicas(s *session) ([]conformance.Replica, error) {
	ht, ok := s.target.(*mcp.HTTPTarget)
	if !ok {
		return nil, nil
	}
	var out []conformance.Replica
	for _, u := range p.cfg.Replicas {
		r := conformance.Replica{HTTPTarget: &mcp.HTTPTarget{URL: u, Header: ht.Header, MaxBytes: ht.MaxBytes, Client: mcp.NewHTTPClient(), Observer: ht.Observer}}
		if s.auth != nil {
			a, err := p.oauthSessionFor(u)
			if err != nil {
				return nil, err
			}
			r.Authorizer = a
		}
		out = append(out, r)
	}
	return out, nil
}
