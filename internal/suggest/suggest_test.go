package suggest

import "testing"

func TestNearest(t *testing.T) {
	keys := []string{"expect_tool", "expect_args", "expect_sequence", "runs", "server-url"}
	tests := []struct{ in, want string }{
		{"expect_tol", "expect_tool"},
		{"rusn", "runs"},
		{"server_url", "server-url"},
		{"expect_sequense", "expect_sequence"},
		{"zzzzzz", ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := Nearest(tt.in, keys); got != tt.want {
			t.Errorf("Nearest(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if d := Distance("kitten", "sitting"); d != 3 {
		t.Errorf("Distance = %d, want 3", d)
	}
	if d := Distance("ünï", "uni"); d != 2 {
		t.Errorf("Distance counts bytes, not runes: %d", d)
	}
}
