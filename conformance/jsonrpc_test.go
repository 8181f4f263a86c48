package conformance

import (
	"testing"
	"time"
)

func TestAliveWithin(t *testing.T) {
	tests := []struct {
		took, timeout, want time.Duration
	}{
		{10 * time.Millisecond, 10 * time.Second, time.Second},                  // the floor
		{200 * time.Millisecond, 10 * time.Second, 4 * time.Second},             // 20 × took
		{2 * time.Second, 10 * time.Second, 10 * time.Second},                   // capped by the timeout
		{2 * time.Second, 0, 40 * time.Second},                                  // no timeout set
		{10 * time.Millisecond, 500 * time.Millisecond, 500 * time.Millisecond}, // a timeout under the floor wins
	}
	for _, tt := range tests {
		if got := aliveWithin(tt.took, tt.timeout); got != tt.want {
			t.Errorf("aliveWithin(%s, %s) = %s, want %s", tt.took, tt.timeout, got, tt.want)
		}
	}
}
