package requirements_test

import (
	"flag"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-eval/mcp-eval/conformance"
	"github.com/mcp-eval/mcp-eval/internal/requirements"
)

var update = flag.Bool("update", false, "rewrite docs/requirements.md from the chapter files")

const docPath = "../../docs/requirements.md"

// TestRequirementsDoc keeps docs/requirements.md, which users read, in step
// with the chapter files.
func TestRequirementsDoc(t *testing.T) {
	chs, err := requirements.Chapters()
	if err != nil {
		t.Fatal(err)
	}
	want := requirements.Markdown(chs)
	if *update {
		if err := os.WriteFile(docPath, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("%s is out of date with internal/requirements/chapters; run go test ./internal/requirements -run TestRequirementsDoc -update", docPath)
	}
}

// TestChecksNameRequirements is the link between the table and the check
// registry, both ways: every check names at least one row, every row it
// names exists and names it back, and every check a row names exists.
func TestChecksNameRequirements(t *testing.T) {
	chs, err := requirements.Chapters()
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]*requirements.Row{}
	for _, r := range requirements.Rows(chs) {
		rows[r.ID] = r
	}
	checks := map[string][]string{}
	for _, c := range conformance.Checks() {
		checks[c.ID] = c.Reqs
		if len(c.Reqs) == 0 {
			t.Errorf("check %s names no requirement (check.Def.Reqs); add its row to internal/requirements/chapters", c.ID)
		}
		for _, id := range c.Reqs {
			r, ok := rows[id]
			switch {
			case !ok:
				t.Errorf("check %s names requirement %s, which no chapter has", c.ID, id)
			case !slices.Contains(r.Checks, c.ID):
				t.Errorf("check %s names requirement %s, whose row does not list it under checks", c.ID, id)
			}
		}
	}
	for _, r := range rows {
		for _, c := range r.Checks {
			reqs, ok := checks[c]
			switch {
			case !ok:
				t.Errorf("requirement %s names check %s, which does not exist", r.ID, c)
			case !slices.Contains(reqs, r.ID):
				t.Errorf("requirement %s names check %s, whose Reqs do not list it", r.ID, c)
			}
		}
	}
}

// TestChapterErrors shows that a malformed chapter is refused with its
// file and line.
func TestChapterErrors(t *testing.T) {
	for _, tc := range []struct{ name, yaml, want string }{
		{"no outcome", "chapter: base\ntitle: B\nsources: [x]\nrows:\n  - id: base/a\n    section: s\n    level: MUST\n    text: t\n", "x.yaml:5: base/a: exactly one of"},
		{"two outcomes", "chapter: base\ntitle: B\nsources: [x]\nrows:\n  - id: base/a\n    section: s\n    level: MUST\n    text: t\n    checks: [a/b]\n    gap: g\n", "exactly one of"},
		{"bad level", "chapter: base\ntitle: B\nsources: [x]\nrows:\n  - id: base/a\n    section: s\n    level: MAY\n    text: t\n    gap: g\n", `level "MAY"`},
		{"foreign id", "chapter: base\ntitle: B\nsources: [x]\nrows:\n  - id: http/a\n    section: s\n    level: MUST\n    text: t\n    gap: g\n", `"http/a" is not base/`},
		{"unknown key", "chapter: base\ntitle: B\nsources: [x]\nrows:\n  - id: base/a\n    sectoin: s\n", "field sectoin not found"},
		{"empty", "chapter: auth\ntitle: A\nsources: [x]\nrows: []\n", "says who fills it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := requirements.Parse("x.yaml", []byte(tc.yaml))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// TestFigures counts rows by how mcp-eval stands to them.
func TestFigures(t *testing.T) {
	ch, err := requirements.Parse("x.yaml", []byte(`chapter: base
title: B
sources: [x]
rows:
  - {id: base/a, section: s, level: MUST, text: t, checks: [a/b]}
  - {id: base/b, section: s, level: SHOULD, text: t, gap: later}
  - {id: base/c, section: s, level: MUST NOT, text: t, unobservable: inside the server}
  - {id: base/d, section: s, level: SHOULD NOT, text: t, side_effects: a write}
`))
	if err != nil {
		t.Fatal(err)
	}
	got := requirements.Count([]requirements.Chapter{*ch}, "")
	want := requirements.Figures{Rows: 4, Observable: 3, Covered: 1, SideEffects: 1, Gaps: 1}
	if got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
}
