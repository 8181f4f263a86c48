package conformance

import (
	"testing"

	"github.com/mcp-eval/mcp-eval/engine/check"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/report"
)

func TestLegacyAmbiguous(t *testing.T) {
	methodNotFound := &mcp.Exchange{Response: &mcp.Message{Error: &mcp.Error{Code: mcp.CodeMethodNotFound}}}
	internal := &mcp.Exchange{Response: &mcp.Message{Error: &mcp.Error{Code: mcp.CodeInternalError}}}
	failed := check.Fail("no _meta: error -32601, want -32602", nil)
	tests := []struct {
		name      string
		kind      string
		supported []string
		x         *mcp.Exchange
		want      report.Status
	}{
		{"dual-era stdio may serve it as legacy", "stdio", []string{"2026-07-28", "2025-11-25"}, methodNotFound, report.StatusPass},
		{"modern-only stdio has no excuse", "stdio", []string{"2026-07-28"}, methodNotFound, report.StatusFail},
		{"http has the version header", "http", []string{"2026-07-28", "2025-11-25"}, methodNotFound, report.StatusFail},
		{"another error is still wrong", "stdio", []string{"2026-07-28", "2025-11-25"}, internal, report.StatusFail},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := &Env{kind: tt.kind, discover: &mcp.DiscoverResult{SupportedVersions: tt.supported}}
			if got := e.legacyAmbiguous(tt.x, failed).Status; got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}
