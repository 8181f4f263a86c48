package requirements_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
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
	official, err := requirements.Official()
	if err != nil {
		t.Fatal(err)
	}
	want := requirements.Markdown(chs) + requirements.OfficialMarkdown(official)
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

// TestREADMEFigures keeps the coverage figures the README states equal to
// the table's.
func TestREADMEFigures(t *testing.T) {
	chs, err := requirements.Chapters()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	// The sentences may wrap anywhere.
	text := strings.Join(strings.Fields(string(b)), " ")
	f := requirements.Count(chs, "")
	for _, want := range []string{
		fmt.Sprintf("Of **%d** requirements", f.Rows),
		fmt.Sprintf("**%d** are observable from a client and mcp-eval checks **%d** of them", f.Observable, f.Covered),
		fmt.Sprintf("%d more need a tool with side effects", f.SideEffects),
		fmt.Sprintf("and %d are observable but not checked yet", f.Gaps),
	} {
		if !strings.Contains(text, want) {
			t.Errorf("README.md does not say %q (the table's figures)", want)
		}
	}
	for _, ch := range chs {
		if ch.ID == "guidance" || len(ch.Rows) == 0 {
			continue
		}
		c := requirements.Count(chs, ch.ID)
		row := fmt.Sprintf("| %d | %d | %d |\n", c.Rows, c.Observable, c.Covered)
		if !strings.Contains(string(b), row) {
			t.Errorf("README.md's chapter table has no row ending %q for %s", strings.TrimSpace(row), ch.Title)
		}
	}
}

// TestOfficialSEPs: every check the official-id mapping names exists; and,
// when MCP_EVAL_CONFORMANCE_SEPS names the suite's src/seps folder (a
// checkout of modelcontextprotocol/conformance), every requirement id of
// its sep-*.yaml files is mapped and every mapped id is in one of them.
func TestOfficialSEPs(t *testing.T) {
	o, err := requirements.Official()
	if err != nil {
		t.Fatal(err)
	}
	exists := map[string]bool{}
	for _, c := range conformance.Checks() {
		exists[c.ID] = true
	}
	for _, s := range o.SEPs {
		for id, st := range s.IDs {
			for _, c := range st.Checks {
				if !exists[c] {
					t.Errorf("official/seps.yaml: %s (SEP %d) names check %s, which does not exist", id, s.SEP, c)
				}
			}
		}
	}
	dir := os.Getenv("MCP_EVAL_CONFORMANCE_SEPS")
	if dir == "" {
		t.Log("MCP_EVAL_CONFORMANCE_SEPS unset: the mapping is not compared with the suite's files")
		return
	}
	paths, err := filepath.Glob(filepath.Join(dir, "sep-*.yaml"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("MCP_EVAL_CONFORMANCE_SEPS=%s: no sep-*.yaml (%v)", dir, err)
	}
	files := map[string][]byte{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files[filepath.Base(p)] = b
	}
	diffs, err := o.Compare(files)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range diffs {
		t.Errorf("internal/requirements/official/seps.yaml vs %s: %s", dir, d)
	}
}

// TestOfficialCompare: an id of a SEP file the mapping lacks, and a mapped
// id no file has, are each named; rows without a check id are not ids.
func TestOfficialCompare(t *testing.T) {
	o, err := requirements.ParseOfficial([]byte("source: x\nseps:\n  - sep: 1\n    ids:\n      a-1: {checks: [discover/responds]}\n      a-gone: {party: clients}\n"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := o.Compare(map[string][]byte{"sep-1.yaml": []byte("sep: 1\nrequirements:\n  - check: a-1\n    text: t\n  - check: a-new\n    text: t\n  - text: t\n    excluded: why\n")})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"stale: a-gone (SEP 1) is in no SEP file", "unmapped: a-new (sep-1.yaml, SEP 1)"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	for _, bad := range []string{
		"source: x\nseps:\n  - sep: 1\n    ids:\n      a-1: {}\n",
		"source: x\nseps:\n  - sep: 1\n    ids:\n      a-1: {party: clients, reason: r}\n",
		"source: x\nseps:\n  - sep: 1\n    ids:\n      a-1: {party: clients}\n  - sep: 2\n    ids:\n      a-1: {party: clients}\n",
	} {
		if _, err := requirements.ParseOfficial([]byte(bad)); err == nil {
			t.Errorf("ParseOfficial accepted %q", bad)
		}
	}
}
