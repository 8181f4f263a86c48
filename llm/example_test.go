package llm_test

import (
	"fmt"

	"github.com/mcp-eval/mcp-eval/llm"
)

func ExampleSplitSpec() {
	provider, model, _ := llm.SplitSpec("ollama:qwen2.5:7b")
	fmt.Println(provider, model)
	// Output: ollama qwen2.5:7b
}
