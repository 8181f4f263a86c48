package tasks

import (
	"encoding/json"
	"maps"

	"github.com/mcp-eval/mcp-eval/agent"
	"github.com/mcp-eval/mcp-eval/mcp"
)

// Task returns the agent.Task for one run of the case on model (the
// provider's model name, without the "openai:" prefix), offering tools as
// the server listed them. Temperature is 0 so that runs repeat as far as the
// provider allows; the caller may change it (the cache key must then
// include it). Every call returns fresh maps, safe to use concurrently.
func (c *Case) Task(tools []mcp.Tool, model string) agent.Task {
	zero := 0.0
	return agent.Task{
		Model:          model,
		System:         c.System,
		Prompt:         c.Prompt,
		FollowUps:      c.FollowUps(),
		Tools:          tools,
		MaxTurns:       c.MaxTurns,
		Stubs:          cloneRaw(c.Stubs),
		InputResponses: cloneRaw(c.InputResponses),
		Temperature:    &zero,
	}
}

func cloneRaw(m map[string]json.RawMessage) map[string]json.RawMessage {
	if m == nil {
		return nil
	}
	return maps.Clone(m)
}

// Shard returns the cases of shard i of n (1-based, as --shard i/n): every
// n-th case in file order starting with the i-th, so that shards stay
// balanced and every case lands in exactly one.
func (s *Suite) Shard(i, n int) []*Case {
	if n <= 1 {
		return s.Cases
	}
	var out []*Case
	for k, c := range s.Cases {
		if k%n == i-1 {
			out = append(out, c)
		}
	}
	return out
}
