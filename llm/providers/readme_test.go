package providers

import (
	"flag"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite README.md's providers table from the registry")

const (
	tableStart = "<!-- providers:start (go test ./llm/providers -update) -->\n"
	tableEnd   = "<!-- providers:end -->"
)

// TestREADMEProviders: README.md's table of providers is the registry's.
func TestREADMEProviders(t *testing.T) {
	const path = "../../README.md"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i, j := strings.Index(s, tableStart), strings.Index(s, tableEnd)
	if i < 0 || j < i {
		t.Fatalf("%s has no providers table between %q and %q", path, tableStart, tableEnd)
	}
	got, want := s[i+len(tableStart):j], Table()
	if got == want {
		return
	}
	if *update {
		if err := os.WriteFile(path, []byte(s[:i+len(tableStart)]+want+s[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("README.md's providers table differs from the registry; run go test ./llm/providers -update\ngot:\n%s\nwant:\n%s", got, want)
}
