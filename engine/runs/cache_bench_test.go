package runs

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcp-eval/mcp-eval/llm"
)

// BenchmarkCachedCall measures what the cache adds to one model call that
// misses (key and record) and one that hits (key and read).
func BenchmarkCachedCall(b *testing.B) {
	var tools []llm.Tool
	for i := range 8 {
		tools = append(tools, llm.Tool{Name: "tool" + string(rune('a'+i)), Description: strings.Repeat("describes the tool ", 10),
			InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string","description":"a city"},"units":{"enum":["c","f"]}},"required":["city"]}`)})
	}
	req := llm.Request{Model: "m", Tools: tools, Messages: []llm.Message{{Role: llm.RoleSystem, Content: "sys"}, {Role: llm.RoleUser, Content: "weather in Paris?"}}}
	inner := &countingModel{text: "ok"}
	b.Run("miss", func(b *testing.B) {
		c := NewCache(b.TempDir())
		for i := 0; b.Loop(); i++ {
			r := req
			r.Messages = append([]llm.Message{{Role: llm.RoleUser, Content: string(rune(i))}}, req.Messages...)
			c.Model(inner, "e", i).Complete(context.Background(), r)
		}
	})
	b.Run("hit", func(b *testing.B) {
		c := NewCache(b.TempDir())
		m := c.Model(inner, "e", 0)
		m.Complete(context.Background(), req)
		for b.Loop() {
			m.Complete(context.Background(), req)
		}
	})
	b.Run("key", func(b *testing.B) {
		c := NewCache(b.TempDir())
		for b.Loop() {
			c.Key("e", 0, req)
		}
	})
}
