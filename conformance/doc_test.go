package conformance

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/mcp-eval/mcp-eval/report"
)

var update = flag.Bool("update", false, "rewrite docs/checks.md from the registry")

// TestChecksDoc keeps docs/checks.md, the list users read, in step with
// the registry: ids are a public contract.
func TestChecksDoc(t *testing.T) {
	const path = "../docs/checks.md"
	old, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	head, _, ok := strings.Cut(string(old), "<!-- table -->")
	if !ok {
		t.Fatalf("%s has no <!-- table --> marker", path)
	}
	var b strings.Builder
	b.WriteString(head)
	b.WriteString("<!-- table -->\n| id | level | hard | transport | revision | what it asserts |\n|---|---|---|---|---|---|\n")
	for _, c := range Checks() {
		hard, transport, rev := "no", c.Transport, c.Revision
		if c.Hard() {
			hard = "yes"
		}
		if transport == "" {
			transport = "any"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s |\n", c.ID, c.Level, hard, transport, rev, strings.ReplaceAll(c.Title, "|", `\|`))
	}
	if *update {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if string(old) != b.String() {
		t.Errorf("%s is out of date with the check registry; run go test ./conformance -run TestChecksDoc -update", path)
	}
}

func TestCheckRegistry(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range Checks() {
		if seen[c.ID] {
			t.Errorf("duplicate id %s", c.ID)
		}
		seen[c.ID] = true
		group, name, ok := strings.Cut(c.ID, "/")
		if !ok || group == "" || name == "" || strings.ToLower(c.ID) != c.ID || strings.ContainsAny(c.ID, " _") {
			t.Errorf("id %q is not group/check in kebab-case", c.ID)
		}
		if c.Title == "" || c.SpecRef == "" || c.Run == nil {
			t.Errorf("%s lacks a title, spec reference or Run", c.ID)
		}
		if c.Level != "MUST" && c.Level != "SHOULD" {
			t.Errorf("%s: level %q", c.ID, c.Level)
		}
	}
	for _, g := range report.HardGroups {
		found := false
		for _, c := range Checks() {
			if c.Group() == g {
				found = true
			}
		}
		if !found {
			t.Errorf("assertion group %s has no check", g)
		}
	}
}
