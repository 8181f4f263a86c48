package mdsection

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSync(t *testing.T) {
	const start, end = "<!-- t:start -->\n", "<!-- t:end -->"
	tests := []struct {
		name, file, want string
		update           bool
		err              string // substring; "" for none
		after            string // the file afterwards
	}{
		{"equal", "a\n" + start + "x\n" + end + "\nb", "x\n", false, "", "a\n" + start + "x\n" + end + "\nb"},
		{"differs", "a\n" + start + "x\n" + end, "y\n", false, "run go test -update", "a\n" + start + "x\n" + end},
		{"update", "a\n" + start + "x\n" + end + "\nb", "y\n", true, "", "a\n" + start + "y\n" + end + "\nb"},
		{"no markers", "a\n", "y\n", true, "has no section", "a\n"},
		{"end before start", end + "\n" + start, "y\n", true, "has no section", end + "\n" + start},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "README.md")
			if err := os.WriteFile(path, []byte(tt.file), 0o644); err != nil {
				t.Fatal(err)
			}
			err := Sync(path, start, end, tt.want, tt.update, "go test -update")
			if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
				t.Fatalf("err %v, want %q", err, tt.err)
			}
			b, _ := os.ReadFile(path)
			if string(b) != tt.after {
				t.Errorf("file %q, want %q", b, tt.after)
			}
		})
	}
	if err := Sync(filepath.Join(t.TempDir(), "none.md"), start, end, "", false, ""); err == nil {
		t.Error("a missing file is no error")
	}
}
