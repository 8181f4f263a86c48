package yamlfile

import (
	"strings"
	"testing"
)

// TestDepth: collections nested deeper than MaxDepth are refused with the
// line, empty ones counted: flow "[[[…]]]" before the parser sees it (it is
// quadratic in that depth: 20 cases of 9 000 levels took 2.4 s and 65 MB
// and passed every rule before), block nesting and nesting through an
// alias after it; brackets in quoted scalars, comments and plain text do
// not count, and MaxDepth levels pass.
func TestDepth(t *testing.T) {
	flow := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	block := func(n int) string {
		var b strings.Builder
		for i := range n {
			b.WriteString(strings.Repeat(" ", i) + "- \n")
		}
		return b.String()
	}
	deep := "nested more than 100 deep"
	for _, tt := range []struct {
		name, in, want string // want "" = accepted
	}{
		{"at the bound, the root mapping counted", "a: " + flow(MaxDepth-1) + "\n", ""},
		{"flow past it", "a: 1\nb: " + flow(MaxDepth+1) + "\n", "f.yaml:2: " + deep},
		{"9000 deep", "cases:\n  - x: " + flow(9000) + "\n", "f.yaml:2: " + deep},
		{"mappings", "a: " + strings.Repeat("{b: ", MaxDepth+1) + "1" + strings.Repeat("}", MaxDepth+1) + "\n", "f.yaml:1: " + deep},
		{"quoted", "a: \"" + strings.Repeat("[", 500) + "\"\nb: '" + strings.Repeat("{", 500) + "'\n", ""},
		{"comment", "a: 1 # " + strings.Repeat("[", 500) + "\n" + "# " + strings.Repeat("{", 500) + "\n", ""},
		{"apostrophe", "a: it's " + flow(50) + "\n", ""},
		{"block", "a:\n" + block(MaxDepth+1), deep},
		{"through an alias", "x: &x " + flow(60) + "\ny: " + strings.Repeat("[", 60) + "*x" + strings.Repeat("]", 60) + "\n", deep},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Document("f.yaml", []byte(tt.in), 2<<20, "the x file", "version: 1")
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}
