package providers

import (
	"flag"
	"testing"

	"github.com/mcp-eval/mcp-eval/internal/mdsection"
)

var update = flag.Bool("update", false, "rewrite README.md's providers table from the registry")

// TestREADMEProviders: README.md's table of providers is the registry's.
func TestREADMEProviders(t *testing.T) {
	if err := mdsection.Sync("../../README.md", "<!-- providers:start (go test ./llm/providers -update) -->\n", "<!-- providers:end -->",
		Table(), *update, "go test ./llm/providers -update"); err != nil {
		t.Error(err)
	}
}
