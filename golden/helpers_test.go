package golden

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcp-eval/mcp-eval/mcp"
)

// weatherTools returns the example server's tools/list, the copy the tasks
// package's tests validate against (tasks/testdata/README.md says how it
// was made).
func weatherTools(t *testing.T) []mcp.Tool {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "tasks", "testdata", "weather-tools.json"))
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Tools []mcp.Tool `json:"tools"`
	}
	if err := json.Unmarshal(b, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) != 3 {
		t.Fatalf("weather-tools.json has %d tools, want 3", len(list.Tools))
	}
	return list.Tools
}

// fakeSimilar answers Similar from a table and counts its calls.
type fakeSimilar struct {
	same  map[[2]string]bool
	err   error
	calls int
}

func (f *fakeSimilar) Similar(_ context.Context, expected, actual string) (bool, error) {
	f.calls++
	if f.err != nil {
		return false, f.err
	}
	return f.same[[2]string{expected, actual}], nil
}
