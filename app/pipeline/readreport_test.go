package pipeline_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-eval/mcp-eval/app/pipeline"
	"github.com/mcp-eval/mcp-eval/internal/exitcode"
)

// TestReadReportRules: a baseline saved with a byte order mark, or with a
// member twice, is refused naming the flag, the file, the line and what to
// do (before: "invalid character 'ï' looking for beginning of value", and a
// duplicate key silently took the last value); a syntax error names its
// line.
func TestReadReportRules(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct{ name, body, want string }{
		{"bom", "\xEF\xBB\xBF{\"schemaVersion\": 1}", ": line 1: starts with a UTF-8 byte order mark"},
		{"dup", "{\n\"schemaVersion\": 1,\n\"schemaVersion\": 1\n}", `: line 3: member "schemaVersion" twice in one object`},
		{"syntax", "{\n\"schemaVersion\": 1,\n}", ": not a report.json: line 3: invalid character '}'"},
	} {
		path := filepath.Join(dir, tt.name+".json")
		if err := os.WriteFile(path, []byte(tt.body), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := pipeline.ReadReport("--baseline", path)
		if err == nil || !strings.Contains(err.Error(), "--baseline "+path+tt.want) || exitcode.Of(err) != exitcode.Usage {
			t.Errorf("%s: %v, want exit 2 with %q", tt.name, err, "--baseline "+path+tt.want)
		}
	}
}
