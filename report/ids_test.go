package report

import "testing"

func TestCanonicalCheckID(t *testing.T) {
	t.Parallel()
	tests := []struct{ id, want string }{
		{"resilience/batch", "jsonrpc/batch-rejected"},
		{"resilience/malformed-json", "jsonrpc/malformed-json"},
		{"jsonrpc/batch-rejected", "jsonrpc/batch-rejected"},
		{"resilience/burst", "resilience/burst"},
		{"weather@gpt", "weather@gpt"},
	}
	for _, tt := range tests {
		if got := CanonicalCheckID(tt.id); got != tt.want {
			t.Errorf("CanonicalCheckID(%q) = %q, want %q", tt.id, got, tt.want)
		}
	}
	for old, to := range CheckAliases {
		if _, chained := CheckAliases[to]; chained {
			t.Errorf("alias %s → %s leads to another alias", old, to)
		}
	}
}

func TestHardGroups(t *testing.T) {
	t.Parallel()
	if len(HardGroups) != 7 || !IsHardGroup("headers") || IsHardGroup("jsonrpc") {
		t.Errorf("HardGroups = %v", HardGroups)
	}
}
