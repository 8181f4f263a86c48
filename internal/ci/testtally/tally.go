package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
)

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

// counts is what the closing line says.
type counts struct {
	passed, failed, skipped int
	// brokenPkgs failed with no failing test of their own.
	brokenPkgs []string
	// nonJSON counts lines that were not test2json events (go vet or build
	// output printed before the events).
	nonJSON int
	// skips are the skipped tests by reason, in the order each reason
	// first came.
	skips []skipGroup
}

// skipGroup is the tests that skipped for one reason.
type skipGroup struct {
	reason string
	tests  []string // "package TestName"
}

func (c counts) ok() bool { return c.failed == 0 && len(c.brokenPkgs) == 0 }

func (c counts) String() string {
	s := fmt.Sprintf("%d passed, %d failed, %d skipped", c.passed, c.failed, c.skipped)
	if len(c.brokenPkgs) > 0 {
		s += fmt.Sprintf("; %d packages failed outside a test: %s", len(c.brokenPkgs), strings.Join(c.brokenPkgs, ", "))
	}
	return s
}

// maxHeld bounds the output kept for one running test; past it the
// oldest half is dropped (the end of a failing test's output says most).
const maxHeld = 1 << 20

// tally counts the results in r and writes to out what a plain `go test`
// prints: each package's closing line, everything outside a test (build
// errors), and the output of the tests that failed. A passing test's output
// is dropped, so a green run reads as one line a package; a skipped test's
// reason is kept, and every reason is listed at the end with the tests it
// skipped (writeSkips), since a skip hidden in a green run is a test that
// never ran.
func tally(r io.Reader, out io.Writer) (counts, error) {
	var c counts
	held := map[[2]string][]byte{}   // output of tests still running
	failedTests := map[string]bool{} // packages with a failing test
	failedPkgs := map[string]bool{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			c.nonJSON++
			fmt.Fprintf(out, "%s\n", line)
			continue
		}
		key := [2]string{e.Package, e.Test}
		if e.Action == "output" {
			if e.Test == "" {
				if e.Output != "PASS\n" {
					io.WriteString(out, e.Output)
				}
				continue
			}
			b := append(held[key], e.Output...)
			if len(b) > maxHeld {
				b = append([]byte("[output cut]\n"), b[len(b)-maxHeld/2:]...)
			}
			held[key] = b
			continue
		}
		if e.Test != "" && (e.Action == "pass" || e.Action == "fail" || e.Action == "skip") {
			if e.Action == "fail" {
				out.Write(held[key])
			}
			if e.Action == "skip" {
				c.addSkip(skipReason(held[key]), shortPackage(e.Package)+" "+e.Test)
			}
			delete(held, key)
		}
		switch {
		case e.Test == "" && e.Action == "fail":
			failedPkgs[e.Package] = true
			// A timeout or a panic ends the binary with tests that never
			// ended: test2json gives them the panic's output but no end
			// event, so they are shown and counted as failed here (before,
			// a package that timed out said nothing but its FAIL line).
			if n := writeUnfinished(out, held, e.Package); n > 0 {
				c.failed += n
				failedTests[e.Package] = true
			}
		case e.Test == "":
		case e.Action == "pass":
			c.passed++
		case e.Action == "fail":
			c.failed++
			failedTests[e.Package] = true
		case e.Action == "skip":
			c.skipped++
		}
	}
	if err := sc.Err(); err != nil {
		return c, err
	}
	for p := range failedPkgs {
		if !failedTests[p] {
			c.brokenPkgs = append(c.brokenPkgs, p)
		}
	}
	sort.Strings(c.brokenPkgs)
	writeSkips(out, c.skips)
	return c, nil
}

// writeUnfinished writes, for each test of pkg that started and never
// ended, a line naming it and its output (which holds the panic or the
// timeout's goroutine dump), and forgets them; it returns how many.
func writeUnfinished(out io.Writer, held map[[2]string][]byte, pkg string) int {
	var tests []string
	for k := range held {
		if k[0] == pkg {
			tests = append(tests, k[1])
		}
	}
	sort.Strings(tests)
	for _, t := range tests {
		fmt.Fprintf(out, "--- FAIL: %s (never ended: the test binary stopped while it ran, by a timeout or a panic)\n", t)
		out.Write(held[[2]string{pkg, t}])
		delete(held, [2]string{pkg, t})
	}
	return len(tests)
}

func (c *counts) addSkip(reason, test string) {
	for i := range c.skips {
		if c.skips[i].reason == reason {
			c.skips[i].tests = append(c.skips[i].tests, test)
			return
		}
	}
	c.skips = append(c.skips, skipGroup{reason, []string{test}})
}

// modulePrefix is trimmed from the package paths of the skip list (main
// sets it from go.mod).
var modulePrefix string

// shortPackage is a package's path without the module's ("." for the
// module's root package).
func shortPackage(p string) string {
	if modulePrefix != "" && p == strings.TrimSuffix(modulePrefix, "/") {
		return "."
	}
	return strings.TrimPrefix(p, modulePrefix)
}

// fileLine is the "name_test.go:12: " testing puts before a logged line.
var fileLine = regexp.MustCompile(`^\s*[\w.-]+\.go:\d+: `)

// skipReason is what a skipped test said (its t.Skip message), from its
// output: the lines testing logged, without their file:line and without
// the "=== RUN" and "--- SKIP" lines around them.
func skipReason(output []byte) string {
	var lines []string
	for _, l := range strings.Split(string(output), "\n") {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- SKIP") {
			continue
		}
		lines = append(lines, strings.TrimSpace(fileLine.ReplaceAllString(l, "")))
	}
	if len(lines) == 0 {
		return "(no reason given)"
	}
	return strings.Join(lines, " ")
}

// skipTestsShown bounds the test names listed under one reason.
const skipTestsShown = 3

// writeSkips lists each skip reason, the most frequent first, with how many
// tests it skipped and which.
func writeSkips(out io.Writer, skips []skipGroup) {
	if len(skips) == 0 {
		return
	}
	sort.SliceStable(skips, func(i, j int) bool { return len(skips[i].tests) > len(skips[j].tests) })
	fmt.Fprintln(out, "skipped, by reason:")
	for _, g := range skips {
		names := g.tests[:min(len(g.tests), skipTestsShown)]
		more := ""
		if n := len(g.tests) - len(names); n > 0 {
			more = fmt.Sprintf(" and %d more", n)
		}
		fmt.Fprintf(out, "  %d × %s\n      (%s%s)\n", len(g.tests), g.reason, strings.Join(names, ", "), more)
	}
}
