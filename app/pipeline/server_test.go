package pipeline

import (
	"io"
	"testing"

	"github.com/mcp-eval/mcp-eval/app/config"
	"github.com/mcp-eval/mcp-eval/mcp"
)

// The answers being read share one budget of --max-message-bytes (issue
// 21: mcp.SetAnswerBudget was never called, so it stayed 16 MiB whatever
// the flag said).
func TestAnswerBudgetFollowsMaxMessageBytes(t *testing.T) {
	defer mcp.SetAnswerBudget(mcp.DefaultAnswerBudget)
	for _, n := range []int64{1 << 20, 64 << 20} {
		p := &RunPlan{cfg: &config.Config{ServerURL: "http://127.0.0.1:9/mcp", MaxMessageBytes: n}, env: Env{Getenv: func(string) string { return "" }}}
		if _, err := p.target(io.Discard); err != nil {
			t.Fatal(err)
		}
		if got := mcp.AnswerBudget(); got != n {
			t.Errorf("--max-message-bytes %d: answer budget %d", n, got)
		}
	}
}
