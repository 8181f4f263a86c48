// Package mdsection keeps a generated section of a Markdown file equal to
// what its generator makes: the section lies between two HTML comment
// markers, and a test either compares it or, with -update, rewrites it.
package mdsection

import (
	"fmt"
	"os"
	"strings"
)

// Sync compares the text between the lines start and end of the file at
// path with want. On a difference it rewrites the section when update is
// set, and otherwise returns an error that names the file, the command
// that regenerates it (hint) and both texts.
func Sync(path, start, end, want string, update bool, hint string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	s := string(b)
	i := strings.Index(s, start)
	j := strings.Index(s, end)
	if i < 0 || j < i+len(start) {
		return fmt.Errorf("%s has no section between %q and %q", path, start, end)
	}
	got := s[i+len(start) : j]
	if got == want {
		return nil
	}
	if update {
		return os.WriteFile(path, []byte(s[:i+len(start)]+want+s[j:]), 0o644)
	}
	return fmt.Errorf("%s differs from what its generator makes; run %s\ngot:\n%s\nwant:\n%s", path, hint, got, want)
}
