package pipeline

import (
	"bytes"
	"testing"
)

func TestCappedLog(t *testing.T) {
	tests := []struct {
		name   string
		writes []string
		max    int64
		want   string
	}{
		{"under the cap", []string{"abc", "def"}, 100, "abcdef"},
		{"head and tail", []string{"0123456789", "abcdefghij"}, 10, "01234\n[mcp-eval: server.log truncated: 10 bytes left out here; the first and last 5 bytes are kept]\nfghij"},
		{"many small writes", []string{"01", "23", "45", "67", "89", "ab", "cd"}, 6, "012\n[mcp-eval: server.log truncated: 8 bytes left out here; the first and last 3 bytes are kept]\nbcd"},
		{"exactly full", []string{"0123", "4567"}, 8, "01234567"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			c := NewCappedLog(&buf, tt.max)
			for _, w := range tt.writes {
				if n, err := c.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write = %d, %v", n, err)
				}
			}
			c.Close()
			if buf.String() != tt.want {
				t.Errorf("got %q, want %q", buf.String(), tt.want)
			}
		})
	}
}
