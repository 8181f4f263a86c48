// Package describe takes the server description once, right after
// connecting: its era and protocol version, serverInfo, capabilities, and
// the surface a model or client sees (tools, prompts, resource templates)
// with its fingerprint. Every layer and the report use this one
// description, so the fingerprint — which drift attribution and merge
// compare — does not depend on which layers ran.
package describe

import (
	"context"
	"encoding/json"
	"slices"
	"sync"

	"github.com/mcp-eval/mcp-eval/engine/surface"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/report"
)

// Server is what the run knows about the server under test.
type Server struct {
	Era       mcp.Era
	Version   string
	Supported []string
	// ServerInfo is the server's self-description: _meta serverInfo of the
	// discover result (https://modelcontextprotocol.io/specification/2026-07-28/basic), or initialize's serverInfo.
	ServerInfo   json.RawMessage
	Capabilities json.RawMessage
	// Tools are the decoded tools/list entries, each with its raw JSON.
	Tools []mcp.Tool
	// ToolsErr is the error of tools/list, if it failed.
	ToolsErr error
	// Prompts and Templates are the raw prompts/list and
	// resources/templates/list entries, listed when declared.
	Prompts, Templates []json.RawMessage
	// Fingerprint is the SHA-256 of the canonical surface; empty when the
	// era is unknown (nothing MCP answered, so there is no surface).
	Fingerprint string
	Surface     report.Surface
}

// Describe lists what the server declares, as conformance's environment
// does: tools when the tools capability is declared or the capabilities are
// unknown, prompts and resource templates when declared. Listing errors are
// kept, not returned: a layer that needs the tools decides what an error
// means for it.
func Describe(ctx context.Context, c *mcp.Client) *Server {
	s := &Server{Era: c.Era(), Version: c.Version(), Supported: []string{}}
	caps, _, serverInfo := Declared(c)
	s.ServerInfo = serverInfo
	if d := c.Discover(); d != nil {
		s.Supported = append(s.Supported, d.SupportedVersions...)
		if s.Era == mcp.EraModern && !slices.Contains(d.SupportedVersions, mcp.LatestVersion) {
			// The era comes from the answer's content, as conformance's
			// era/modern judges it: a DiscoverResult that does not list
			// 2026-07-28 is a legacy endpoint for this revision (a client
			// MUST NOT use a revision the server does not list).
			s.Era = mcp.EraLegacy
		}
		s.Capabilities = d.Capabilities
	} else if caps != nil {
		if b, err := json.Marshal(caps); err == nil {
			s.Capabilities = b
		}
	}
	declares := func(name string) bool { _, ok := caps[name]; return ok }
	// The lists are walked at once, as the checks send their requests: a
	// server that answers none of them costs one --timeout here, not one
	// per list in turn, and the three timeouts together trip the client's
	// breaker for a hung server (mcp/health.go) before any check waits.
	var wg sync.WaitGroup
	if declares("tools") || caps == nil {
		wg.Go(func() { s.Tools, s.ToolsErr = c.ListTools(ctx) })
	}
	if declares("prompts") {
		wg.Go(func() { s.Prompts, _ = c.ListAll(ctx, "prompts/list", "prompts") })
	}
	if declares("resources") {
		wg.Go(func() { s.Templates, _ = c.ListAll(ctx, "resources/templates/list", "resourceTemplates") })
	}
	wg.Wait()
	fp, surf := surface.Compute(s.ToolsRaw(), s.Prompts, s.Templates)
	s.Surface = surf
	if s.Era != mcp.EraUnknown {
		s.Fingerprint = fp
	}
	return s
}

// ToolsRaw returns the raw JSON of each tool.
func (s *Server) ToolsRaw() []json.RawMessage {
	out := make([]json.RawMessage, len(s.Tools))
	for i, t := range s.Tools {
		out[i] = t.Raw
	}
	return out
}

// Declared returns the capabilities and serverInfo the server declared:
// server/discover's (serverInfo from its _meta, https://modelcontextprotocol.io/specification/2026-07-28/basic), else
// initialize's. known says whether the capabilities were a JSON object;
// caps is nil only when the server answered neither.
func Declared(c *mcp.Client) (caps map[string]json.RawMessage, known bool, serverInfo json.RawMessage) {
	if d := c.Discover(); d != nil {
		caps, known = objectMembers(d.Capabilities), isObject(d.Capabilities)
		var meta struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		}
		if json.Unmarshal(d.Raw, &meta) == nil {
			serverInfo = meta.Meta[mcp.MetaServerInfo]
		}
	}
	if ir := c.InitializeResult(); ir != nil {
		var init struct {
			Capabilities json.RawMessage `json:"capabilities"`
			ServerInfo   json.RawMessage `json:"serverInfo"`
		}
		if json.Unmarshal(ir, &init) == nil {
			if caps == nil {
				caps, known = objectMembers(init.Capabilities), isObject(init.Capabilities)
			}
			if serverInfo == nil {
				serverInfo = init.ServerInfo
			}
		}
	}
	return caps, known, serverInfo
}

func isObject(raw json.RawMessage) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(raw, &m) == nil && m != nil
}

func objectMembers(raw json.RawMessage) map[string]json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return map[string]json.RawMessage{}
	}
	return m
}
