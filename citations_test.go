package main

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestCommentsCitePublicSources: a comment says why by citing what a reader
// outside the team can open — the specification's pages
// (https://modelcontextprotocol.io/specification/2026-07-28/…), an RFC, an
// SDK's repository — never the team's issue numbers or the section numbers
// of a digest only the team has. Only comments are read: a string such as
// a sentence in a test's data is not a citation.
func TestCommentsCitePublicSources(t *testing.T) {
	internal := []*regexp.Regexp{
		regexp.MustCompile(`(?i)\bissue #?\d+\b`),
		regexp.MustCompile(`\bdigest §`),
		regexp.MustCompile(`spec-2026-07-28\.md §`),
	}
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, group := range f.Comments {
			for _, c := range group.List {
				for _, re := range internal {
					if m := re.FindString(c.Text); m != "" {
						t.Errorf("%s: comment cites %q, an internal reference; cite the public source (a spec URL, an RFC, a repository) or say what was measured", fset.Position(c.Pos()), m)
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
