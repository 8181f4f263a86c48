package report

import (
	"bytes"
	"strings"
	"testing"
)

// TestDraftsCounted: summary.md and the terminal say how many golden
// cases are drafts (one case on two models is one draft).
func TestDraftsCounted(t *testing.T) {
	t.Parallel()
	r := &Report{SchemaVersion: SchemaVersion, Scores: map[string]float64{}, Cases: []Case{
		{ID: "a", Model: "ollama:m1", Kind: CaseSoft, Runs: 1, Passed: 1, Status: StatusPass, Draft: true},
		{ID: "a", Model: "ollama:m2", Kind: CaseSoft, Runs: 1, Passed: 1, Status: StatusPass, Draft: true},
		{ID: "b", Model: "ollama:m1", Kind: CaseSoft, Runs: 1, Passed: 1, Status: StatusPass, Draft: true},
		{ID: "c", Model: "ollama:m1", Kind: CaseSoft, Runs: 1, Passed: 1, Status: StatusPass},
	}}
	const want = "2 golden cases are drafts (draft: true): edit them, then remove the mark"
	var md, text bytes.Buffer
	if err := WriteMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	if err := WriteText(&text, r, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"summary.md": md.String(), "text": text.String()} {
		if !strings.Contains(out, want) {
			t.Errorf("%s lacks %q:\n%s", name, want, out)
		}
	}
	r.Cases = r.Cases[3:]
	md.Reset()
	WriteMarkdown(&md, r)
	if strings.Contains(md.String(), "draft") {
		t.Errorf("no draft, yet:\n%s", md.String())
	}
}
