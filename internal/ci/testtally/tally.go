package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
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
// errors), and the output of the tests that failed. A passing or skipped
// test's output is dropped, so a green run reads as one line a package.
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
			delete(held, key)
		}
		switch {
		case e.Test == "" && e.Action == "fail":
			failedPkgs[e.Package] = true
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
	return c, nil
}
