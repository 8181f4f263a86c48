package mcptest

import (
	"slices"
	"sort"
)

// Expect is what a defect declares about a conformance run against the
// fixture with it on, beside the check it exists for: which other checks
// fail with it because it breaks what they rely on too, and how the run
// must be set up to show it. The conformance package's defect test
// (TestEachCheckFailsOnItsDefect) reads it, so a new check and its defect
// need no list kept elsewhere: an answer defect declares it in its
// defect_<name>.go (answerDefect.Expect), a defect served by the fixture's
// code next to that code (expect).
type Expect struct {
	// Also are the checks that legitimately fail along with the defect's
	// own, on every transport a check runs on. "*" alone: any check may
	// (the defect breaks every exchange).
	Also []string
	// Shape: the defect breaks the shape of a message (a missing or
	// mistyped member of a result or an error, a wrong jsonrpc member, an
	// error id of null), which the whole-message check jsonrpc/wire-schema
	// sees too.
	Shape bool
	// Stdio, when not nil, replaces Also and Shape over stdio, where the
	// defect shows otherwise (no HTTP status to pair an error with, a
	// duplicate that is well formed there).
	Stdio []string
	// HTTPOnly, when set, says why the defect shows only over HTTP; the
	// check is not run against it over stdio.
	HTTPOnly string
	// StdioDefect names the defect that shows the check's fault over stdio
	// where this one is an HTTP status.
	StdioDefect string
	// OneConnection: the fixture keys the defect to a TCP connection, so
	// over HTTP the client keeps to one connection and runs this check
	// alone (any other after which the server closes a connection would
	// open "another connection").
	OneConnection bool
}

// wireSchema is the whole-message check a Shape defect fails too.
const wireSchema = "jsonrpc/wire-schema"

// AlsoFails returns the checks expected to fail with the defect besides
// its own over transport ("http" or "stdio"), sorted; "*" alone means any.
func (e Expect) AlsoFails(transport string) []string {
	if transport == "stdio" && e.Stdio != nil {
		return slices.Clone(e.Stdio)
	}
	ids := slices.Clone(e.Also)
	if e.Shape {
		ids = append(ids, wireSchema)
	}
	sort.Strings(ids)
	return ids
}

// expects holds the declarations, by defect name.
var expects = map[string]Expect{}

// expect declares what defect name expects; it panics on a name declared
// twice or not among Defects (an init order mistake shows at once).
func expect(name string, e Expect) {
	if _, ok := expects[name]; ok {
		panic("mcptest: expectations of " + name + " declared twice")
	}
	if !slices.Contains(Defects, name) {
		panic("mcptest: expectations of " + name + ", which is no defect")
	}
	expects[name] = e
}

// Expected returns what the defect declares (the zero Expect: its check
// fails alone, on both transports).
func Expected(name string) Expect { return expects[name] }
