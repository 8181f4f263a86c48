package report

import "testing"

func TestFoldRuns(t *testing.T) {
	p := Run{Status: StatusPass, Info: "saw 200"}
	s := Run{Status: StatusSkip, Message: "restart failed"}
	f := Run{Status: StatusFail, Message: "got 500", Evidence: []byte(`{"status":500}`)}
	e := Run{Status: StatusError, Message: "timed out"}
	tests := []struct {
		name      string
		runs      []Run
		status    Status
		runs0, ok int
		msg       string
		evidence  string
		info      string
	}{
		{"all pass", []Run{p, p, p}, StatusPass, 3, 3, "", "", "saw 200"},
		{"skips after passes do not count", []Run{p, s, p}, StatusPass, 2, 2, "", "", "saw 200"},
		{"all skip", []Run{s, s}, StatusSkip, 0, 0, "restart failed", "", ""},
		{"a failure wins over an error", []Run{p, e, f}, StatusFail, 3, 1, "got 500 (1 of 3 runs passed)", `{"status":500}`, "saw 200"},
		{"failure message and evidence", []Run{p, f}, StatusFail, 2, 1, "got 500 (1 of 2 runs passed)", `{"status":500}`, "saw 200"},
		{"errors only", []Run{e}, StatusError, 1, 0, "timed out", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := FoldRuns(Check{ID: "g/c"}, tt.runs)
			if c.Status != tt.status || c.Runs != tt.runs0 || c.Passed != tt.ok || c.Message != tt.msg ||
				string(c.Evidence) != tt.evidence || c.Info != tt.info {
				t.Errorf("got %s %d/%d %q %s %q, want %s %d/%d %q %s %q", c.Status, c.Passed, c.Runs, c.Message, c.Evidence, c.Info,
					tt.status, tt.ok, tt.runs0, tt.msg, tt.evidence, tt.info)
			}
		})
	}
}
