package agent

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"

	"github.com/mcp-eval/mcp-eval/llm"
)

// MCP allows tool names of up to 128 characters with dots and slashes
// (2026-07-28, "Tools": names SHOULD be 1–128 of [A-Za-z0-9_.-/]), but the
// model APIs do not: Chat Completions rejects a function name outside
// ^[a-zA-Z0-9_-]{1,64}$ and the Messages API one outside
// ^[a-zA-Z0-9_-]{1,128}$, both with HTTP 400 for the whole request. So one
// tool named "weather.get" would fail every run of every case. The loop
// offers the model a provider-safe alias of each name instead, valid for
// both APIs, and translates the model's calls back before executing and
// scoring them: transcripts, reports and the judge see the server's names.

// ProviderNamePattern is the name class both model APIs accept, with the
// shorter (Chat Completions) length limit.
var ProviderNamePattern = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

const (
	maxProviderName = 64
	hashSuffixLen   = 8 // hex characters of the SHA-256 of the original name
)

// ToolNames maps the server's tool names to provider-safe aliases and
// back, for one run. The mapping is deterministic (it depends only on the
// set of names), collision-free, and the identity for a name that is
// already safe and not taken.
type ToolNames struct {
	safe    map[string]string // server name → alias
	orig    map[string]string // alias → server name
	renamed bool
}

// NewToolNames maps names. Names that are already provider-safe keep
// themselves; every other name has its disallowed characters replaced by
// "_" and, when that is too long or collides with another name, is cut and
// given a short hash of the original name as suffix.
func NewToolNames(names []string) *ToolNames {
	n := &ToolNames{safe: map[string]string{}, orig: map[string]string{}}
	taken := map[string]bool{}
	for _, name := range names {
		if ProviderNamePattern.MatchString(name) && !taken[name] {
			taken[name] = true
			n.safe[name], n.orig[name] = name, name
		}
	}
	for _, name := range names {
		if _, done := n.safe[name]; done {
			continue
		}
		alias := sanitize(name)
		if len(alias) > maxProviderName || taken[alias] || alias == "" {
			alias = hashed(alias, name, "")
		}
		for i := 0; taken[alias]; i++ {
			// Two names whose hashes share 8 hex digits: astronomically
			// rare, but the mapping must still be a bijection.
			alias = hashed(sanitize(name), name, string(rune('a'+i%26))+strings.Repeat("x", i/26))
		}
		taken[alias] = true
		n.safe[name], n.orig[alias] = alias, name
		n.renamed = true
	}
	return n
}

func sanitize(name string) string {
	var b strings.Builder
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// hashed cuts base so that "base_HASH" (plus salt) fits the limit.
func hashed(base, original, salt string) string {
	sum := sha256.Sum256([]byte(original + salt))
	suffix := "_" + hex.EncodeToString(sum[:])[:hashSuffixLen] + salt
	if keep := maxProviderName - len(suffix); len(base) > keep {
		base = base[:keep]
	}
	return base + suffix
}

// Safe returns the alias of a server tool name; a name the mapping does
// not know is returned as it is.
func (n *ToolNames) Safe(name string) string {
	if s, ok := n.safe[name]; ok {
		return s
	}
	return name
}

// Original returns the server name of an alias the model used; a name
// that is no alias (the model made it up) is returned as it is, so the
// call is reported as a call of an unknown tool.
func (n *ToolNames) Original(alias string) string {
	if o, ok := n.orig[alias]; ok {
		return o
	}
	return alias
}

// outbound returns the messages as the provider must see them: tool calls
// of assistant turns under their aliases. Messages without tool calls are
// shared, not copied.
func (n *ToolNames) outbound(msgs []llm.Message) []llm.Message {
	out := make([]llm.Message, len(msgs))
	for i, m := range msgs {
		if len(m.ToolCalls) > 0 && n.renamed {
			m.ToolCalls = append([]llm.ToolCall(nil), m.ToolCalls...)
			for j := range m.ToolCalls {
				m.ToolCalls[j].Name = n.Safe(m.ToolCalls[j].Name)
			}
		}
		out[i] = m
	}
	return out
}
