package pipeline_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-eval/mcp-eval/app/apptest"
	"github.com/mcp-eval/mcp-eval/report"
)

// TestMergeRefusesOtherServers: shards of one run share the transport, the
// target and the surface; anything else is refused with both files named.
func TestMergeRefusesOtherServers(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, s report.Server) string {
		p := filepath.Join(dir, name)
		b, _ := json.Marshal(report.Report{SchemaVersion: report.SchemaVersion, Server: s, Checks: []report.Check{}, Cases: []report.Case{}, Scores: map[string]float64{}})
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	base := report.Server{Target: "http://127.0.0.1:8080/mcp", Transport: "http", Era: "modern", Fingerprint: "0123456789abcdef0123"}
	first := write("s1.json", base)
	tests := []struct {
		name string
		edit func(*report.Server)
		want string // "" = merged
	}{
		{"same server", func(*report.Server) {}, ""},
		{"other transport", func(s *report.Server) { s.Transport, s.Target = "stdio", "node server.js" }, "transport http in " + first + ", stdio in "},
		{"other target", func(s *report.Server) { s.Target = "http://127.0.0.1:9090/mcp" }, `target "http://127.0.0.1:8080/mcp" in ` + first},
		{"other surface", func(s *report.Server) { s.Fingerprint = "fedcba9876543210" }, "server surface (fingerprint) 0123456789ab… in " + first + ", fedcba987654… in "},
		{"no surface", func(s *report.Server) { s.Fingerprint = "" }, ", none in "},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := base
			tt.edit(&s)
			second := write(tt.name+".json", s)
			out := filepath.Join(dir, "merged.json")
			code, _, stderr := runCommand(t, apptest.Env(nil), "merge", "-o", out, first, second)
			if tt.want == "" {
				if code != 0 {
					t.Fatalf("exit %d: %s", code, stderr)
				}
				return
			}
			if code != 2 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "evaluated different servers") || !strings.Contains(stderr, tt.want) {
				t.Errorf("case %d: exit %d, stderr %q, want one line with %q", i, code, stderr, tt.want)
			}
		})
	}
}
