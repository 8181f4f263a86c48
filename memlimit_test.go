package main

import (
	"runtime/debug"
	"testing"
)

// The run's soft memory limit is mcp-eval's unless GOMEMLIMIT names one
// (issue 21: the collector's headroom made a 20 000-tool run 200 MB).
func TestMemoryLimit(t *testing.T) {
	old := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(old)
	setMemoryLimit(func(string) string { return "" })
	if got := debug.SetMemoryLimit(-1); got != memoryLimit {
		t.Errorf("limit %d, want %d", got, memoryLimit)
	}
	debug.SetMemoryLimit(old)
	setMemoryLimit(func(k string) string {
		if k == "GOMEMLIMIT" {
			return "1GiB"
		}
		return ""
	})
	if got := debug.SetMemoryLimit(-1); got != old {
		t.Errorf("GOMEMLIMIT set, yet the limit became %d", got)
	}
}
