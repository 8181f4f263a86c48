package mcp

import (
	"context"
	"errors"
	"fmt"
)

// Redial connects to c's target again, in c's era and with c's options,
// for a check that needs a connection of its own: a fresh HTTP connection,
// or a new stdio process, with a legacy handshake of its own when c is
// legacy (a legacy server keeps state per session).
//
// c's connection showed that an MCP server answers at the target, so a new
// connection that gets no JSON-RPC answer fails with what happened to it
// (a timeout, an exit), never a *NotMCPError: "no MCP server at the
// target" would be false. A new process's first answer is waited for as
// long as freshTimeout allows from c's first start, measured on this
// machine, however many processes start beside it.
func (c *Client) Redial(ctx context.Context) (*Client, error) {
	if c.era != EraLegacy {
		t, err := c.target.Dial(ctx)
		if err != nil {
			return nil, err
		}
		return c.WithTransport(t), nil
	}
	nc := &Client{target: c.target, opts: c.opts, era: EraUnknown, paramHeaders: c.paramHeaders,
		started: c.firstStart()}
	nc.opts.Version = LegacyVersion
	nc.ids.Store(c.ids.Load() + 1_000_000)
	err := nc.connectLegacy(ctx)
	switch {
	case err == nil:
		return nc, nil
	case errors.Is(err, ErrUnreachable), errors.Is(err, ErrAuthorization):
		return nil, err
	case !gotJSONRPC(nc.probe.Initialize):
		return nil, fmt.Errorf("a new connection to the server, which answered the run's first one, got no answer to its handshake: %w", err)
	}
	// It answered, but not with a handshake, as connectForcedLegacy keeps
	// it: the checks report what it does.
	t, err := c.target.Dial(ctx)
	if err != nil {
		return nil, err
	}
	nc.t, nc.era, nc.version = t, EraUnknown, LegacyVersion
	return nc, nil
}
