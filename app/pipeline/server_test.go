package pipeline

import (
	"io"
	"strings"
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

// A --server-cmd process that left processes outside its group has them
// named on stderr when it stops, as --server-start's are (before the fix, README
// promised the warning, only --server-start gave it).
func TestServerCmdNamesEscapees(t *testing.T) {
	var stderr strings.Builder
	p := &RunPlan{cfg: &config.Config{ServerCmd: "sh -c true", MaxMessageBytes: mcp.DefaultMaxMessageBytes},
		env: Env{Getenv: func(string) string { return "" }, Stderr: &stderr}}
	tg, err := p.target(io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	ct, ok := tg.(*mcp.CommandTarget)
	if !ok || ct.Command.Leftovers == nil {
		t.Fatalf("target %T has no Leftovers hook", tg)
	}
	ct.Command.Leftovers([]int{4242, 4243})
	if want := "mcp-eval: warning: the --server-cmd server left 2 process(es) outside its process group; killed pid 4242, 4243\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
}
