package main

import (
	"runtime/debug"
	"testing"
)

// The run's soft memory limit and collector pace are mcp-eval's unless
// GOMEMLIMIT or GOGC names one (measured before the fix: the collector's headroom made a
// 20 000-tool run 200 MB; at Go's default pace the collector was an eighth
// of a 1 000-tool run's CPU).
func TestMemoryLimit(t *testing.T) {
	oldLimit := debug.SetMemoryLimit(-1)
	oldPercent := debug.SetGCPercent(100)
	defer func() {
		debug.SetMemoryLimit(oldLimit)
		debug.SetGCPercent(oldPercent)
	}()
	for _, tc := range []struct {
		name           string
		env            map[string]string
		limit, percent int64
	}{
		{"neither set", nil, memoryLimit, gcPercent},
		{"GOMEMLIMIT set", map[string]string{"GOMEMLIMIT": "1GiB"}, 12345, gcPercent},
		{"GOGC set", map[string]string{"GOGC": "50"}, memoryLimit, 77},
		{"both set", map[string]string{"GOMEMLIMIT": "1GiB", "GOGC": "off"}, 12345, 77},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// What the runtime read from the environment, standing in
			// for GOMEMLIMIT and GOGC.
			debug.SetMemoryLimit(12345)
			debug.SetGCPercent(77)
			setMemoryLimit(func(k string) string { return tc.env[k] })
			if got := debug.SetMemoryLimit(-1); got != tc.limit {
				t.Errorf("memory limit %d, want %d", got, tc.limit)
			}
			if got := int64(debug.SetGCPercent(77)); got != tc.percent {
				t.Errorf("GC percent %d, want %d", got, tc.percent)
			}
		})
	}
}
